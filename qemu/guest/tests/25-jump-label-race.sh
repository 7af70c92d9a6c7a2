# SPDX-License-Identifier: GPL-2.0
# The test kernel patches static keys into the code (CONFIG_JUMP_LABEL=y,
# as Debian builds it), and flipping a key while other CPUs run its site
# does not crash: the control module jump_label_race, on its own key and
# on the stock init_on_alloc key.  Under QEMU 7.2's multi-threaded TCG this
# is what crashes (qemu/jump-label-evidence.sh); make test runs
# single-threaded TCG.
. /kscrub/lib.sh
grep -q ' arch_jump_label_transform_queue$' /proc/kallsyms ||
	fail "kernel built without CONFIG_JUMP_LABEL"
echo "ok: jump labels are patched into the code"
flips=1000
for arg in $(cat /proc/cmdline); do
	case $arg in kscrub.jlr_flips=*) flips=${arg#*=} ;; esac
done
for k in own init_on_alloc; do
	dmesg -c > /dev/null
	modprobe jump_label_race key=$k flips=$flips ||
		fail "modprobe jump_label_race key=$k"
	line=$(dmesg | grep 'jump_label_race: key')
	echo "$line"
	rmmod jump_label_race || fail "rmmod jump_label_race"
	echo "$line" | grep -qE "flipped [0-9]+ times while other CPUs ran the site [1-9][0-9]* times" ||
		fail "key=$k: the other CPUs never ran the site"
done
