# SPDX-License-Identifier: GPL-2.0
# make bench (guest side).  kscrub.bench= on the kernel command line says
# what to measure in this boot:
#   full       clearing bandwidth, fault-rate matrix without and with
#              prezeroing (anonymous, and copy-on-write of a private file
#              mapping), kscrubd's bandwidth per engine and bte_zero's per
#              block size, interference
#   scrubtime  the time kscrubd takes to zero all free memory
#   idle       the single-thread fault rate with no scrubber, for the
#              patched and the unpatched kernel
#   engines    clearing bandwidth, kscrubd's engines (what auto picks per
#              block order, and each engine's rate) and bte_zero only; make
#              bench runs it on -cpu max (ERMS; QEMU 7.2 has no FSRM)
#   bte        bte_zero's rate per block size alone (bte_b), for a quick
#              look without the rest of engines
#   idle4k     the 4 KiB fault loop of idle alone, for instruction
#              profiles of the two kernels (qemu/profile/profile.sh)
#   churn      a steady map/touch/unmap churn on one vCPU, the other idle:
#              the share of its faults served prezeroed, rep by rep
#   frag-absent, frag-loaded
#              fragmentation after a long mixed churn, without kscrubd
#              and with it (one fresh boot each)
#   reported, reported-kscrubd
#              THP faults on memory free page reporting gave to the host,
#              after idle, without and with kscrubd (the balloon boots of
#              make bench-vm)
# Every result is a KSCRUB-BENCH line of key=value pairs for the host.
. /kscrub/lib.sh
b() { echo "KSCRUB-BENCH: $*"; }
env="mem_mib=$(($(meminfo MemTotal) / 1024)) cpus=$(grep -c ^processor /proc/cpuinfo) nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)"

# fault MODE CLINES THREADS STRIDE_KIB PREZERO REP
# One touch per huge page makes 256 MiB only 128 faults, a few ms under
# TCG and at the mercy of host noise: the fault-alone runs map 1 GiB.
fault() {
	local r mib=256

	[ $4 = 2048 ] && mib=1024
	r=$(faultbench -m $mib -$1 -c $2 -t $3 -s $4 -k) || r="error=1"
	b "kind=fault prezero=$5 rep=$6 $r"
}

# full_pool PREZERO: with prezeroing on, each run must find a full pool
# of zeroed pages: wait for kscrubd to zero the last run's memory
full_pool() {
	[ $1 = on ] || return 0
	wait_until 60 scrubbed_most || b "kind=warn what=rescrub-timeout"
}

