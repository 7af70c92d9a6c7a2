# SPDX-License-Identifier: GPL-2.0
# kscrubd's load is refused while another scrubber holds the allocator's
# scrubber slot: the refusal says why in dmesg and leaves no thread, no
# sysctl and no page behind.  (kscrubd_init()'s later failures unwind
# through kscrubd_teardown(), the code every rmmod runs.)
. /kscrub/lib.sh
unload_kscrubd
page_baseline
modprobe test_scrubber_squatter || fail "modprobe test_scrubber_squatter"
dmesg -c > /dev/null
# insmod, not modprobe: busybox modprobe does not pass every error on
if insmod /lib/modules/$(kver)/extra/kscrubd.ko; then
	fail "kscrubd loaded while another scrubber is registered"
fi
dmesg | grep -q "kscrubd: cannot become the page scrubber (-16): another scrubber is registered" ||
	fail "no dmesg line saying why the load failed"
[ -d /sys/module/kscrubd ] && fail "kscrubd still loaded"
[ -e /proc/sys/vm/scrub_start ] && fail "vm.scrub_start left behind"
n=$(grep -l '^kscrubd[0-9]' /proc/[0-9]*/comm 2> /dev/null | wc -l)
expect_eq "kscrubd threads after the refused load" "$n" 0
rmmod test_scrubber_squatter || fail "rmmod test_scrubber_squatter"
dmesg -c > /dev/null
modprobe kscrubd || fail "modprobe kscrubd once the slot is free"
dmesg | grep -q "kscrubd: started on 2 node(s)" || fail "no start line"
rmmod kscrubd || fail "rmmod kscrubd"
no_page_lost "refused load"
echo "ok: the refused load left nothing behind"
