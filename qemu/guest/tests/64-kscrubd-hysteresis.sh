# SPDX-License-Identifier: GPL-2.0
# Hysteresis and the rate cap: a pass stops once vm.scrub_high_pct of a
# node's zeroable free memory is zeroed; wake-ups leave the node alone
# until its share falls below vm.scrub_low_pct, by a new mark or by freed
# memory; vm.scrub_rate holds each node's thread to that many pages a
# second.
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: every free page is zero, no mark is ever crossed"
load_kscrubd
v=/proc/sys/vm
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)

shares() {
	local n=0
	while [ $n -lt $nodes ]; do
		printf 'node%d %d%% ' $n "$(node_zeroed_pct $n)"
		n=$((n + 1))
	done
}
# settle: wait until pgscrubbed stays put for 2 s
settle() {
	local a b i=0
	b=$(vmstat pgscrubbed)
	while [ $i -lt 60 ]; do
		sleep 2
		a=$(vmstat pgscrubbed)
		[ "$a" = "$b" ] && return
		b=$a i=$((i + 1))
	done
	fail "$1: still scrubbing after 120 s"
}
# every_node_at_least WHAT PCT.  A pass stops at the mark, but pages
# freed dirty after it (per-cpu lists draining, page tables) lower the
# share without crossing the low mark: callers allow a few points.
every_node_at_least() {
	local n=0
	while [ $n -lt $nodes ]; do
		expect_ge "$1: node$n zeroed %" "$(node_zeroed_pct $n)" $2
		n=$((n + 1))
	done
}
ms() {
	awk '{ print int($1 * 1000) }' /proc/uptime
}
# Enough to take the shares below 40%, and no closer to the watermarks:
# with a margin of 256 MiB the next test's first scrub left 27 MB it
# could not take (highatomic reserves, presumably), over scrubbed_most's
# 4 MiB
big=$(($(meminfo MemFree) / 1024 - 512))

# dirty_each_node: fault three quarters of each node's free memory from
# one of its own CPUs, then free it dirty, so that about a quarter stays
# zeroed, below the low mark of 40 set next.  One run of $big MiB from
# one CPU fills that CPU's node and only part of the other, which then
# sat at 53% zeroed, between the marks: never scrubbed to the high mark,
# it passed the check below only while it lost no more than a point
# meanwhile.  A share, not all but 256 MiB: on the debug kernel node 0
# has a third less free memory (KASAN's shadow), and left 43% zeroed.
dirty_each_node() {
	local n=0 cpu mb
	while [ $n -lt $nodes ]; do
		cpu=$(cut -d, -f1 /sys/devices/system/node/node$n/cpulist | cut -d- -f1)
		mb=$(($(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node$n/meminfo) * 3 / 4 / 1024))
		if [ -n "$cpu" ] && [ $mb -gt 0 ]; then
			taskset -c "$cpu" faultbench -m $mb -N > /dev/null ||
				fail "faultbench -m $mb on node$n's CPU $cpu"
		fi
		n=$((n + 1))
	done
}

# The high mark stops a pass: most free memory dirty, marks 60 and 40
echo 0 > $v/scrub_enabled
dirty_each_node
echo 60 > $v/scrub_high_pct && echo 40 > $v/scrub_low_pct || fail "marks 60, 40"
echo "dirty: $(shares)"
echo 1 > $v/scrub_enabled
settle "high mark 60"
echo "scrubbed to the high mark: $(shares)"
every_node_at_least "high 60" 52
low_node=
n=0
while [ $n -lt $nodes ]; do
	[ "$(node_zeroed_pct $n)" -le 70 ] && low_node=$n
	n=$((n + 1))
done
[ -n "$low_node" ] || fail "no node stopped near the high mark of 60%: $(shares)"
expect_eq "node$low_node above the high mark" "$(kstat above_high node=$low_node)" 1

# Between the marks a wake-up changes nothing: a new high mark wakes the
# threads, but the share is above the low mark
s0=$(vmstat pgscrubbed) h0=$(kstat held)
echo 90 > $v/scrub_high_pct || fail "vm.scrub_high_pct=90"
sleep 3
expect_eq "pages scrubbed between the marks" "$(vmstat pgscrubbed)" "$s0"
expect_ge "wake-ups held above the low mark" "$(kstat held)" $((h0 + 1))

# A low mark above the share restarts the pass, up to the new high mark
echo 70 > $v/scrub_low_pct || fail "vm.scrub_low_pct=70"
settle "low mark 70"
echo "restarted by the low mark: $(shares)"
every_node_at_least "high 90" 82
expect_ge "pages scrubbed after the low mark" "$(vmstat pgscrubbed)" $((s0 + 1))

# Freed memory: a little keeps the share above the low mark, no pass; a
# lot takes it below, and the pass runs up to the high mark again
s0=$(vmstat pgscrubbed)
faultbench -m 32 -N > /dev/null || fail "faultbench -m 32"
sleep 3
echo "after freeing 32 MiB: $(shares)"
expect_eq "pages scrubbed above the low mark" "$(vmstat pgscrubbed)" "$s0"
faultbench -m $big -N > /dev/null || fail "faultbench -m $big"
settle "freed below the low mark"
expect_ge "pages scrubbed after freeing $big MiB" "$(vmstat pgscrubbed)" $((s0 + 16384))
echo "after freeing $big MiB: $(shares)"
# Marks are looked at on a wake-up: a pass that reached the high mark
# while the exit was still freeing memory leaves what freed later, in
# blocks too small to wake kscrubd, until the next one.  Wake it.
echo 70 > $v/scrub_low_pct
settle "woken below the low mark"
echo "after a wake-up: $(shares)"
# A node may sit anywhere between the marks now; none is left below low
every_node_at_least "after a wake-up, at least the low mark" 70

# Rate cap: 4096 pages (16 MiB) a second per node, against the GB/s
# kscrubd zeroes uncapped; the bound allows a block per node of slack
echo 0 > $v/scrub_low_pct && echo 100 > $v/scrub_high_pct || fail "marks back"
wait_until 120 scrubbed_most || fail "not scrubbed without marks"
echo 0 > $v/scrub_enabled
faultbench -m 512 -N > /dev/null || fail "faultbench -m 512"
rate=4096
echo $rate > $v/scrub_rate || fail "vm.scrub_rate=$rate"
s0=$(vmstat pgscrubbed) t0=$(ms)
echo 1 > $v/scrub_enabled
sleep 5
s1=$(vmstat pgscrubbed) t1=$(ms)
got=$((s1 - s0)) cap=$((nodes * rate * (t1 - t0) / 1000))
echo "capped: $got pages in $((t1 - t0)) ms, $((got * 100 / cap))% of $nodes nodes x $rate pages/s"
[ $got -le $((cap * 5 / 4 + nodes * 1024)) ] ||
	fail "scrubbed $got pages, over the cap of $cap"
expect_ge "pages scrubbed under the cap (a quarter of one node's)" $got $((rate * (t1 - t0) / 4000))
expect_ge "time paced" "$(kstat paced_ns)" 1000000000
t0=$(ms) s0=$(vmstat pgscrubbed) p0=$(kstat paced_ns)
echo 0 > $v/scrub_rate
wait_until 60 scrubbed_most || fail "not scrubbed after the cap was lifted"
t1=$(ms)
echo "uncapped: the rest, $(($(vmstat pgscrubbed) - s0)) pages, in $((t1 - t0)) ms, $((($(kstat paced_ns) - p0) / 1000000)) ms of it paced"
expect_eq "verify_bad" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