# The cache-line sweep with one thread, the thread sweep with one line,
# and for THP one touch per huge page (the fault alone).  A first run of
# each mode is thrown away: the first THP faults of a boot are slower.
matrix() {	# matrix PREZERO
	local mode cts rep c t s
	for mode in N H; do
		faultbench -m 256 -$mode > /dev/null
		for cts in 1:1:4 2:1:4 4:1:4 8:1:4 16:1:4 32:1:4 64:1:4 1:2:4 1:4:4 1:1:2048; do
			[ $mode = N ] && [ ${cts##*:} != 4 ] && continue
			c=${cts%%:*} t=${cts#*:} s=${cts##*:}
			t=${t%:*}
			for rep in 1 2 3; do
				full_pool $1
				fault $mode $c $t $s $1 $rep
			done
		done
	done
	cow $1
}

# cow PREZERO: copy-on-write faults on a private mapping of a 256 MiB
# tmpfs file, a workload that could lose: the copy overwrites the page,
# so a prezeroed one saves only the clear init_on_alloc=1 does anyway
cow() {
	local rep r
	dd if=/dev/zero of=/tmp/cow bs=1M count=256 2> /dev/null
	faultbench -m 256 -N -F /tmp/cow > /dev/null
	for rep in 1 2 3; do
		full_pool $1
		r=$(faultbench -m 256 -N -F /tmp/cow -k) || r="error=1"
		b "kind=fault prezero=$1 rep=$rep $r"
	done
	rm -f /tmp/cow
}

cpuloop_b() {	# cpuloop_b STATE
	local s0 r
	s0=$(vmstat pgscrubbed)
	r=$(cpuloop -s 3 -k)
	b "kind=cpuloop state=$1 $r scrubbed_pages=$(($(vmstat pgscrubbed) - s0))"
}

scrubtime() {
	local t0 t1
	t0=$(awk '{ print $1 }' /proc/uptime)
	load_kscrubd noverify
	t1=$(awk '{ print $1 }' /proc/uptime)
	b "kind=scrubtime $env seconds=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }') memzero_kib=$(meminfo MemZero) scrubbed_pages=$(vmstat pgscrubbed)"
}

clearbw_b() {	# clearbw_b EXTENTS_KIB [METHODS]: userspace clearing bandwidth, best of 3
	clearbw -k -s $1 -b 512 -m 512 -r 3 ${2:+-M $2} |
		while read -r l; do b "kind=clearbw $l"; done
}

# enginepick_b: the guest's CPU, and what vm.scrub_engine=auto measured
# at load per block order (debugfs engines); the report sets it next to
# memset_orders_b's figures
enginepick_b() {
	local model

	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1 | tr -c 'A-Za-z0-9.+\n' _)
	b "kind=cpu model=$model $(for f in rep_good erms fsrm; do
		grep -m1 '^flags' /proc/cpuinfo | grep -qw $f && echo $f=1 || echo $f=0
	done | tr '\n' ' ')"
	sed 's/ [a-z]*_pages=[0-9]*//g' /sys/kernel/debug/kscrubd/engines |
		while read -r l; do b "kind=enginepick $l"; done
}

# memset_orders_b: a userspace memset of blocks of each order 0-10, before
# kscrubd is loaded, so that its threads do not share the vCPUs
memset_orders_b() {
	clearbw_b 4,8,16,32,64,128,256,512,1024,2048,4096 memset
}

# engine_bw ENGINE: scrub 512 MiB of dirty memory with it, three times,
# as clearbw's figures are the best of three.  The memory is freed on
# node 0 (the process runs on vCPU 0), so that one kscrubd thread scrubs
# while the other vCPU idles, as memset ran: run-guest.sh's single-
# threaded TCG runs both vCPUs on one host thread, and two threads
# scrubbing at once each ran at half speed by their own clocks (48-52% of
# memset, against 80-88% under multi-threaded TCG before 4 December)
engine_bw() {
	local p0 n0 round
	echo $1 > /proc/sys/vm/scrub_engine
	for round in 1 2 3; do
		p0=$(kstat pages engine=$1) n0=$(kstat ns engine=$1)
		taskset -c 0 faultbench -m 512 -N > /dev/null
		# kscrubd runs at SCHED_IDLE and its clock runs while it is
		# preempted: let it work alone before polling
		sleep 5
		wait_until 120 scrubbed_most
		b "kind=kscrubbw engine=$1 round=$round pages=$(($(kstat pages engine=$1) - p0)) ns=$(($(kstat ns engine=$1) - n0))"
	done
}

# bte_b: bte_zero's rate per block size, through kscrubd's own wait for a
# driver (debugfs driver_bench), scrubbing paused so that it has the
# engine to itself; 64 KiB is the smallest block the BTE takes
bte_b() {
	local o d=/sys/kernel/debug/kscrubd rate
	modprobe bte_zero || { b "kind=warn what=modprobe-bte_zero"; return; }
	echo 0 > /proc/sys/vm/scrub_enabled
	sleep 1
	rate=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' $d/drivers | head -n1)
	for o in 4 6 8 10; do
		echo "$o 256" > $d/driver_bench
		b "kind=bte declared_bps=$rate $(cat $d/driver_bench)"
	done
	echo 1 > /proc/sys/vm/scrub_enabled
	rmmod bte_zero
}

# churn_nodes: zeroed and not zeroed free pages per node (n0_zeroed=...),
# from kscrubd's stats when it is loaded
churn_nodes() {
	[ -r /sys/kernel/debug/kscrubd/stats ] || return 0
	awk '$1 ~ /^node=/ && $2 ~ /^running=/ {
		split($1, n, "="); z = d = 0
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^zeroed_pages=/) z = substr($i, 14)
			if ($i ~ /^dirty_pages=/) d = substr($i, 13)
		}
		printf "n%s_zeroed=%s n%s_dirty=%s ", n[2], z, n[2], d
	}' /sys/kernel/debug/kscrubd/stats
}

