# SPDX-License-Identifier: GPL-2.0
# A zero driver that accepts, refuses, fails and hangs: in every case the
# pages that come out are zero (verify mode and faultbench -v check) and
# the counters say what happened.
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: no dirty free memory for a zero driver"
p=/sys/module/test_zero_driver/parameters
load_kscrubd
sysctl -w vm.scrub_verify=1 > /dev/null
echo 200 > /sys/module/kscrubd/parameters/driver_timeout_ms
modprobe test_zero_driver || fail "modprobe test_zero_driver"
dmesg | grep -q "zero driver test_zero_driver registered" || fail "no registration line"

# dirty: free 256 MiB of dirty memory and wait until it is scrubbed again
dirty() {
	echo 1 > /proc/sys/vm/scrub_enabled
	faultbench -m 256 -N > /dev/null || fail faultbench
	wait_until 120 scrubbed_most || fail "not scrubbed in mode $(cat $p/mode)"
}
# mode MODE: switch the driver with kscrubd paused, so that no block is in
# flight while the counters are read (pages trickling out of the per-cpu
# lists would otherwise keep it busy)
mode() {
	echo 0 > /proc/sys/vm/scrub_enabled
	sleep 1
	echo $1 > $p/mode
}
check_zero() {
	out=$(faultbench -m 128 -N -v -k) || fail "faultbench -v: $out"
	expect_eq "$1: non-zero pages" "$(kv nonzero_pages)" 0
}

dirty
expect_ge "accept: pages zeroed by the driver" "$(kdrv pages)" 16384
expect_ge "accept: engine=driver pages" "$(kstat pages engine=driver)" 16384
# The pass summary names the engines that did the work, the driver too.
# It is logged once the run of passes ends: the looks again after a
# per-cpu drain fold into it, for up to 10 s.
wait_until 30 dmesg_has "kscrubd[01]: zeroed [0-9]+ pages .* engine (.*, )?driver [0-9]+" ||
	fail "no pass summary naming the driver"
check_zero accept

# A bad mode is refused and the mode stays
if (echo bogus > $p/mode) 2> /dev/null; then
	fail "mode=bogus accepted"
fi
expect_eq "mode after a bad write" "$(cat $p/mode)" accept
dmesg | grep -q "test_zero_driver: mode=bogus refused" || fail "no dmesg line for mode=bogus"

mode refuse
r0=$(kdrv refused) d0=$(kdrv pages)
dirty
expect_ge "refuse: blocks refused" "$(kdrv refused)" $((r0 + 1))
expect_eq "refuse: driver pages" "$(kdrv pages)" "$d0"
check_zero refuse

mode fail
dirty
expect_ge "fail: failures" "$(kdrv failed)" 1
expect_ge "fail: node driver_failed" "$(kstat driver_failed)" 1
dmesg | grep -q "zero driver test_zero_driver failed pfn" || fail "no failure line in dmesg"
check_zero fail

mode hang
l0=$(kstat driver_lost_ns)
dirty
expect_eq "hang: timeouts" "$(kdrv timeouts)" 1
# The 200 ms waited for the hung driver are the driver's, not the CPU's
expect_ge "hang: ms lost to the driver" $(( ($(kstat driver_lost_ns) - l0) / 1000000 )) 200
expect_eq "hang: driver marked broken" "$(kdrv broken)" 1
expect_ge "hang: aborted" "$(cat $p/aborted)" 1
dmesg | grep -q "zero driver test_zero_driver did not finish" || fail "no hang line in dmesg"
check_zero hang

expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
rmmod test_zero_driver || fail "rmmod test_zero_driver"
dmesg | grep -q "zero driver test_zero_driver unregistered" || fail "no unregistration line"
rmmod kscrubd || fail "rmmod kscrubd"
