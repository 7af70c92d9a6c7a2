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

balloon_reporting
order=$reporting_order
host_zeroes || echo "note: the host makes no promise; the zeroed lists are empty without a scrubber"

drain_pcp
page_baseline
show() {
	echo "$1: MemFree $(meminfo MemFree) kB, MemZero $(meminfo MemZero) kB," \
		"free in blocks of order >= $order $(free_kb_from_order "$order") kB," \
		"reported $(($(census_field reported) * 4)) kB"
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
# Where reported memory reads back zero (init_on_free with the poison
# value 0 told to the device, or virtio_balloon.host_zeroes_pages=1), it
# stays on the zeroed lists: before, reporting dropped the mark and
# MemZero fell from 1.9 GiB to 10 MB within 10 s of boot.
if host_zeroes; then
	expect_ge "pages kept zeroed by reporting (pgzeroed_reported)" \
		"$(vmstat pgzeroed_reported)" $((r / 4))
	expect_ge "MemZero, 90% of the $r kB reported" "$(meminfo MemZero)" $((r * 9 / 10))
fi
drain_pcp
no_page_lost "free page reporting"
