# SPDX-License-Identifier: GPL-2.0
# A planted fault: a zero driver that lies (says a block is zero and
# leaves a non-zero byte in every page).  With vm.scrub_verify=1 no such
# page reaches a process or the kernel: each is caught, counted and
# cleared.  Last in the boot (see the end).
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: no dirty free memory for a zero driver"
unload_kscrubd
dmesg -c > /dev/null
modprobe kscrubd || fail "modprobe kscrubd"
echo 1 > /proc/sys/vm/scrub_verify
modprobe test_zero_driver mode=lie || fail "modprobe test_zero_driver mode=lie"
big=$(( $(meminfo MemFree) * 6 / 10 / 1024 ))

# Dirty most of free memory, let kscrubd (and the liar) zero it, then
# fault it all back in and count the non-zero pages seen
faultbench -m $big -N > /dev/null || fail faultbench
wait_until 120 scrubbed_most || fail "not scrubbed"
out=$(faultbench -m $big -N -v -k)
expect_ge "blocks the liar took" "$(cat /sys/module/test_zero_driver/parameters/started)" 1
expect_eq "non-zero pages served with verify on" "$(kv nonzero_pages)" 0
expect_ge "verify_bad" "$(kstat verify_bad)" 1
dmesg | grep -q "served prezeroed has a non-zero byte" || fail "no verify report in dmesg"
echo "ok: verify caught $(kstat verify_bad) lying blocks"

# kscrubd stays loaded with verify on and the driver honest: blocks the
# liar marked zeroed may still be free, and with verify off they would be
# served as zero (to page tables too: a run without verify crashed the
# guest in copy_page_range()).  Nothing runs after this test but poweroff.
echo accept > /sys/module/test_zero_driver/parameters/mode
