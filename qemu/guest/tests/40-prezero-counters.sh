# SPDX-License-Identifier: GPL-2.0
# The hook patch's counters exist, and with no scrubber registered nothing
# is served prezeroed.  Every anonymous page faulted in is cleared on the
# fault path (4 KiB faults ask for __GFP_ZERO, whatever init_on_alloc
# says), but pgalloc_cleared counts only once zeroed blocks may exist: the
# allocator's no-scrubber path is the unpatched one, and makes no count.
. /kscrub/lib.sh
grep -q '^MemZero:' /proc/meminfo || fail "no MemZero in /proc/meminfo"
for n in /sys/devices/system/node/node[0-9]*; do
	grep -q "MemZero:" "$n/meminfo" || fail "no MemZero in $n/meminfo"
done
for c in nr_free_zeroed_pages pgalloc_prezeroed pgalloc_cleared pgscrubbed; do
	expect_ge "vmstat $c present" "$(vmstat $c)" 0
done
z=$(meminfo MemZero)
if init_on_free; then
	# Cleared as they were freed, at boot too: marked zeroed from the
	# start, with no scrubber ever registered
	f=$(meminfo MemFree)
	echo "init_on_free=1: MemZero $z kB of $f kB free"
	expect_ge "MemZero kB under init_on_free=1, half of MemFree" "$z" $((f / 2))
else
	expect_eq "MemZero kB with no scrubber" "$z" 0
fi
out=$(faultbench -m 64 -N -v -k) || fail "faultbench: $out"
echo "$out"
expect_eq "pages served prezeroed" "$(kv pgalloc_prezeroed)" 0
# Under init_on_free=1 nothing clears at allocation; otherwise the count
# would be at least the 16384 pages faulted in, were it kept
expect_eq "pages counted as cleared with no scrubber yet" "$(kv pgalloc_cleared)" 0
expect_eq "non-zero pages" "$(kv nonzero_pages)" 0
# SysRq-m shows the zeroed blocks per zone
echo m > /proc/sysrq-trigger
dmesg | grep -q ' zero: .*= [0-9]*kB' || fail "no zero: line in the SysRq-m free-area dump"
echo "ok: SysRq-m has zero: lines"