# churn_b STATE REPS: map, touch and unmap 128 MiB in a loop pinned to
# CPU 0 while the other vCPU idles; per rep the share of the faults
# served prezeroed and MemZero after it, with the time since the start
churn_b() {
	local rep r t0
	t0=$(awk '{ print $1 }' /proc/uptime)
	for rep in $(seq 1 $2); do
		r=$(taskset -c 0 faultbench -m 128 -N -k) || r="error=1"
		b "kind=churn state=$1 rep=$rep t=$(awk -v a=$t0 '{ printf "%.2f", $1 - a }' /proc/uptime) memzero_kib=$(meminfo MemZero) $(churn_nodes) $r"
	done
}

# frag_sums: vmstat counters, the unusable free space index for a THP (the
# largest of the zones', debugfs extfrag), free kB in blocks of a THP or
# larger, and pageblocks per migratetype (/proc/pagetypeinfo)
frag_sums() {
	local k
	for k in thp_fault_alloc thp_fault_fallback compact_stall compact_fail \
		 compact_success compact_migrate_scanned compact_free_scanned \
		 pgalloc_prezeroed pgalloc_cleared; do
		printf '%s=%s ' $k "$(vmstat $k)"
	done
	awk '$3 == "zone" && NF >= 14 && $14 + 0 > u { u = $14 + 0 }
		END { printf "unusable_index_thp=%.3f ", u }' \
		/sys/kernel/debug/extfrag/unusable_index 2>/dev/null
	printf 'free_kb_thp=%s ' "$(free_kb_from_order 9)"
	awk '/^Number of blocks type/ { on = 1; next } on && /^Node/ {
			for (i = 5; i <= NF; i++) s[i] += $i } on && !/^Node/ { on = 0 }
		END { printf "blocks_unmovable=%d blocks_movable=%d blocks_reclaimable=%d blocks_highatomic=%d",
			s[5], s[6], s[7], s[8] }' /proc/pagetypeinfo
}

# frag_b STATE ROUNDS: a long mixed churn that fragments memory.  Each
# round writes a 4 MiB ramfs file (page cache that cannot move: ramfs asks
# for GFP_HIGHUSER) and, once 176 are there (704 MiB of the 1 GiB guest,
# so that THP faults can fail), removes the oldest; maps,
# touches and unmaps 96 MiB of 4 KiB pages; and faults in 64 MiB of THP,
# one touch each.  Counters before and after; the host reports the
# difference.  For issue 15 item 4: smallest-first with the kind only a
# tie-break must fragment no more with kscrubd than without.
frag_b() {
	local r
	mkdir -p /mnt/frag
	mount -t ramfs ramfs /mnt/frag || { b "kind=warn what=ramfs"; return; }
	b "kind=frag state=$1 at=start $(frag_sums)"
	for r in $(seq 1 "$2"); do
		dd if=/dev/zero of=/mnt/frag/f$r bs=1M count=4 2> /dev/null
		[ "$r" -le 176 ] || rm -f /mnt/frag/f$((r - 176))
		faultbench -m 96 -N > /dev/null
		faultbench -m 64 -H -s 2048 > /dev/null
	done
	b "kind=frag state=$1 at=end rounds=$2 memzero_kib=$(meminfo MemZero) $(frag_sums)"
	umount /mnt/frag
}

case ${KSCRUB_BENCH:-full} in
full)
	b "kind=env $env kernel=$(uname -r)"
	# The first write to a guest page makes QEMU's host fault it in and
	# clear it; back all of guest RAM now, or the first runs without
	# prezeroing pay for that and kscrubd's later runs do not
	faultbench -m $(($(meminfo MemFree) / 1024 - 128)) -H > /dev/null
	clearbw_b 4,2048,262144
	memset_orders_b
	cpuloop_b absent
	matrix off
	# Not timed: the pages the matrix left on the per-cpu lists drain
	# into the buddy lists for seconds after; the scrubtime boots time
	# the first scrub of a fresh guest
	load_kscrubd noverify
	enginepick_b
	cpuloop_b idle
	engine_bw clear
	engine_bw nt
	engine_bw extent
	bte_b
	matrix on
	# Interference while scrubbing: free 1 GiB of dirty memory, then spin
	faultbench -m 1024 -N > /dev/null
	cpuloop_b scrubbing
	wait_until 120 scrubbed_most
	cpuloop_b idle
	unload_kscrubd
	cpuloop_b absent
	;;
