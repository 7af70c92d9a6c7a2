# SPDX-License-Identifier: GPL-2.0
# Memory stress while kscrubd comes and goes (make stress; a short run is
# tests/85-stress-short.sh).  For SECONDS, all at once:
#  - stress-ng's memory stressors with --verify and --page-in, one
#    stress-ng per stressor so that each has its own verdict (bigheap
#    grows until a 320 MiB address-space limit, not until the OOM killer);
#  - every 3 s compaction (vm.compact_memory), drop_caches=3 and THP
#    switched between never and always;
#  - kscrubd loaded and unloaded over and over, with vm.scrub_verify=1 and
#    bte_zero as its zero driver, in turn accepting, failing every 3rd
#    transfer, failing every transfer and stalled.
# Verify mode checks every block served prezeroed; each rmmod reports
# "kscrubd: unload: verify checked N pages, N not zero" and the counts are
# summed over the cycles.  Ends with one KSCRUB-TEST line per stressor and
# per check, and
#   KSCRUB-STRESS: stressors=N stressor_failures=N verified_pages=N
#   verify_bad=N modcycles=N modcycle_errors=N housekeeping=N
# The host (qemu/stress.sh, qemu/test.sh) scans the console for splats.
#
# usage: stress.sh [SECONDS]  (default kscrub.duration= from the kernel
#                             command line, else 300)
. /kscrub/lib.sh

dur=${1:-}
if [ -z "$dur" ]; then
	for arg in $(cat /proc/cmdline); do
		case "$arg" in kscrub.duration=*) dur=${arg#kscrub.duration=} ;; esac
	done
fi
dur=${dur:-300}
command -v stress-ng > /dev/null || skip_test "no stress-ng in the image"
w=/tmp/stress.$$
rm -rf $w
mkdir -p $w
thp=/sys/kernel/mm/transparent_hugepage/enabled
unload_kscrubd
rmmod bte_zero 2> /dev/null
unload_kscrubd

# As root, stress-ng's madvise stressor also poisons its own pages with
# MADV_HWPOISON (the test kernel has MEMORY_FAILURE) and dies of the
# SIGBUS; as nobody it gives every other advice.  busybox su needs the
# user in /etc/passwd.
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd

# stressor NAME [ARGS...]: one stress-ng for the whole run, in the
# background; its output in $w/NAME.log and exit code in $w/NAME.rc
stressor() {
	local name=$1
	shift
	(
		[ "$name" = bigheap ] && ulimit -v 327680
		set -- timeout $((dur + 120)) stress-ng "$@" --timeout "${dur}s" \
			--verify --page-in --metrics-brief --temp-path /tmp
		if [ "$name" = madvise ]; then
			su -s /bin/sh nobody -c "$*" > $w/$name.log 2>&1
		else
			"$@" > $w/$name.log 2>&1
		fi
		echo $? > $w/$name.rc
	) &
	echo $name >> $w/stressors
}

# Compaction, cache drops and THP flips until told to stop
housekeeping() {
	local n=0
	while [ ! -e $w/stop ]; do
		echo 1 > /proc/sys/vm/compact_memory
		echo 3 > /proc/sys/vm/drop_caches
		if [ $((n % 2)) = 0 ]; then echo never > $thp; else echo always > $thp; fi
		n=$((n + 1))
		sleep 3
	done
	echo always > $thp
	echo $n > $w/housekeeping
}

# kscrubd in and out with bte_zero until told to stop; the verify counts
# from each unload line are summed
modcycles() {
	local n=0 err=0 ver=0 bad=0 bte line v b t0 t1 t2 t3 t4
	while [ ! -e $w/stop ]; do
		dmesg -c > /dev/null
		t0=$(cut -d' ' -f1 /proc/uptime)
		if ! modprobe kscrubd; then
			echo "cycle $n: modprobe kscrubd failed"
			err=$((err + 1))
			sleep 1
			continue
		fi
		echo 1 > /proc/sys/vm/scrub_verify || err=$((err + 1))
		echo 200 > /sys/module/kscrubd/parameters/driver_timeout_ms
		case $((n % 4)) in
		0) bte= ;;
		1) bte=fail_every=3 ;;
		2) bte=fail_every=1 ;;
		3) bte=stall=1 ;;
		esac
		modprobe bte_zero $bte || { echo "cycle $n: modprobe bte_zero $bte failed"; err=$((err + 1)); }
		t1=$(cut -d' ' -f1 /proc/uptime)
		sleep $((1 + n % 4))
		t2=$(cut -d' ' -f1 /proc/uptime)
		rmmod bte_zero 2> /dev/null
		[ ! -d /sys/module/bte_zero ] || { echo "cycle $n: rmmod bte_zero failed"; err=$((err + 1)); }
		t3=$(cut -d' ' -f1 /proc/uptime)
		rmmod kscrubd || { echo "cycle $n: rmmod kscrubd failed"; err=$((err + 1)); }
		t4=$(cut -d' ' -f1 /proc/uptime)
		line=$(dmesg | grep 'kscrubd: unload: verify checked')
		v=$(echo "$line" | sed -n 's/.*verify checked \([0-9]*\) pages, \([0-9]*\) not zero.*/\1/p')
		b=$(echo "$line" | sed -n 's/.*verify checked \([0-9]*\) pages, \([0-9]*\) not zero.*/\2/p')
		if [ -z "$v" ] || [ -z "$b" ]; then
			echo "cycle $n: no unload line with verify counts"
			err=$((err + 1))
		else
			ver=$((ver + v))
			bad=$((bad + b))
		fi
		echo "cycle $n (bte_zero $bte): $(echo "$t0 $t1 $t2 $t3 $t4" |
			awk '{ printf "loaded in %.1f s, rmmod bte_zero %.1f s, rmmod kscrubd %.1f s", $2 - $1, $4 - $3, $5 - $4 }'), verify $v pages, $b not zero"
		[ "${b:-0}" = 0 ] || { echo "cycle $n ($bte): $b pages served prezeroed were not zero:"; dmesg | grep 'kscrubd: verify' | head -n 5; }
		n=$((n + 1))
		sleep 0.$((n % 10))
	done
	echo "$n $err $ver $bad" > $w/modcycles
}

