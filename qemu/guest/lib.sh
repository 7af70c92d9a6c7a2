# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest tests: each test is a shell script that exits
# non-zero on failure and says why on its output.

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# expect_ge WHAT GOT MIN
expect_ge() {
	[ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got '$2', want >= $3"
	echo "ok: $1 = $2 (>= $3)"
}

vmstat() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print -1 }' /proc/vmstat
}

kver() {
	cat /kscrub/kernel.release
}

# kunit_module MODULE: load a KUnit suite module and report each case as a
# KSCRUB-TEST sub-test line, from the KTAP it prints.
kunit_module() {
	dmesg -c > /dev/null
	modprobe "$1" || fail "modprobe $1"
	dmesg | sed 's/^\[[ 0-9.]*\] //' > /tmp/ktap.$$
	awk -v mod="$1" '
		/^    (not )?ok [0-9]+ / {
			res = ($1 == "not") ? "FAIL" : "PASS"
			name = $0; sub(/^ *(not )?ok [0-9]+ /, "", name)
			sub(/ #.*$/, "", name)
			if ($0 ~ /# SKIP/) {
				res = "SKIP"
				why = $0; sub(/.*# SKIP */, "", why)
				print "skipped " name ": " why
			}
			print "KSCRUB-TEST: kunit/" mod "/" name " " res
			n++; if (res == "FAIL") bad++
		}
		/# Totals:/ { totals = $0 }
		END {
			if (n == 0) { print "FAIL: no KTAP cases from " mod; exit 1 }
			print totals
			exit bad ? 1 : 0
		}' /tmp/ktap.$$ || { rmmod "$1" 2>/dev/null; exit 1; }
	rmmod "$1" || fail "rmmod $1"
}

# kv KEY: the value of KEY in the key=value line held in $out (as printed
# by faultbench -k).
kv() {
	echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# meminfo KEY: a /proc/meminfo value in kB
meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# free_kb_from_order N: free memory in blocks of order >= N (buddyinfo)
free_kb_from_order() {
	# busybox awk has no ^: double the block size by hand
	awk -v n="$1" '{ kb = 4; for (i = 5; i <= NF; i++) { if (i - 5 >= n) s += $i * kb; kb *= 2 } }
		END { printf "%d\n", s }' /proc/buddyinfo
}

# kstat KEY [WORD...]: sum of KEY=n over the lines of kscrubd's debugfs
# stats that contain every WORD (e.g. engine=nt, node=1).  A key on no
# such line prints "missing:KEY" and fails, so that a check of a renamed
# key, or of a node with no line, cannot pass by reading 0.
kstat() {
	local k=$1
	shift
	awk -v k="$k" -v filt="$*" '
		BEGIN { nf = split(filt, want, " ") }
		{
			for (j = 1; j <= nf; j++)
				if (index(" " $0 " ", " " want[j] " ") == 0) next
			for (i = 1; i <= NF; i++)
				if (index($i, k "=") == 1) {
					s += substr($i, length(k) + 2)
					found = 1
				}
		}
		END {
			if (!found) { print "missing:" k; exit 1 }
			printf "%.0f\n", s
		}' /sys/kernel/debug/kscrubd/stats
}

# kdrv KEY: KEY summed over the zero drivers in kscrubd's debugfs drivers
# file (bte_zero registers an engine per node)
kdrv() {
	sed -n "s/.* $1=\([0-9]*\).*/\1/p" /sys/kernel/debug/kscrubd/drivers |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# wait_until SECONDS CMD...: poll CMD every 0.5 s; fail if it never holds
wait_until() {
	local t=$(($1 * 2))
	shift
	while ! "$@"; do
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.5
	done
}

# scrubbed_most: MemZero covers at least 90% of free memory in blocks of
# order >= vm.scrub_stop, and at most 4 MiB is left not zeroed there
# (blocks kscrubd may not take: near watermarks, highatomic or isolated)
scrubbed_most() {
	local z f d x stop
	stop=$(cat /proc/sys/vm/scrub_stop)
	z=$(meminfo MemZero)
	f=$(free_kb_from_order "$stop")
	d=$(($(kstat dirty_pages) * 4))
	x=$(untakeable_kb "$stop")
	[ "$z" -ge $(((f - x) * 9 / 10)) ] && [ $d -le $((4096 + x)) ]
}

# untakeable_kb ORDER: free kB in not-zeroed blocks of order >= ORDER that
# scrubd_rmpage() does not take by design: the high-order atomic reserve
# (up to 1% of a zone, made when a high-order atomic allocation
# succeeds).  /proc/pagetypeinfo counts zeroed blocks too, so this is an
# upper bound.
untakeable_kb() {
	awk -v n="$1" '
		$5 == "type" && $6 == "HighAtomic" {
			kb = 4
			for (o = 0; 7 + o <= NF; o++) {
				if (o >= n)
					s += $(7 + o) * kb
				kb *= 2
			}
		}
		END { printf "%d\n", s }' /proc/pagetypeinfo
}

# load_kscrubd [noverify]: modprobe kscrubd, turn verify mode on (tests
# run with it unless they say otherwise) and wait for the first scrub pass
load_kscrubd() {
	# Fresh defaults even if an earlier test failed with it loaded
	unload_kscrubd
	modprobe kscrubd || fail "modprobe kscrubd"
	if [ "${1:-}" != noverify ]; then
		echo 1 > /proc/sys/vm/scrub_verify || fail "vm.scrub_verify=1"
	fi
	wait_until 120 scrubbed_most || {
		cat /sys/kernel/debug/kscrubd/stats /proc/buddyinfo
		sed -n '/^Free pages count/,/^$/p' /proc/pagetypeinfo
		fail "MemZero $(meminfo MemZero) kB of $(free_kb_from_order 2) kB free, $(($(kstat dirty_pages) * 4)) kB not zeroed after 120 s"
	}
}

dmesg_has() {
	dmesg | grep -qE "$1"
}

unload_kscrubd() {
	rmmod test_zero_driver 2> /dev/null
	rmmod kscrubd 2> /dev/null
}

# skip_test WHY: this test does not apply to this boot (exit 77)
skip_test() {
	echo "skipped: $*"
	exit 77
}

# init_on_free: every freed page is zero already, nothing is served prezeroed
init_on_free() {
	grep -qw init_on_free=1 /proc/cmdline
}

# debug_kernel: booted by make test-debug (KASAN, lockdep, debug_pagealloc,
# page_owner), which holds freed memory on purpose
debug_kernel() {
	grep -qw kscrub.debug=1 /proc/cmdline
}

# census: the test_page_census line, "buddy B reported R pcp P inuse U
# orphans O" (pages; R: the part of B that free page reporting reported)
census() {
	cat /sys/module/test_page_census/parameters/census
}

# census_field NAME: one number of the census line
census_field() {
	census | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# orphans: pages neither free nor in use by the census's count.  Zero on
# an ordinary boot; a high-order allocation made without __GFP_COMP (the
# memmap of hotplugged memory, say) counts its tail frames here too.
orphans() {
	census_field orphans
}

# node_zeroed_pct N: the zeroed share of node N's free memory in blocks
# kscrubd zeroes (its stats' zeroable_pages), 100 if there is none
node_zeroed_pct() {
	local z
	z=$(kstat zeroable_pages node=$1)
	[ "$z" -gt 0 ] || { echo 100; return; }
	echo $(($(kstat zeroed_pages node=$1) * 100 / z))
}

# drain_pcp: MemFree does not count the per-cpu lists, which grow to tens
# of MiB under churn (6.12 tunes their size); unregistering a scrubber
# drains them
drain_pcp() {
	modprobe kscrubd && rmmod kscrubd || fail "kscrubd load/unload"
}

# pcp_keep_kb: what kscrubd leaves on CPU 0's per-cpu lists when it
# drains them: the CPU's slice of the last-level cache (the last cache
# leaf's size over the CPUs sharing it, the kernel's
# per_cpu_data_slice_size), at least 1 MiB
pcp_keep_kb() {
	local leaf kb n
	leaf=$(ls -d /sys/devices/system/cpu/cpu0/cache/index* 2>/dev/null | tail -n 1)
	kb=$(sed 's/K$//' "$leaf/size" 2>/dev/null || echo 0)
	n=$(tr ',' '\n' < "$leaf/shared_cpu_list" 2>/dev/null |
		awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n + 0 }')
	[ "${n:-0}" -gt 0 ] && kb=$((kb / n)) || kb=0
	[ "$kb" -gt 1024 ] || kb=1024
	echo $kb
}

# page_baseline: remember MemFree and the orphans for no_page_lost.  A
# page being freed has no reference for a moment before it reaches a
# free list, so a count can be high for an instant, never low: keep the
# smallest of three (a baseline of 2 that read 0 just after once failed
# 48 in CI).
page_baseline() {
	local i o
	modprobe test_page_census || fail "modprobe test_page_census"
	base_free=$(free_with_pcp_kb)
	base_orphans=$(orphans)
	for i in 1 2; do
		sleep 0.5
		o=$(orphans)
		[ "$o" -lt "$base_orphans" ] && base_orphans=$o
	done
}

# no_page_lost WHAT: no page left the allocator for good since
# page_baseline, by an exact count of page frames (a frame with no
# reference that is in no free block and on no per-cpu list; compaction
# can hold a few for a moment, so look up to five times).  MemFree must
# also be back within 8 MiB, except on a debug kernel, where KASAN's
# quarantine and the stack depot keep freed memory on purpose: there the
# difference is only shown.
no_page_lost() {
	local what=$1 c i=0 free1 slack=0
	# A debug kernel's stack depot grows by non-compound order-2 pools,
	# three frames with no reference each (seen: +3 and +6 in a test)
	debug_kernel && slack=32
	while c=$(census) && [ "${c##*orphans }" -gt $((base_orphans + slack)) ]; do
		i=$((i + 1))
		[ $i -lt 5 ] || {
			dmesg | grep "test_page_census: no reference" | tail -n 8
			fail "$what: $((${c##*orphans } - base_orphans)) more pages neither free nor in use ($c; $base_orphans before)"
		}
		sleep 1
	done
	echo "ok: $what: no page lost ($c; $base_orphans orphans before)"
	free1=$(free_with_pcp_kb)
	echo "$what: MemFree and per-cpu lists before $base_free kB, after $free1 kB, Slab $(meminfo Slab) kB"
	debug_kernel && return 0
	[ $((base_free - free1)) -le 8192 ] ||
		fail "$what: MemFree and per-cpu lists $((base_free - free1)) kB lower"
}

# free_with_pcp_kb: MemFree plus the pages on the per-cpu lists (the
# census's exact count), which MemFree leaves out.  Draining them is no
# longer enough to compare MemFree alone: where the host zeroes reported
# memory, the zeroed per-cpu lists refill with no scrubber loaded.
free_with_pcp_kb() {
	echo $(($(meminfo MemFree) + $(census_field pcp) * 4))
}

# balloon_reporting: the virtio-balloon device is there and reports free
# pages; sets $reporting_order.  Skips the test where there is none (only
# the balloon boots have one).
balloon_reporting() {
	local d found=
	for d in /sys/bus/virtio/devices/*; do
		[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] && found=$d
	done
	[ -n "$found" ] || skip_test "no virtio-balloon device (the balloon boots have one)"
	reporting_order=$(cat /sys/module/page_reporting/parameters/page_reporting_order)
	[ "$reporting_order" -ge 0 ] 2>/dev/null ||
		fail "virtio-balloon bound, but no free page reporting (order '$reporting_order')"
}

# most_reported [KEEP_KB]: 90% of the free memory in blocks of the
# reporting order is reported, but for KEEP_KB that reporting leaves
# alone (kscrubd's reserve where the host makes no promise);
# test_page_census must be loaded
most_reported() {
	[ $(($(census_field reported) * 4)) -ge \
		$((($(free_kb_from_order "$reporting_order") - ${1:-0}) * 9 / 10)) ]
}

# host_zeroes: reported memory comes back zeroed (virtio_balloon's
# host_zeroes_pages, or init_on_free with the poison feature)
host_zeroes() {
	init_on_free || grep -qw virtio_balloon.host_zeroes_pages=1 /proc/cmdline
}
