# SPDX-License-Identifier: GPL-2.0
# A map/touch/unmap loop on one CPU: 6.12 tunes that CPU's per-cpu lists
# up to most of the 128 MiB it frees each time, where the pages wait dirty
# and are taken and cleared again (before kscrubd drained them, a quarter
# of these faults came prezeroed).  kscrubd sends all but the pages each
# CPU freed last (its slice of the last-level cache, at least 1 MiB) back
# to be zeroed, so that after a few rounds nearly every fault beyond those
# is served prezeroed, and every page still reads zero.
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: freed pages are zero already"
load_kscrubd
d0=$(kstat pcp_drained)
# The drain between rounds must fit in the gap.  On the debug kernel
# (debug_pagealloc, page_owner, KASAN) a round takes about 8 s instead of
# 0.3 s, and so does sending 32768 pages back: with 1 s, 63-70% of the
# last round came prezeroed, before and after hook patch 6 alike.
gap=1
debug_kernel && gap=10
for i in 1 2 3 4 5 6; do
	taskset -c 0 faultbench -m 128 -N > /dev/null || fail "faultbench round $i"
	sleep $gap
done
out=$(taskset -c 0 faultbench -m 128 -N -v -k) || fail "faultbench: $out"
echo "$out"
grep -A4 "cpu: 0" /proc/zoneinfo | grep -E "count|high" | head -n 4
expect_ge "pages drained from per-cpu lists" $(($(kstat pcp_drained) - d0)) 8192
expect_eq "non-zero pages" "$(kv nonzero_pages)" 0
# 90% of the pages beyond what CPU 0 keeps hot (and takes back first)
keep=$(pcp_keep_kb)
expect_eq "kscrubd leaves per CPU, KiB (the LLC's slice per sysfs)" \
	"$(dmesg | sed -n 's/.*kscrubd: leaves \([0-9]*\) KiB per CPU.*/\1/p' | tail -n 1)" "$keep"
expect_ge "% served prezeroed" "$(kv prezeroed_pct | cut -d. -f1)" \
	$((90 * (131072 - keep) / 131072))
expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
