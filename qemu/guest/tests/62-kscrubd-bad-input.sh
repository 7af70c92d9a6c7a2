# SPDX-License-Identifier: GPL-2.0
# Bad input of every kind is refused and changes nothing: out-of-range
# module parameters (at load and at run time, with a dmesg line saying
# why), random and malformed sysctl writes, writers racing each other while
# kscrubd scrubs, a second insmod, rmmod while bte_zero uses kscrubd, and
# writes by a user who is not root.
. /kscrub/lib.sh
unload_kscrubd
v=/proc/sys/vm
p=/sys/module/kscrubd/parameters
refused=0

# refused WHAT CMD...: CMD must fail
refused() {
	local what=$1
	shift
	if "$@" 2> /dev/null; then
		fail "$what was accepted"
	fi
	refused=$((refused + 1))
}

for bad in 0 10001 abc -5 99999999999; do
	dmesg -c > /dev/null
	refused "insmod driver_timeout_ms=$bad" modprobe kscrubd driver_timeout_ms=$bad
	[ -d /sys/module/kscrubd ] && fail "kscrubd loaded with driver_timeout_ms=$bad"
	dmesg | grep -q "kscrubd: driver_timeout_ms=$bad refused: want 1..10000 ms" ||
		fail "no dmesg line for driver_timeout_ms=$bad"
done
echo "ok: out-of-range driver_timeout_ms refused at load, with a reason"

load_kscrubd
for bad in 0 10001 abc ""; do
	refused "driver_timeout_ms=$bad at run time" sh -c "echo '$bad' > $p/driver_timeout_ms"
	expect_eq "driver_timeout_ms after '$bad'" "$(cat $p/driver_timeout_ms)" 1000
done

# A second insmod fails and leaves the first one working
refused "a second insmod" insmod /lib/modules/$(kver)/extra/kscrubd.ko
expect_eq "kscrubd threads after a second insmod" \
	"$(grep -l '^kscrubd[0-9]' /proc/[0-9]*/comm 2>/dev/null | wc -l)" 2

# bte_zero holds kscrubd: rmmod kscrubd fails until bte_zero is gone
modprobe bte_zero || fail "modprobe bte_zero"
refused "rmmod kscrubd under bte_zero" rmmod kscrubd
[ -d /sys/module/kscrubd ] || fail "kscrubd went away under bte_zero"
rmmod bte_zero || fail "rmmod bte_zero"

# Not root: every knob refuses, nothing changes.  busybox su needs the
# user in /etc/passwd; the initramfs has no passwd of its own.
grep -q '^root:' /etc/passwd 2> /dev/null || echo 'root:x:0:0:root:/root:/bin/sh' >> /etc/passwd
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2> /dev/null || echo 'nogroup:x:65534:' >> /etc/group
as_nobody() {
	su -s /bin/sh nobody -c "$1"
}
expect_eq "uid under su" "$(as_nobody 'id -u')" 65534
for k in scrub_start scrub_stop scrub_load scrub_enabled scrub_verify scrub_engine \
	scrub_high_pct scrub_low_pct scrub_rate scrub_reserve_mb; do
	before=$(cat $v/$k)
	refused "vm.$k written by uid 65534" as_nobody "echo 3 > $v/$k"
	expect_eq "vm.$k after a non-root write" "$(cat $v/$k)" "$before"
done
refused "driver_timeout_ms written by uid 65534" \
	as_nobody "echo 5 > $p/driver_timeout_ms"
expect_eq "driver_timeout_ms after a non-root write" "$(cat $p/driver_timeout_ms)" 1000

