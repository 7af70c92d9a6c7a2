#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench (host side): the boots that measure prezeroing, then the
# report (markdown tables and PNG plots in userspace/results/).
#   1. the full matrix in one 2-node, 2 GiB boot (guest/bench.sh full),
#      and a steady map/touch/unmap churn with 1 and 2 nodes
#   1a. fragmentation after a long mixed churn, without and with kscrubd
#   1b. the engines again on -cpu max (ERMS), each engine per block order
#   2. time to zero all free memory: 1, 2, 4 and 8 GiB, one and two nodes
#   3. the cost with no scrubber: the same fault runs on the patched and
#      on the unpatched kernel, one fresh boot each, with the wall clock
#      and with QEMU's instruction-counting clock
#   4. clearing bandwidth on this host, natively
# TCG timings are only compared as ratios within one boot; the counters
# (pages served prezeroed, bytes cleared) are exact.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/qemu/out
res=$top/userspace/results
kv=$out/bench.kv
mkdir -p "$out" "$res"
: > "$kv"

boot() {	# boot NAME kernel-args...: run a bench boot, keep its results
	local name=$1 t0=$SECONDS
	shift
	echo "bench: $name" >&2
	KSCRUB_TIMEOUT=${KSCRUB_TIMEOUT:-1500} bash "$top/qemu/run-guest.sh" \
		bench "$out/bench-$name.log" "$@"
	grep -a '^KSCRUB-BENCH: ' "$out/bench-$name.log" | tr -d '\r' |
		sed "s/^KSCRUB-BENCH: /boot=$name /" >> "$kv"
	echo "bench: $name took $((SECONDS - t0)) s" >&2
}

boot full kscrub.bench=full
# Steady churn (issue 14): one node, so that kscrubd may use the idle
# vCPU, and two, where each node's thread shares its node's only vCPU
for n in 1 2; do
	KSCRUB_NUMA=$n boot churn-${n}n kscrub.bench=churn
done
# Fragmentation after a long mixed churn (issue 15 item 4): a fresh 1 GiB,
# one-node boot without kscrubd and one with it
for st in absent loaded; do
	KSCRUB_MEM=1024 KSCRUB_NUMA=1 boot frag-$st kscrub.bench=frag-$st
done
# The engines on a CPU model with ERMS, as real x86 machines have, so that
# clear_page() and clear_pages() take their rep stosb alternative: QEMU
# 7.2's -cpu max has ERMS and not FSRM (the report prints the flags)
KSCRUB_QEMU_ARGS="-cpu max" boot engines-cpumax kscrub.bench=engines
for cfg in 1024:1 2048:1 2048:2 4096:1 8192:1 8192:2; do
	KSCRUB_MEM=${cfg%:*} KSCRUB_NUMA=${cfg#*:} \
		boot "scrubtime-${cfg%:*}M-${cfg#*:}n" kscrub.bench=scrubtime
done
# The cost with no scrubber, on kernels compiled as Debian compiles them,
# with jump labels and -O2 (qemu/kernel-cost.config says why).
# Boot-to-boot noise is a few percent under TCG: alternate the two kernels.
# The icount boots clock instructions instead, free of host noise.
cost=$top/qemu/kernel-cost.config
kdir_p=$(KSCRUB_CONFIG_EXTRA=$cost bash "$top/qemu/build-kernel.sh")
kdir_u=$(KSCRUB_CONFIG_EXTRA=$cost bash "$top/qemu/build-kernel.sh" --unpatched)
# (their initramfs also holds module/*.ko built for the test kernel; the
# idle boots load no module)
bash "$top/qemu/mkinitramfs.sh" "$kdir_p" "$out/initramfs-jl.cpio.gz"
bash "$top/qemu/mkinitramfs.sh" "$kdir_u" "$out/initramfs-unpatched.cpio.gz"
for pair in 1 2 3; do
	for clock in wall icount; do
		icount=
		[ $clock = icount ] && icount=0
		KSCRUB_ICOUNT=$icount KDIR=$kdir_p INITRD=$out/initramfs-jl.cpio.gz \
			boot $clock-patched kscrub.bench=idle
		KSCRUB_ICOUNT=$icount KDIR=$kdir_u INITRD=$out/initramfs-unpatched.cpio.gz \
			boot $clock-unpatched kscrub.bench=idle
	done
done

# Free page reporting: THP faults on memory reported to the host
bash "$top/qemu/bench-vm.sh"

echo "bench: native clearing bandwidth" >&2
"$top/userspace/clearbw" -k -s 4,2048,1048576 -b 1024 -m 1024 -r 3 |
	sed 's/^/boot=native kind=clearbw /' >> "$kv"

python3 "$top/qemu/bench-report.py" "$kv" "$res"
