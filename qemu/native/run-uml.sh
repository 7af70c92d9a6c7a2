#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build our KUnit modules against the UML build and boot UML once, with
# a host directory as its root file system (static busybox, the modules,
# qemu/native/init); the console goes to LOG.
#
# usage: run-uml.sh KDIR tests|bench LOG [KERNEL ARGS...]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$1 mode=$2 log=$3
shift 3
out=$top/qemu/out/native
mod=$out/mod
busybox=${KSCRUB_BUSYBOX:-/bin/busybox}

log() { echo "run-uml: $*" >&2; }

# Built in a copy, not in module/: the guest's x86 objects live there.
mkdir -p "$mod"
for f in prezero_kunit.c kscrubd_kunit.c kscrubd_policy.c kscrubd.h \
	 prezero_bench_kunit.c; do
	cmp -s "$top/module/$f" "$mod/$f" || cp "$top/module/$f" "$mod/$f"
done
cat > "$mod/Kbuild" <<'KBUILD'
obj-m += prezero_kunit.o kscrubd_kunit.o prezero_bench_kunit.o
KBUILD
nice -n 19 make -s -C "$kdir" ARCH=um M="$mod" modules >&2

root=$(mktemp -d "${TMPDIR:-/tmp}/kscrub-uml-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,mod}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$top/qemu/native/init" "$root/init"
chmod +x "$root/init"
cp "$mod"/*.ko "$root/mod/"

log "booting UML ($mode), console in $log"
# UML's memory is a file in TMPDIR; /dev/shm keeps it in RAM
TMPDIR=${KSCRUB_UML_TMP:-/dev/shm} timeout -k 10 "${KSCRUB_UML_TIMEOUT:-1800}" \
	"$kdir/linux" mem="${KSCRUB_UML_MEM:-4G}" root=/dev/root \
	rootfstype=hostfs hostfs="$root" rw init=/init con=null \
	con0=null,fd:2 kscrub.native="$mode" "$@" \
	< /dev/null > "$log" 2>&1 || log "UML exited $?"
grep -q 'kscrub-native: done' "$log"
