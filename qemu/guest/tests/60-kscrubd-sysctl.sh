# SPDX-License-Identifier: GPL-2.0
# vm.scrub_*: defaults, bad writes fail with EINVAL and change nothing,
# good writes take effect.
. /kscrub/lib.sh
load_kscrubd noverify
v=/proc/sys/vm

# bad_write KNOB VALUE: must fail with EINVAL, value unchanged
bad_write() {
	local before err
	before=$(cat $v/$1)
	if (echo "$2" > $v/$1) 2> /tmp/err; then
		fail "vm.$1=$2 was accepted"
	fi
	err=$(cat /tmp/err)
	case "$err" in *"Invalid argument"*) ;; *) fail "vm.$1=$2: $err, want EINVAL" ;; esac
	expect_eq "vm.$1 after bad write '$2'" "$(cat $v/$1)" "$before"
}

for k in scrub_start scrub_stop scrub_load scrub_enabled scrub_verify scrub_engine \
	scrub_high_pct scrub_low_pct scrub_rate scrub_reserve_mb; do
	expect_eq "mode of vm.$k" "$(stat -c %a $v/$k)" 644
done
expect_eq "default vm.scrub_start" "$(cat $v/scrub_start)" 7
expect_eq "default vm.scrub_stop" "$(cat $v/scrub_stop)" 2
expect_eq "default vm.scrub_load" "$(cat $v/scrub_load)" 999
expect_eq "default vm.scrub_enabled" "$(cat $v/scrub_enabled)" 1
expect_eq "default vm.scrub_verify" "$(cat $v/scrub_verify)" 0
expect_eq "default vm.scrub_engine" "$(cat $v/scrub_engine)" auto
# auto: an engine measured per block order at load, in dmesg and debugfs;
# what it measured depends on the CPU model's string instructions
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1);" \
	"flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -owE 'rep_good|erms|fsrm' | tr '\n' ' ')"
cat /sys/kernel/debug/kscrubd/engines
dmesg | grep -E "kscrubd: engine auto by order 0-10: [cne]( [cne]){10} " ||
	fail "no dmesg line for the engines auto picked"
expect_eq "orders in kscrubd/engines" \
	"$(grep -cE '^order=[0-9]+ auto=(clear|nt|extent) clear_mbps=[1-9][0-9]* nt_mbps=[1-9]' /sys/kernel/debug/kscrubd/engines)" 11
expect_eq "default vm.scrub_high_pct" "$(cat $v/scrub_high_pct)" 100
expect_eq "default vm.scrub_low_pct" "$(cat $v/scrub_low_pct)" 0
expect_eq "default vm.scrub_rate" "$(cat $v/scrub_rate)" 0
expect_eq "default vm.scrub_reserve_mb" "$(cat $v/scrub_reserve_mb)" 256

for bad in -1 11 abc 99999999999999999999 1x; do
	bad_write scrub_start $bad
	bad_write scrub_stop $bad
done
bad_write scrub_stop 8		# above scrub_start
bad_write scrub_start 1		# below scrub_stop
for bad in -1 abc 100001 99999999999999999999; do
	bad_write scrub_load $bad
done
bad_write scrub_enabled 2
bad_write scrub_verify 2
bad_write scrub_engine bogus
for bad in 0 101 -1 abc 1x 99999999999999999999; do
	bad_write scrub_high_pct $bad
done
for bad in 100 101 -1 abc 1x 99999999999999999999; do
	bad_write scrub_low_pct $bad
done
for bad in -1 abc 100000001 99999999999999999999; do
	bad_write scrub_rate $bad
done
for bad in -1 abc 1048577 99999999999999999999 1x; do
	bad_write scrub_reserve_mb $bad
done
# low < high, checked against the other knob whichever is written
echo 80 > $v/scrub_high_pct || fail "vm.scrub_high_pct=80"
echo 66 > $v/scrub_low_pct || fail "vm.scrub_low_pct=66"
bad_write scrub_low_pct 80	# equal to scrub_high_pct
bad_write scrub_low_pct 90	# above it
bad_write scrub_high_pct 66	# equal to scrub_low_pct
bad_write scrub_high_pct 50	# below it
echo 67 > $v/scrub_high_pct || fail "vm.scrub_high_pct=67 above low 66"
echo 0 > $v/scrub_low_pct && echo 100 > $v/scrub_high_pct || fail "marks back to 0, 100"
echo 99 > $v/scrub_low_pct || fail "vm.scrub_low_pct=99 under high 100"
echo 0 > $v/scrub_low_pct
echo 5000 > $v/scrub_rate && echo 100000000 > $v/scrub_rate && echo 0 > $v/scrub_rate ||
	fail "vm.scrub_rate 5000, 100000000, 0"
echo 0 > $v/scrub_reserve_mb && echo 1048576 > $v/scrub_reserve_mb &&
	echo 256 > $v/scrub_reserve_mb || fail "vm.scrub_reserve_mb 0, 1048576, 256"

# What follows needs dirty free memory, which init_on_free=1 never leaves
if init_on_free; then
	rmmod kscrubd || fail "rmmod kscrubd"
	echo "init_on_free=1: every free page is zero; the knobs' effects are tested in the other boots"
	exit 0
fi

# pauses KNOB OFF ON: with KNOB=OFF freed memory stays dirty; back at ON
# it is scrubbed again
pauses() {
	local s0
	echo $2 > $v/$1 || fail "vm.$1=$2"
	sleep 1
	s0=$(vmstat pgscrubbed)
	faultbench -m 256 -N > /dev/null || fail faultbench
	sleep 3
	expect_eq "pgscrubbed with $1=$2" "$(vmstat pgscrubbed)" "$s0"
	echo $3 > $v/$1
	wait_until 60 scrubbed_most || fail "no scrubbing after $1=$3"
	expect_ge "pgscrubbed after $1=$3" "$(vmstat pgscrubbed)" $((s0 + 16384))
}
pauses scrub_load 0 999
pauses scrub_enabled 0 1

# A lower scrub_stop zeroes smaller blocks
echo 0 > $v/scrub_stop || fail "vm.scrub_stop=0"
expect_eq "vm.scrub_stop" "$(cat $v/scrub_stop)" 0
wait_until 60 scrubbed_most || fail "order-0 and -1 blocks not zeroed with scrub_stop=0"
echo "ok: MemZero $(meminfo MemZero) kB of $(free_kb_from_order 0) kB free"
echo 2 > $v/scrub_stop

# scrub_start and scrub_stop may meet
echo 5 > $v/scrub_start && echo 5 > $v/scrub_stop || fail "start=stop=5"
echo 2 > $v/scrub_stop && echo 7 > $v/scrub_start

# The engine can be switched at run time; faultbench -v checks that what
# each one zeroed reads back as zero
for e in clear extent; do
	echo $e > $v/scrub_engine || fail "vm.scrub_engine=$e"
	expect_eq "vm.scrub_engine" "$(cat $v/scrub_engine)" $e
	c0=$(kstat pages engine=$e)
	faultbench -m 256 -N > /dev/null || fail faultbench
	wait_until 60 scrubbed_most || fail "no scrubbing with engine $e"
	expect_ge "pages zeroed by engine $e" "$(kstat pages engine=$e)" $((c0 + 16384))
	out=$(faultbench -m 128 -N -v -k) || fail "faultbench -v: $out"
	expect_eq "engine $e: non-zero pages" "$(kv nonzero_pages)" 0
done
echo auto > $v/scrub_engine
rmmod kscrubd || fail "rmmod kscrubd"
