# SPDX-License-Identifier: GPL-2.0
# insmod kscrubd: one idle-priority thread per node, named kscrubd<N>,
# bound to its node's CPUs (or, let off by its starvation watch, to all);
# MemZero rises to most of the free memory in
# blocks of order >= vm.scrub_stop; rmmod gives every page back.
. /kscrub/lib.sh
page_baseline
dmesg -c > /dev/null
load_kscrubd
echo "MemZero $(meminfo MemZero) kB, free in blocks >= order 2: $(free_kb_from_order 2) kB"
dmesg | grep -q "kscrubd: started on 2 node(s)" || fail "no start line in dmesg"
if init_on_free; then
	# Every free page was cleared when it was freed: nothing to scrub
	expect_eq "pgscrubbed under init_on_free=1" "$(vmstat pgscrubbed)" 0
else
	wait_until 30 dmesg_has "kscrubd[01]: zeroed" || fail "no pass summary"
	dmesg | grep -qE "kscrubd[01]: zeroed [0-9]+ pages \([0-9]+ MiB\) in [0-9.]+ s, [0-9]+ MB/s, engine .*, total [0-9]+ pages, [0-9]+ passes$" ||
		fail "no scrub pass summary in dmesg"
	expect_ge "vmstat pgscrubbed" "$(vmstat pgscrubbed)" 100000
fi
for n in 0 1; do
	pid=
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "kscrubd$n" ] && pid=${p#/proc/}
	done
	[ -n "$pid" ] || fail "no kscrubd$n thread"
	want=$(cat /sys/devices/system/node/node$n/cpulist)
	got=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/$pid/status)
	# Unless its starvation watch let it off its node for a while: with
	# a 20 ms watch that happened at load, the test's own polling keeping
	# the CPUs busy
	if [ "$got" != "$want" ] && [ "$(kstat widened node=$n)" -gt 0 ]; then
		echo "kscrubd$n was let off its node $(kstat widened node=$n) time(s)"
		want=$(cat /sys/devices/system/cpu/possible)
	fi
	expect_eq "kscrubd$n CPUs" "$got" "$want"
	# Field 41 of /proc/PID/stat is the policy; SCHED_IDLE is 5
	expect_eq "kscrubd$n policy" "$(awk '{ print $41 }' /proc/$pid/stat)" 5
done
for n in /sys/devices/system/node/node[01]; do
	z=$(awk '/MemZero:/ { print $4 }' $n/meminfo)
	expect_ge "${n##*/} MemZero kB" "$z" 100000
done
expect_ge "vmstat nr_free_zeroed_pages" "$(vmstat nr_free_zeroed_pages)" 100000
rmmod kscrubd || fail "rmmod kscrubd"
dmesg | grep -q "kscrubd0: unload: [0-9]* wake-ups" || fail "no unload stats in dmesg"
# The per-cpu lists are drained by rmmod
no_page_lost "insmod/rmmod"