# in_range: every knob holds a value it may hold, scrub_stop <= scrub_start,
# scrub_low_pct < scrub_high_pct
in_range() {
	local s e
	s=$(cat $v/scrub_start) e=$(cat $v/scrub_stop)
	[ "$e" -le "$s" ] && [ "$s" -le 10 ] && [ "$e" -ge 0 ] &&
		[ "$(cat $v/scrub_low_pct)" -lt "$(cat $v/scrub_high_pct)" ] &&
		[ "$(cat $v/scrub_high_pct)" -le 100 ] &&
		[ "$(cat $v/scrub_rate)" -le 100000000 ] &&
		[ "$(cat $v/scrub_load)" -le 100000 ] &&
		[ "$(cat $v/scrub_reserve_mb)" -le 1048576 ] &&
		case "$(cat $v/scrub_enabled)$(cat $v/scrub_verify)" in [01][01]) ;; *) false ;; esac &&
		case "$(cat $v/scrub_engine)" in auto|nt|clear|extent) ;; *) false ;; esac
}

# Random writes: random bytes, and numbers around each range.  A write
# either fails and changes nothing or succeeds and stores what was written.
i=0 acc=0 rej=0
while [ $i -lt 300 ]; do
	i=$((i + 1))
	k=$(echo scrub_start scrub_stop scrub_load scrub_enabled scrub_verify scrub_engine \
		scrub_high_pct scrub_low_pct scrub_rate scrub_reserve_mb | tr ' ' '\n' | shuf -n1)
	if [ $((i % 2)) = 0 ]; then
		val=$(head -c 64 /dev/urandom | tr -dc '[:graph:]' | head -c 12)
		[ -n "$val" ] || val=x
	else
		val=$(( $(od -An -N2 -tu2 /dev/urandom) % 24 - 6 ))
	fi
	before=$(cat $v/$k)
	if printf '%s\n' "$val" > $v/$k 2> /dev/null; then
		acc=$((acc + 1))
		[ "$(cat $v/$k)" = "$val" ] ||
			fail "vm.$k='$val' accepted but reads '$(cat $v/$k)'"
	else
		rej=$((rej + 1))
		[ "$(cat $v/$k)" = "$before" ] || fail "vm.$k changed by a refused write"
	fi
	in_range || fail "a knob out of range after vm.$k='$val'"
done
echo "ok: 300 random writes: $acc accepted, $rej refused, every value in range"
refused=$((refused + rej))

# Writers racing each other while kscrubd scrubs under fault churn
( while [ ! -e /tmp/stop-churn ]; do faultbench -m 64 -N > /dev/null; done ) &
churn=$!
writers=
for k in scrub_start scrub_stop scrub_engine scrub_enabled; do
	(
		j=0
		while [ $j -lt 150 ]; do
			case $k in
			scrub_engine) val=$(echo auto nt clear extent | tr ' ' '\n' | shuf -n1) ;;
			scrub_enabled) val=$((j % 2)) ;;
			*) val=$(shuf -i 0-10 -n1) ;;
			esac
			echo $val > $v/$k 2> /dev/null
			j=$((j + 1))
		done
	) &
	writers="$writers $!"
done
for j in $writers; do
	wait "$j"
done
touch /tmp/stop-churn
wait $churn
rm -f /tmp/stop-churn
in_range || fail "knobs out of range after racing writers"
echo "ok: 600 racing writes left scrub_start=$(cat $v/scrub_start) scrub_stop=$(cat $v/scrub_stop)"

# Back to defaults; nothing served prezeroed was ever non-zero
echo 1 > $v/scrub_enabled
echo 2 > $v/scrub_stop
echo 7 > $v/scrub_start
echo auto > $v/scrub_engine
echo 999 > $v/scrub_load
echo 0 > $v/scrub_low_pct
echo 100 > $v/scrub_high_pct
echo 0 > $v/scrub_rate
echo 256 > $v/scrub_reserve_mb
echo 1 > $v/scrub_verify
out=$(faultbench -m 64 -N -v -k) || fail "faultbench -v: $out"
expect_eq "non-zero pages after the races" "$(kv nonzero_pages)" 0
expect_eq "verify_bad" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
echo "ok: $refused bad inputs refused"
