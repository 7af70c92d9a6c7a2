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

# /proc/pagetypeinfo walks the free lists, the zeroed ones too
# (for_each_free_list()), while /proc/buddyinfo reads the counters: the
# two agree.  In the init_on_free=1 boot nearly every free block is on a
# zeroed list, and a walker that missed them would show a few pages.
# Both in kB (busybox awk has no ^)
pti=$(awk '$5 == "type" && $1 == "Node" {
		kb = 4
		for (o = 0; 7 + o <= NF; o++) {
			v = $(7 + o)
			sub(/^>/, "", v)
			s += v * kb
			kb *= 2
		}
	} END { printf "%d\n", s }' /proc/pagetypeinfo)
bud=$(free_kb_from_order 0)
echo "free kB: pagetypeinfo $pti, buddyinfo $bud"
expect_ge "pagetypeinfo's free memory, % of buddyinfo's" $((pti * 100 / bud)) 98
expect_ge "buddyinfo's free memory, % of pagetypeinfo's" $((bud * 100 / pti)) 98
echo 3 > /sys/module/test_page_census/parameters/plant || fail "plant 3 pages"
expect_ge "orphans with 3 planted" "$(orphans)" $((base_orphans + 3))
echo 0 > /sys/module/test_page_census/parameters/plant || fail "unplant"
no_page_lost "planted pages given back"
rmmod test_page_census || fail "rmmod test_page_census"