engines)
	b "kind=env $env kernel=$(uname -r)"
	clearbw_b 4,2048,262144
	memset_orders_b
	load_kscrubd noverify
	enginepick_b
	engine_bw clear
	engine_bw nt
	engine_bw extent
	bte_b
	unload_kscrubd
	;;
bte)
	load_kscrubd noverify
	bte_b
	unload_kscrubd
	;;
scrubtime)
	scrubtime
	unload_kscrubd
	;;
idle)
	for ms in N:4 H:4 H:2048; do
		faultbench -m 256 -${ms%:*} > /dev/null
		for rep in 1 2 3 4 5 6 7; do
			fault ${ms%:*} 1 1 ${ms#*:} off $rep
		done
	done
	;;
churn)
	b "kind=env $env kernel=$(uname -r)"
	faultbench -m $(($(meminfo MemFree) / 1024 - 128)) -H > /dev/null
	churn_b absent 10
	load_kscrubd noverify
	churn_b loaded ${KSCRUB_CHURN_REPS:-60}
	b "kind=churnstats wakeups=$(kstat wakeups) passes=$(kstat passes) retries=$(kstat retries) pcp_drained=$(kstat pcp_drained) pcp_looks=$(kstat pcp_looks) widened=$(kstat widened)"
	cat /sys/kernel/debug/kscrubd/stats
	unload_kscrubd
	;;
reported|reported-kscrubd)
	# Every run faults on memory reported to the host after idle: wait
	# for reporting to take what the last run freed (beyond kscrubd's
	# reserve where it keeps one) before the next
	b "kind=env $env kernel=$(uname -r)"
	balloon_reporting
	modprobe test_page_census || fail "modprobe test_page_census"
	if [ "$KSCRUB_BENCH" = reported-kscrubd ]; then
		s0=$(vmstat pgscrubbed) d0=$(vmstat pgzeroed_discarded)
		t_load=$(cut -d. -f1 /proc/uptime)
		modprobe kscrubd || fail "modprobe kscrubd"
	fi
	# reported_idle: 90% of the free memory of the reporting order is
	# reported, but for kscrubd's reserve (zeroed, left alone by
	# reporting).  Where the host zeroes, reported memory is MemZero
	# too: nothing to take off there.
	reported_idle() {
		if [ "$KSCRUB_BENCH" = reported-kscrubd ]; then
			most_reported "$(meminfo MemZero)"
		else
			most_reported
		fi
	}
	for s in 2048 4; do
		for rep in 1 2 3; do
			wait_until 240 reported_idle || b "kind=warn what=report-timeout"
			# make bench-vm samples QEMU's resident memory from
			# the host and files it under the last mark
			echo "KSCRUB-MARK: stride_kib=$s rep=$rep phase=before"
			sleep 3
			r=$(faultbench -m 512 -H -s $s -k) || r="error=1"
			echo "KSCRUB-MARK: stride_kib=$s rep=$rep phase=after"
			sleep 3
			b "kind=reported bench=$KSCRUB_BENCH stride_kib=$s rep=$rep memzero_kib=$(meminfo MemZero) $r"
		done
	done
	# With kscrubd: go on idling and faulting until ten minutes have
	# passed since it was loaded, then count what it zeroed and what
	# page reporting threw away of it
	if [ "$KSCRUB_BENCH" = reported-kscrubd ]; then
		while [ "$(cut -d. -f1 /proc/uptime)" -lt $((t_load + 600)) ]; do
			wait_until 240 reported_idle || b "kind=warn what=report-timeout"
			sleep 30
			faultbench -m 512 -H > /dev/null
		done
		b "kind=reportedcycle seconds=$(($(cut -d. -f1 /proc/uptime) - t_load)) scrubbed=$(($(vmstat pgscrubbed) - s0)) discarded=$(($(vmstat pgzeroed_discarded) - d0))"
	fi
	;;
frag-absent)
	b "kind=env $env kernel=$(uname -r)"
	frag_b absent ${KSCRUB_FRAG_ROUNDS:-300}
	;;
frag-loaded)
	b "kind=env $env kernel=$(uname -r)"
	load_kscrubd noverify
	frag_b loaded ${KSCRUB_FRAG_ROUNDS:-300}
	unload_kscrubd
	;;
idle4k)
	for rep in 1 2 3 4 5 6 7 8 9 10; do
		fault N 1 1 4 off $rep
	done
	;;
esac
