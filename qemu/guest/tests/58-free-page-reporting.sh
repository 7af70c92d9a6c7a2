# SPDX-License-Identifier: GPL-2.0
# Free page reporting sees every free block, zeroed ones included.  Under
# init_on_free=1 nearly all free memory sits on the zeroed lists, with no
# scrubber loaded, and a walker of free_list[] alone (page reporting,
# compaction's fast searches, hibernation) used to find almost none of it.
# The balloon boot gives the guest QEMU's virtio-balloon with
# free-page-reporting=on.  After a process has faulted in and freed half
# of memory, the blocks of the reporting order or larger must end up
# reported (PG_reported, counted by test_page_census), as the unpatched
# kernel reports them; before the series taught page_reporting_cycle()
# the zeroed lists, this boot reported 0 kB of 1.9 GiB in 180 s.
. /kscrub/lib.sh

balloon=
for d in /sys/bus/virtio/devices/*; do
	[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] && balloon=$d
done
[ -n "$balloon" ] || skip_test "no virtio-balloon device (the balloon boot has one)"
order=$(cat /sys/module/page_reporting/parameters/page_reporting_order)
[ "$order" -ge 0 ] 2>/dev/null ||
	fail "virtio-balloon bound, but no free page reporting (order '$order')"
init_on_free || echo "note: init_on_free is off; the zeroed lists are empty without a scrubber"

drain_pcp
page_baseline
show() {
	echo "$1: MemFree $(meminfo MemFree) kB, MemZero $(meminfo MemZero) kB," \
		"free in blocks of order >= $order $(free_kb_from_order "$order") kB," \
		"reported $(($(census_field reported) * 4)) kB"
}
# most_reported: 90% of the free memory in blocks of the reporting order
most_reported() {
	[ $(($(census_field reported) * 4)) -ge $(($(free_kb_from_order "$order") * 9 / 10)) ]
}

show "after boot"
half=$(($(meminfo MemFree) / 2048))
out=$(faultbench -m "$half" -N -k) || fail "faultbench -m $half: $out"
show "after faulting in and freeing $half MiB"
# The reporting worker runs 2 s after a free and takes a sixteenth of a
# list per pass (page_reporting.c: "about 30 seconds" on an idle system)
if ! wait_until 180 most_reported; then
	show "after 180 s"
	fail "free page reporting left most free memory unreported"
fi
show "reported"
r=$(($(census_field reported) * 4))
f=$(free_kb_from_order "$order")
expect_ge "kB reported, 90% of $f kB free in blocks of order >= $order" "$r" $((f * 9 / 10))
drain_pcp
no_page_lost "free page reporting"
