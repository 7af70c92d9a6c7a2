#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the patch series costs instructions with no scrubber: boot the
# unpatched and the patched cost kernel (qemu/kernel-cost.config) under
# -icount with tbprof.so, run the 4 KiB fault loop alone (kscrub.bench=
# idle4k), and print the per-function difference.  Not part of make test
# or make bench; qemu/out/profile-* keeps the raw profiles and the logs.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/qemu/out
mkdir -p "$out"
plugin=$out/tbprof.so
gcc -O2 -Wall -shared -fPIC -o "$plugin" "$top/qemu/profile/tbprof.c" -lpthread

cost=$top/qemu/kernel-cost.config
kdir_u=$(KSCRUB_CONFIG_EXTRA=$cost bash "$top/qemu/build-kernel.sh" --unpatched)
kdir_p=$(KSCRUB_CONFIG_EXTRA=$cost bash "$top/qemu/build-kernel.sh")
for k in unpatched:$kdir_u patched:$kdir_p; do
	name=${k%%:*} kdir=${k#*:}
	bash "$top/qemu/mkinitramfs.sh" "$kdir" "$out/initramfs-profile-$name.cpio.gz"
	echo "profile: $name" >&2
	KSCRUB_ICOUNT=0 KSCRUB_TIMEOUT=${KSCRUB_TIMEOUT:-1800} KDIR=$kdir \
	INITRD=$out/initramfs-profile-$name.cpio.gz \
	KSCRUB_QEMU_ARGS="-plugin file=$plugin,out=$out/profile-$name.tb" \
		bash "$top/qemu/run-guest.sh" bench "$out/profile-$name.log" \
		kscrub.bench=idle4k
	grep -ao 'faults_per_wsec=[0-9.]*' "$out/profile-$name.log" |
		cut -d= -f2 | sort -n | tr '\n' ' ' |
		sed "s/^/profile: $name faults\/s under -icount: /" >&2
	echo >&2
done
python3 "$top/qemu/profile/symdiff.py" \
	"$kdir_u/System.map" "$out/profile-unpatched.tb" \
	"$kdir_p/System.map" "$out/profile-patched.tb" 25
