#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the guest's initramfs: busybox, the kernel's modules (ours under
# extra/, resolved by depmod so modprobe finds dependencies), our userspace
# binaries, the in-guest tests and the init script.  A plain cpio script and
# not dracut: every binary we ship is static, so there are no shared
# libraries to collect, and this takes well under a second.
#
# usage: mkinitramfs.sh KDIR OUT.cpio.gz
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
out=$2
kver=$(cat "$kdir/include/config/kernel.release")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,etc,lib/modules}
cp /bin/busybox "$stage/bin/busybox"
for applet in $("$stage/bin/busybox" --list-full); do
	[ -e "$stage/$applet" ] || ln -s /bin/busybox "$stage/$applet"
done

# In-tree modules (KUnit suites built as =m), then ours.
make -C "$kdir" -s INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 \
	modules_install >/dev/null
mkdir -p "$stage/lib/modules/$kver/extra"
for ko in "$top"/module/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$stage/lib/modules/$kver/extra/"
done
rm -f "$stage/lib/modules/$kver/build" "$stage/lib/modules/$kver/source"
depmod -b "$stage" "$kver"

mkdir -p "$stage/kscrub/bin" "$stage/kscrub/tests"
for bin in "$top"/userspace/*; do
	[ -f "$bin" ] && [ -x "$bin" ] && cp "$bin" "$stage/kscrub/bin/"
done
cp "$top"/qemu/guest/lib.sh "$top"/qemu/guest/run.sh "$top"/qemu/guest/bench.sh "$stage/kscrub/"
cp "$top"/qemu/guest/tests/*.sh "$stage/kscrub/tests/"
[ -n "${KSCRUB_EXTRA_TESTS:-}" ] && cp $KSCRUB_EXTRA_TESTS "$stage/kscrub/tests/"
install -m 0755 "$top/qemu/guest/init" "$stage/init"
echo "$kver" > "$stage/kscrub/kernel.release"

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out"
