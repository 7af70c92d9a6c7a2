# SPDX-License-Identifier: GPL-2.0
# The emulated Altix BTE (bte_zero, an engine per node) as kscrubd's zero
# driver: blocks of 60000 bytes and more (order >= 4) go to the engine and
# come out zero, at close to the engine's declared rate even on 64 KiB
# blocks; with every transfer failing, or the engines stalled, the CPU
# zeroes them instead and the counters say so.
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: no dirty free memory for a zero driver"
p=/sys/module/bte_zero/parameters
# An earlier failed run may have left it in, holding kscrubd
rmmod bte_zero 2> /dev/null
load_kscrubd
dmesg -c > /dev/null
sysctl -w vm.scrub_verify=1 > /dev/null
echo 200 > /sys/module/kscrubd/parameters/driver_timeout_ms
modprobe bte_zero || fail "modprobe bte_zero (is bte_zero.o in module/Kbuild?)"
trap 'rmmod bte_zero 2> /dev/null' EXIT
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
expect_eq "engines registered, one per node" \
	"$(dmesg | grep -c "zero driver bte_zero registered, 500 MB/s, node [0-9]")" $nodes
dmesg | grep -q "bte_zero: $nodes engines, a software model of SGI's BTE: the CPU does the fill, paced at 500 MB/s" ||
	fail "no dmesg line saying the BTE is a software model"

# dirty WHAT [MiB]: free dirty memory and wait until it is scrubbed.  A
# failed transfer is zeroed twice, by the engine and then the CPU, and a
# stalled engine costs its timeout: those phases use less memory.
dirty() {
	echo 1 > /proc/sys/vm/scrub_enabled
	faultbench -m ${2:-256} -N > /dev/null || fail faultbench
	wait_until 180 scrubbed_most || fail "$1: not scrubbed"
}
check_zero() {
	out=$(faultbench -m 128 -N -v -k) || fail "faultbench -v: $out"
	expect_eq "$1: non-zero pages" "$(kv nonzero_pages)" 0
	expect_eq "$1: verify_bad" "$(kstat verify_bad)" 0
}
# quiesce WHAT: wait until scrubbing is over and the engine's counters
# stay put for a second, so no transfer is between check and abort while
# they are compared, and a new setting only applies to transfers after it
quiesce() {
	q_n=0 q_last=
	echo 1 > /proc/sys/vm/scrub_enabled
	wait_until 180 scrubbed_most || fail "$1: not scrubbed"
	# Pages trickling out of the per-cpu lists keep kscrubd busy: pause it
	echo 0 > /proc/sys/vm/scrub_enabled
	while :; do
		q_now="$(cat $p/transfers) $(cat $p/aborted) $(kdrv failed) $(kdrv pages)"
		[ "$q_now" = "$q_last" ] && return
		q_last=$q_now
		q_n=$((q_n + 1))
		[ $q_n -lt 30 ] || fail "$1: the engine never went quiet"
		sleep 1
	done
}

dirty accept
expect_ge "accept: pages zeroed by the BTE" "$(kdrv pages)" 16384
expect_ge "accept: engine=driver pages" "$(kstat pages engine=driver)" 16384
expect_ge "accept: transfers" "$(cat $p/transfers)" 1
expect_eq "accept: transfer errors" "$(cat $p/errors)" 0
expect_eq "accept: failures" "$(kdrv failed)" 0
echo "blocks under 60000 bytes refused so far: $(cat $p/refused)"
check_zero accept

# The rate on 64 KiB blocks (the smallest the BTE takes) through kscrubd's
# own wait, against the rate the driver declares, in this boot.  The
# model's timer runs on the guest clock, so a loaded host adds overhead
# to every block: the floor is generous, and the figure is printed.
bench_rate() {
	declared=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' $d/drivers | head -n1)
	echo "$1 $2" > $d/driver_bench || fail "driver_bench $1 $2"
	out=$(cat $d/driver_bench)
	echo "driver_bench: $out"
	expect_eq "order $1: blocks zeroed by the BTE" "$(kv by_driver)" "$2"
	pct=$(($(kv mbps) * 100000000 / declared))
	echo "bte_zero on $(($(kv bytes) / 1024)) KiB blocks: $(kv mbps) MB/s, $pct% of the declared $((declared / 1000000)) MB/s"
}
d=/sys/kernel/debug/kscrubd
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
quiesce bench
# Polled once per tick, 64 KiB blocks made 7 MB/s (1%); 90% is the target.
# A debug kernel (KASAN, lockdep) made 39%: its floor still tells a
# signalled completion from a polled one.  A 4 MiB block is not polled:
# it needs the completion interrupt (without it, 4 MB/s).
floor=50
debug_kernel && floor=20
bench_rate 10 32
expect_ge "4 MiB blocks: % of the declared rate" $pct $floor
bench_rate 4 2048
expect_ge "64 KiB blocks: % of the declared rate" $pct $floor
[ $pct -ge 90 ] || echo "note: below the 90% target on 64 KiB blocks (host load?)"

echo 1 > $p/fail_every
quiesce fail_every
d0=$(kdrv pages) t0=$(cat $p/transfers)
dirty fail_every 64
quiesce fail_every
expect_ge "fail_every=1: transfers" "$(cat $p/transfers)" $((t0 + 1))
expect_ge "fail_every=1: failures" "$(kdrv failed)" 1
expect_eq "fail_every=1: errors = kscrubd's failures" "$(cat $p/errors)" "$(kdrv failed)"
expect_eq "fail_every=1: aborted = failures" "$(cat $p/aborted)" "$(kdrv failed)"
expect_eq "fail_every=1: pages credited to the BTE" "$(kdrv pages)" "$d0"
expect_ge "fail_every=1: node driver_failed" "$(kstat driver_failed)" 1
dmesg | grep -q "zero driver bte_zero failed pfn" || fail "no failure line in dmesg"
check_zero fail_every

echo 0 > $p/fail_every
echo 1 > $p/stall
quiesce stall
dirty stall 64
quiesce stall
# Each engine that got a block times out once and is not used again
t=$(kdrv timeouts)
expect_ge "stall: timeouts" "$t" 1
[ "$t" -le $nodes ] || fail "stall: $t timeouts from $nodes engines"
expect_eq "stall: engines marked broken" "$(kdrv broken)" "$t"
expect_eq "stall: aborted = failures + timeouts" "$(cat $p/aborted)" $(($(kdrv failed) + t))
dmesg | grep -q "zero driver bte_zero did not finish" || fail "no stall line in dmesg"
check_zero stall

rmmod bte_zero || fail "rmmod bte_zero"
trap - EXIT
dmesg | grep -q "zero driver bte_zero unregistered" || fail "no unregistration line"
unload_kscrubd
[ ! -d /sys/module/kscrubd ] || fail "kscrubd still loaded"
