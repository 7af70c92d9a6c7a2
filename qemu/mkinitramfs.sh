#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the guest's initramfs: busybox, the kernel's modules (ours under
# extra/, resolved by depmod so modprobe finds dependencies), our userspace
# binaries, the kernel's mm selftests (qemu/build-selftests.sh, built here
# if missing: one to two minutes, once per kernel tree), stress-ng, the
# kernel's .config, the in-guest tests and the init script.
#
# A plain cpio script and not dracut: keep it simple and fast (a few
# seconds once the selftests are built).  Everything we ship is
# static except stress-ng (Debian's, dynamically linked): its shared
# libraries, as ldd lists them, and the ELF interpreter are copied to the
# same paths in the image, where the guest's ld.so finds them in its
# built-in search path.
#
# usage: mkinitramfs.sh KDIR OUT.cpio.gz
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
out=$2
kver=$(cat "$kdir/include/config/kernel.release")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# mktemp -d made it 0700: the guest's / must let other users in
chmod 755 "$stage"
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
# The kernel's mm selftests; 88-mm-selftests skips those the kernel's
# configuration cannot run, so the guest gets the .config too
selftests=$(bash "$top/qemu/build-selftests.sh" "$kdir")
mkdir -p "$stage/kscrub/selftests"
cp "$selftests"/* "$stage/kscrub/selftests/"
cp "$kdir/.config" "$stage/kscrub/kernel.config"

# copy_dyn BINARY: a dynamically linked binary into /usr/bin, with the
# shared libraries ldd finds for it and the ELF interpreter
copy_dyn() {
	local lib
	cp "$1" "$stage/usr/bin/"
	for lib in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// { print $1 }'); do
		mkdir -p "$stage/$(dirname "$lib")"
		[ -e "$stage/$lib" ] || cp -L "$lib" "$stage/$lib"
	done
}
# stress-ng for make stress and 85-stress-short (which skips without it)
if command -v stress-ng > /dev/null; then
	copy_dyn "$(command -v stress-ng)"
fi

cp "$top"/qemu/guest/lib.sh "$top"/qemu/guest/run.sh "$top"/qemu/guest/bench.sh \
	"$top"/qemu/guest/stress.sh "$stage/kscrub/"
cp "$top"/qemu/guest/tests/*.sh "$stage/kscrub/tests/"
[ -n "${KSCRUB_EXTRA_TESTS:-}" ] && cp $KSCRUB_EXTRA_TESTS "$stage/kscrub/tests/"
install -m 0755 "$top/qemu/guest/init" "$stage/init"
echo "$kver" > "$stage/kscrub/kernel.release"

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out"
