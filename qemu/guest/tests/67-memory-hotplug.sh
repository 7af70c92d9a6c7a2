# SPDX-License-Identifier: GPL-2.0
# Memory hotplug with kscrubd loaded: node 2 has no CPU and, until this
# test onlines it, no memory (a cold-plugged DIMM the guest leaves
# offline; the small boot in qemu/test.sh).  Onlining it must give node 2
# a kscrubd thread that zeroes its memory; offlining it again (every
# zeroed block isolated and taken away) must stop the thread, serve no
# non-zero page and lose no page.  Runs in the small boot only.
. /kscrub/lib.sh
node=/sys/devices/system/node/node2
[ -d $node ] || skip_test "no hotplug DIMM on node 2 (the small boot has one)"
blocks=$(ls -d $node/memory[0-9]* 2> /dev/null)
[ -n "$blocks" ] || fail "node 2 has no memory blocks"
for b in $blocks; do
	expect_eq "${b##*/} state before the test" "$(cat $b/state)" offline
done

# kscrubd_thread N: the pid of kscrubdN, or nothing
kscrubd_thread() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat $p/comm 2> /dev/null)" = "kscrubd$1" ] && echo ${p#/proc/}
	done
}
has_thread() { [ -n "$(kscrubd_thread "$1")" ]; }
no_thread() { [ -z "$(kscrubd_thread "$1")" ]; }
node2_zeroed_kb() { awk '/MemZero:/ { print $4 }' $node/meminfo; }
node2_has_zeroed() { [ "$(node2_zeroed_kb)" -ge $((hp_kb / 2)) ]; }

unload_kscrubd
page_baseline
load_kscrubd
no_thread 2 || fail "kscrubd2 before node 2 has memory"
dmesg -c > /dev/null
for b in $blocks; do
	# Movable, so that it can be taken away again whatever it held
	echo online_movable > $b/state || fail "online ${b##*/}"
done
hp_kb=$(awk '/MemTotal:/ { print $4 }' $node/meminfo)
echo "node 2 online: $hp_kb kB"
wait_until 30 has_thread 2 || fail "no kscrubd2 after node 2 came online"
# No CPU of its own: it runs wherever it can, at idle priority
expect_eq "kscrubd2 policy" "$(awk '{ print $41 }' /proc/$(kscrubd_thread 2)/stat)" 5
wait_until 120 node2_has_zeroed ||
	fail "node 2 MemZero $(node2_zeroed_kb) kB of $hp_kb kB after 120 s"
echo "ok: node 2 MemZero $(node2_zeroed_kb) kB"

# Use the new memory (ZONE_MOVABLE takes user pages), then take it away.
# Not much more: user pages fill nodes 0 and 1 first, and page tables
# cannot come from ZONE_MOVABLE (0.8 of MemFree ended in an OOM kill).
# Nor more than half of what nodes 0 and 1 have free: on a debug kernel
# page_owner's and KASAN's own allocations come from there too, and 0.4
# of MemFree (164 MiB, with 150 MiB free on nodes 0 and 1) did as well.
node_free_kb() {
	awk '/MemFree:/ { print $4 }' /sys/devices/system/node/node$1/meminfo
}
kb=$(( $(meminfo MemFree) * 4 / 10 ))
low_kb=$(( ($(node_free_kb 0) + $(node_free_kb 1)) / 2 ))
[ $low_kb -lt $kb ] && kb=$low_kb
echo "faultbench over $((kb / 1024)) MiB"
out=$(faultbench -m $((kb / 1024)) -N -v) || fail "faultbench"
expect_eq "non-zero pages served" "$(kv nonzero_pages)" 0
for b in $blocks; do
	echo offline > $b/state || fail "offline ${b##*/}"
	expect_eq "${b##*/} state" "$(cat $b/state)" offline
done
wait_until 30 no_thread 2 || fail "kscrubd2 still runs with node 2 offline"
has_thread 0 && has_thread 1 || fail "kscrubd0/1 stopped with node 2"
expect_eq "verify_bad" "$(kstat verify_bad)" 0

# Online again and unload with node 2 online: every thread stops
for b in $blocks; do
	echo online_movable > $b/state || fail "online ${b##*/} again"
done
wait_until 30 has_thread 2 || fail "no kscrubd2 after the second online"
rmmod kscrubd || fail "rmmod kscrubd"
no_thread 2 || fail "kscrubd2 left after rmmod"
for b in $blocks; do
	echo offline > $b/state || fail "offline ${b##*/} without kscrubd"
done
no_page_lost "hotplug"
