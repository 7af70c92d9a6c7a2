# SPDX-License-Identifier: GPL-2.0
# After a scrub pass, a process faulting in 256 MiB gets its pages served
# prezeroed (4 KiB, THP and 64 KiB mTHP), every page reads zero, and
# verify mode finds no prezeroed page that is not zero.  Copy-on-write
# faults get prezeroed pages only where the page would be cleared.
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

# 64 KiB mTHP (order 4, from the buddy lists, not the per-cpu ones): with
# 2 MiB THP off and 64 KiB on, one touch per 64 KiB
t=/sys/kernel/mm/transparent_hugepage
if [ -w $t/hugepages-64kB/enabled ]; then
	thp_mode() { sed 's/.*\[\(.*\)\].*/\1/' $t/hugepages-$1/enabled; }
	old2m=$(thp_mode 2048kB) old64=$(thp_mode 64kB)
	echo never > $t/hugepages-2048kB/enabled
	echo always > $t/hugepages-64kB/enabled
	wait_until 120 scrubbed_most || fail "not scrubbed before the mTHP run"
	f0=$(cat $t/hugepages-64kB/stats/anon_fault_alloc)
	out=$(faultbench -m 256 -s 64 -v -k)
	rc=$?
	f1=$(cat $t/hugepages-64kB/stats/anon_fault_alloc)
	echo $old2m > $t/hugepages-2048kB/enabled
	echo $old64 > $t/hugepages-64kB/enabled
	[ $rc = 0 ] || fail "faultbench mTHP: $out"
	echo "$out"
	expect_ge "mTHP: 64 KiB faults" $((f1 - f0)) 3686
	expect_eq "mTHP: non-zero pages" "$(kv nonzero_pages)" 0
	if init_on_free; then
		expect_eq "mTHP: pages cleared" "$(kv pgalloc_cleared)" 0
	else
		expect_ge "mTHP: % served prezeroed" "$(kv prezeroed_pct | cut -d. -f1)" 90
	fi
fi
# Copy-on-write faults on a private mapping of a file: the copy
# overwrites the page, so a prezeroed one saves only the clear that
# init_on_alloc=1 does anyway, and with init_on_alloc=0 none is spent
dd if=/dev/zero of=/tmp/cow bs=1M count=64 2> /dev/null || fail "dd /tmp/cow"
wait_until 120 scrubbed_most || fail "not scrubbed before the copy-on-write run"
out=$(faultbench -m 64 -N -F /tmp/cow -v -k)
rc=$?
rm -f /tmp/cow
[ $rc = 0 ] || fail "faultbench -F: $out"
echo "$out"
expect_eq "cow: copy-on-write faults" "$(kv source)" file
expect_eq "cow: non-zero pages" "$(kv nonzero_pages)" 0
pct=$(kv prezeroed_pct | cut -d. -f1)
if init_on_free; then
	expect_eq "cow: pages cleared" "$(kv pgalloc_cleared)" 0
elif grep -qw init_on_alloc=0 /proc/cmdline; then
	# the page tables' pages are the only zeroing allocations: 0.2%
	[ "$pct" -lt 1 ] || fail "cow: $pct% served prezeroed, want < 1 (nothing to clear)"
	echo "ok: cow: $pct% served prezeroed (< 1)"
else
	expect_ge "cow: % served prezeroed" "$pct" 90
fi
expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
init_on_free || expect_ge "verify: pages checked" "$(kstat verified_pages)" 100000
rmmod kscrubd || fail "rmmod kscrubd"
