# SPDX-License-Identifier: GPL-2.0
# The "no page lost" checks count page frames (test_page_census); this
# proves that count sees a lost page: three pages orphaned on purpose
# (no reference, in no free block, on no per-cpu list) must show.
. /kscrub/lib.sh
unload_kscrubd
page_baseline
c=$(census)
echo "census: $c"
case $c in "buddy "*" reported "*" pcp "*" inuse "*" orphans "*) ;; *) fail "census line: '$c'" ;; esac
b=${c#buddy }
expect_ge "free pages in buddy blocks" "${b%% *}" 1000
echo 3 > /sys/module/test_page_census/parameters/plant || fail "plant 3 pages"
expect_ge "orphans with 3 planted" "$(orphans)" $((base_orphans + 3))
echo 0 > /sys/module/test_page_census/parameters/plant || fail "unplant"
no_page_lost "planted pages given back"
rmmod test_page_census || fail "rmmod test_page_census"
