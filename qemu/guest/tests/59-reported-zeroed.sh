# SPDX-License-Identifier: GPL-2.0
# kscrubd in a guest that reports free memory to its host (the balloon
# boots: QEMU's virtio-balloon with free-page-reporting=on, init_on_alloc=1).
#
# Where the host zeroes reported memory (virtio_balloon.host_zeroes_pages=1;
# QEMU discards it, so it reads back zero), reported blocks stay zeroed:
# most free memory is MemZero with no scrubber at all, a THP run after
# idle is served prezeroed, and kscrubd leaves the reporting order to the
# host.  Before, MemZero stayed under 1% of free memory and the run got 0%.
#
# Where it makes no promise, page reporting leaves kscrubd's reserve
# (vm.scrub_reserve_mb) alone and kscrubd keeps no more than that zeroed:
# the reserve serves a THP run right after idle, and reporting throws away
# under 5% of what kscrubd zeroes.  Before, all of it was thrown away.
. /kscrub/lib.sh
balloon_reporting
v=/proc/sys/vm
unload_kscrubd
page_baseline
mem_pages=$(($(meminfo MemTotal) / 4))

show() {
	echo "$1 ($(cut -d' ' -f1 /proc/uptime) s up): MemFree $(meminfo MemFree) kB," \
		"MemZero $(meminfo MemZero) kB, reported $(($(census_field reported) * 4)) kB," \
		"pgscrubbed $(vmstat pgscrubbed) pgzeroed_reported $(vmstat pgzeroed_reported)" \
		"pgzeroed_discarded $(vmstat pgzeroed_discarded)"
}
zero_pct() {
	echo $(($(meminfo MemZero) * 100 / $(meminfo MemFree)))
}
mostly_zeroed() {
	most_reported && [ "$(zero_pct)" -ge 90 ]
}
# thp_run MIB: faultbench with THP, every page checked, into $out
thp_run() {
	out=$(faultbench -m "$1" -H -v -k) || fail "faultbench -m $1 -H: $out"
	echo "$out"
	expect_eq "non-zero pages" "$(kv nonzero_pages)" 0
	expect_ge "THP faults" "$(kv thp_fault_alloc)" $(($1 / 4))
}

if host_zeroes; then
	show "before"
	wait_until 180 mostly_zeroed || { show "after 180 s"; fail "reported memory not zeroed"; }
	show "reported"
	expect_ge "MemZero, % of MemFree, no scrubber" "$(zero_pct)" 90

	modprobe kscrubd || fail "modprobe kscrubd"
	echo 1 > $v/scrub_verify || fail "vm.scrub_verify=1"
	grep -q "^reporting=zeroes reporting_order=$reporting_order " /sys/kernel/debug/kscrubd/stats ||
		fail "kscrubd does not see a host that zeroes: $(tail -n1 /sys/kernel/debug/kscrubd/stats)"
	s0=$(vmstat pgscrubbed)
	sleep 30
	show "30 s idle with kscrubd"
	s=$(($(vmstat pgscrubbed) - s0))
	[ $((s * 100)) -lt "$mem_pages" ] || fail "kscrubd zeroed $s pages idle, want < 1% of $mem_pages"
	echo "ok: kscrubd zeroed $s pages in 30 s idle (< 1% of memory)"

	thp_run 512
	expect_ge "% served prezeroed, THP after idle" "$(kv prezeroed_pct | cut -d. -f1)" 95
	# What the run freed is reported and comes back zeroed; kscrubd
	# leaves blocks of the reporting order to the host
	s0=$(vmstat pgscrubbed)
	wait_until 180 mostly_zeroed || { show "after 180 s"; fail "freed memory not zeroed again"; }
	show "after the run"
	s=$(($(vmstat pgscrubbed) - s0))
	[ $((s * 100)) -lt "$mem_pages" ] || fail "kscrubd zeroed $s pages after the run, want < 1% of $mem_pages"
	echo "ok: kscrubd zeroed $s pages while the run's memory was reported"
else
	modprobe kscrubd || fail "modprobe kscrubd"
	echo 1 > $v/scrub_verify || fail "vm.scrub_verify=1"
	grep -q "^reporting=discards reporting_order=$reporting_order reserve_mb=256 " /sys/kernel/debug/kscrubd/stats ||
		fail "kscrubd does not see a host without a promise: $(tail -n1 /sys/kernel/debug/kscrubd/stats)"
	reserve_kb=$((256 * 1024))
	# reserve_held MIN_KB MAX_KB: MemZero within the bounds
	reserve_held() {
		[ "$(meminfo MemZero)" -ge "$1" ] && [ "$(meminfo MemZero)" -le "$2" ]
	}
	s0=$(vmstat pgscrubbed) d0=$(vmstat pgzeroed_discarded)
	wait_until 180 reserve_held $((reserve_kb * 9 / 10)) $reserve_kb ||
		{ show "after 180 s"; fail "MemZero not within 90-100% of the 256 MiB reserve"; }
	show "reserve filled"
	sleep 30
	show "30 s idle"
	reserve_held $((reserve_kb * 9 / 10)) $reserve_kb ||
		fail "MemZero $(meminfo MemZero) kB after 30 s idle, want 90-100% of $reserve_kb kB"
	echo "ok: MemZero $(meminfo MemZero) kB held through 30 s idle"

	# The run faults on its own node first: the reserve is split over
	# the nodes by size, and the local node's share is what it can take
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
	thp_run 512
	p=$(kv pgalloc_prezeroed)
	expect_ge "pages served prezeroed, 90% of the node's share of the reserve" \
		"$p" $((reserve_kb / 4 / nodes * 9 / 10))
	# all but the reserve reported
	reported_but_reserve() {
		most_reported "$(meminfo MemZero)"
	}
	wait_until 180 reported_but_reserve || { show "after 180 s"; fail "the run's memory not reported"; }
	wait_until 120 reserve_held $((reserve_kb * 9 / 10)) $reserve_kb ||
		{ show "after 120 s"; fail "reserve not refilled after the run"; }
	# a few more of reporting's passes (one each 2 s) over the reserve
	sleep 20
	reserve_held $((reserve_kb * 9 / 10)) $reserve_kb ||
		fail "MemZero $(meminfo MemZero) kB 20 s after the run, want 90-100% of $reserve_kb kB"
	show "after the run"
	s=$(($(vmstat pgscrubbed) - s0)) d=$(($(vmstat pgzeroed_discarded) - d0))
	[ $((d * 20)) -lt "$s" ] || fail "reporting threw away $d of $s pages kscrubd zeroed, want < 5%"
	echo "ok: reporting threw away $d of $s pages kscrubd zeroed (< 5%)"

	# A smaller reserve: reporting takes what is beyond it, and kscrubd
	# stays within it.  Reporting leaves zeroed blocks below its order,
	# as it leaves every block below it: 4 MiB of slack for those.
	echo 64 > $v/scrub_reserve_mb || fail "vm.scrub_reserve_mb=64"
	wait_until 120 reserve_held 0 $((68 * 1024)) ||
		{ show "after 120 s"; fail "MemZero not within the 64 MiB reserve"; }
	show "reserve 64 MiB"
	echo 256 > $v/scrub_reserve_mb
fi
expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
drain_pcp
no_page_lost "reported zeroed memory"
