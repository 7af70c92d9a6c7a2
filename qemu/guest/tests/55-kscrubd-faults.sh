# SPDX-License-Identifier: GPL-2.0
# After a scrub pass, a process faulting in 256 MiB gets its pages served
# prezeroed (4 KiB and THP), every page reads zero, and verify mode finds
# no prezeroed page that is not zero.
. /kscrub/lib.sh
load_kscrubd
sysctl -w vm.scrub_verify=1 > /dev/null || fail "sysctl vm.scrub_verify=1"
for mode in N H; do
	out=$(faultbench -m 256 -$mode -v -k) || fail "faultbench -$mode: $out"
	echo "$out"
	expect_eq "-$mode: non-zero pages" "$(kv nonzero_pages)" 0
	if init_on_free; then
		# Freed pages are zero and marked so: nothing to skip, nothing cleared
		expect_eq "-$mode: pages cleared" "$(kv pgalloc_cleared)" 0
	else
		expect_ge "-$mode: % served prezeroed" "$(kv prezeroed_pct | cut -d. -f1)" 90
	fi
	[ $mode = H ] && expect_ge "-H: THP faults" "$(kv thp_fault_alloc)" 100
done
expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
init_on_free || expect_ge "verify: pages checked" "$(kstat verified_pages)" 100000
rmmod kscrubd || fail "rmmod kscrubd"