echo "stress: $dur s, MemFree $(meminfo MemFree) kB, stress-ng $(stress-ng --version | awk '{ print $3 }')"
t0=$(cut -d. -f1 /proc/uptime)
stressor vm --vm 2 --vm-bytes 128M --vm-method all
stressor mmap --mmap 1 --mmap-bytes 128M
stressor bigheap --bigheap 1 --bigheap-growth 16M
stressor malloc --malloc 1 --malloc-bytes 64K --malloc-max 1024
stressor madvise --madvise 1
stressor mremap --mremap 1 --mremap-bytes 64M
stressor memfd --memfd 1 --memfd-bytes 64M --memfd-fds 64
stressor fault --fault 1
housekeeping &
modcycles &
# The stressors end on their own (--timeout, or timeout's kill)
while [ "$(ls $w/*.rc 2> /dev/null | wc -l)" -lt "$(wc -l < $w/stressors)" ]; do
	sleep 1
done
touch $w/stop
wait
echo "stress: ran $(($(cut -d. -f1 /proc/uptime) - t0)) s"

nstress=0
nfail=0
for name in $(cat $w/stressors); do
	rc=$(cat $w/$name.rc)
	nstress=$((nstress + 1))
	grep -E 'fail:|error:|warn:|metrc: \[[0-9]*\] '"$name"' ' $w/$name.log | sed "s/^/$name: /"
	case $rc in
	0) echo "KSCRUB-TEST: stress/$name PASS" ;;
	4) echo "KSCRUB-TEST: stress/$name SKIP"; echo "$name: not implemented here" ;;
	*)
		nfail=$((nfail + 1))
		[ "$rc" = 143 ] && echo "$name: did not end, killed $((dur + 120)) s after start"
		echo "$name: exit code $rc; last lines:"
		tail -n 5 $w/$name.log | sed "s/^/$name: /"
		echo "KSCRUB-TEST: stress/$name FAIL"
		;;
	esac
done
read -r cycles errs ver bad < $w/modcycles
hk=$(cat $w/housekeeping)
echo "KSCRUB-STRESS: stressors=$nstress stressor_failures=$nfail verified_pages=$ver verify_bad=$bad modcycles=$cycles modcycle_errors=$errs housekeeping=$hk"

ok=0
check() {	# check NAME CONDITION...
	local name=$1
	shift
	if "$@"; then
		echo "KSCRUB-TEST: stress/$name PASS"
	else
		echo "KSCRUB-TEST: stress/$name FAIL"
		ok=1
	fi
}
check no-stressor-failed [ $nfail = 0 ]
check verify-no-bad-page [ "$bad" = 0 ]
# Under init_on_free=1 allocations never clear, so none is served
# prezeroed and verify mode has nothing to check
init_on_free || check verify-checked-pages [ "$ver" -gt 0 ]
check modcycles [ "$cycles" -gt 0 -a "$errs" = 0 ]
check housekeeping [ "$hk" -gt 0 ]
rm -rf $w
exit $ok
