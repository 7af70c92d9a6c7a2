# SPDX-License-Identifier: GPL-2.0
# kscrubd's lifecycle: a thread's CPU affinity comes back with its node's
# CPUs, a zero driver going away does not keep kscrubd waiting until its
# deadline, and scrub_load=0 means no timer wake-ups either.
. /kscrub/lib.sh
load_kscrubd

pid_of() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2> /dev/null)" = "$1" ] && echo "${p#/proc/}"
	done
}
allowed() {
	awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"
}

# CPU hotplug: cpu1 is node 1's only CPU
online=/sys/devices/system/cpu/cpu1/online
[ -w $online ] || fail "no CPU hotplug for cpu1"
pid=$(pid_of kscrubd1)
want=$(cat /sys/devices/system/node/node1/cpulist)
expect_eq "kscrubd1 CPUs" "$(allowed "$pid")" "$want"
echo 0 > $online || fail "offline cpu1"
echo "kscrubd1 may run on $(allowed "$pid") while cpu1 is offline"
echo 1 > $online || fail "online cpu1"
affine() {
	[ "$(allowed "$pid")" = "$want" ]
}
wait_until 5 affine || fail "kscrubd1 runs on $(allowed "$pid") after cpu1 came back, want $want"
echo "ok: kscrubd1 back on CPUs $want"

# scrub_load=0: never scrub, and no wake-up every 10 s to check the load
echo 0 > /proc/sys/vm/scrub_load || fail "vm.scrub_load=0"
sleep 1
r0=$(kstat retries) p0=$(kstat passes)
sleep 11
expect_eq "timer wake-ups in 11 s with scrub_load=0" "$(kstat retries)" "$r0"
expect_eq "passes in 11 s with scrub_load=0" "$(kstat passes)" "$p0"
echo 999 > /proc/sys/vm/scrub_load

# A driver that hangs, unregistered mid-block: rmmod returns within a
# tick or two, not at the 10 s deadline, and the block is still zeroed
if ! init_on_free; then
	echo 10000 > /sys/module/kscrubd/parameters/driver_timeout_ms ||
		fail "driver_timeout_ms=10000"
	dmesg -c > /dev/null
	modprobe test_zero_driver mode=hang || fail "modprobe test_zero_driver"
	faultbench -m 256 -N > /dev/null || fail faultbench
	started() {
		[ "$(cat /sys/module/test_zero_driver/parameters/started)" -ge 1 ]
	}
	wait_until 30 started || fail "the driver got no block"
	t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	rmmod test_zero_driver || fail "rmmod test_zero_driver"
	t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	echo "rmmod test_zero_driver with a block in flight took $((t1 - t0)) ms"
	[ $((t1 - t0)) -lt 3000 ] || fail "rmmod waited $((t1 - t0)) ms for a hung driver"
	dmesg | grep -q "test_zero_driver did not finish" &&
		fail "an unregistered driver was reported as hung"
	out=$(faultbench -m 256 -N -v -k) || fail "faultbench -v: $out"
	expect_eq "non-zero pages" "$(kv nonzero_pages)" 0
	echo 1000 > /sys/module/kscrubd/parameters/driver_timeout_ms
fi
expect_eq "verify_bad" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
