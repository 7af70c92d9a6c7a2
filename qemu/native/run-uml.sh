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

# UML's memory is a file in TMPDIR.  A real kernel reaches memory through
# a direct map of 2 MiB or 1 GiB pages, but on /dev/shm (shmem THP is off
# on these hosts) UML's memory is mapped with 4 KiB host pages: each cold
# block then costs host TLB misses that a real kernel does not take (a
# cold 2 MiB clear: 80 us, against 68-70 us with 2 MiB pages).  As root,
# run in a mount namespace of our own (the rest of the host sees
# nothing) with a tmpfs mounted huge=always, so that the file is backed
# by 2 MiB pages as a direct map would be.
if [ -z "${KSCRUB_UML_TMP:-}" ] && [ -z "${KSCRUB_UML_NS:-}" ] &&
   [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	KSCRUB_UML_NS=1 exec unshare -m --propagation private \
		bash "$0" "$kdir" "$mode" "$log" "$@"
fi
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
memdir=${KSCRUB_UML_TMP:-/dev/shm} backing=shm
mem=${KSCRUB_UML_MEM:-4G}	# in GiB, with the G
if [ -n "${KSCRUB_UML_NS:-}" ]; then
	memdir=$root.mem
	mkdir -p "$memdir"
	if mount -t tmpfs -o "huge=always,size=$(( ${mem%G} + 1 ))G" \
		kscrub-uml "$memdir"; then
		backing=huge-tmpfs
	else
		log "no tmpfs with huge=always: UML's memory on /dev/shm"
		memdir=/dev/shm
	fi
fi
trap 'rm -rf "$root"; [ "$backing" = shm ] || umount "$memdir"; rmdir "$memdir" 2> /dev/null' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,mod}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$top/qemu/native/init" "$root/init"
chmod +x "$root/init"
cp "$mod"/*.ko "$root/mod/"

log "booting UML ($mode), console in $log, memory in $memdir ($backing)"
TMPDIR=$memdir timeout -k 10 "${KSCRUB_UML_TIMEOUT:-1800}" \
	"$kdir/linux" mem="$mem" root=/dev/root \
	rootfstype=hostfs hostfs="$root" rw init=/init con=null \
	con0=null,fd:2 kscrub.native="$mode" "$@" \
	< /dev/null > "$log" 2>&1 &
tpid=$!
# How much of UML's memory the host maps with 2 MiB pages, at most
pmd=0
while kill -0 $tpid 2> /dev/null; do
	for p in $(pgrep -P $tpid); do
		k=$(awk '/^ShmemPmdMapped:/ { print $2 }' \
			"/proc/$p/smaps_rollup" 2> /dev/null)
		[ "${k:-0}" -le "$pmd" ] || pmd=$k
	done
	sleep 2
done
wait $tpid || log "UML exited $?"
echo "kscrub-host: uml_memory=$backing pmd_mapped_kb=$pmd" >> "$log"
grep -q 'kscrub-native: done' "$log"
