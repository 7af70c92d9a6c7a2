# SPDX-License-Identifier: GPL-2.0
# The hook patch's counters exist, and with no scrubber registered nothing
# is served prezeroed: under init_on_alloc=1 (the default here) every
# anonymous page faulted in is cleared on the fault path and counted so.
. /kscrub/lib.sh
grep -q '^MemZero:' /proc/meminfo || fail "no MemZero in /proc/meminfo"
for n in /sys/devices/system/node/node[0-9]*; do
	grep -q "MemZero:" "$n/meminfo" || fail "no MemZero in $n/meminfo"
done
for c in nr_free_zeroed_pages pgalloc_prezeroed pgalloc_cleared pgscrubbed; do
	expect_ge "vmstat $c present" "$(vmstat $c)" 0
done
expect_eq "MemZero kB with no scrubber" "$(awk '/^MemZero:/ { print $2 }' /proc/meminfo)" 0
grep -qw init_on_alloc=0 /proc/cmdline && exit 0
out=$(faultbench -m 64 -N -v -k) || fail "faultbench: $out"
echo "$out"
expect_eq "pages served prezeroed" "$(kv pgalloc_prezeroed)" 0
expect_ge "pages cleared on the fault path" "$(kv pgalloc_cleared)" 16384
expect_eq "non-zero pages" "$(kv nonzero_pages)" 0
