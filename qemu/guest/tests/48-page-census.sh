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
# (busybox awk has no ^)
pti=$(awk '$5 == "type" && $1 == "Node" {
		n = 1
		for (o = 0; 7 + o <= NF; o++) {
			v = $(7 + o)
			sub(/^>/, "", v)
			s += v * n
			n *= 2
		}
	} END { printf "%d\n", s }' /proc/pagetypeinfo)
bud=$(awk '$1 == "Node" {
		n = 1
		for (o = 0; 5 + o <= NF; o++) {
			s += $(5 + o) * n
			n *= 2
		}
	} END { printf "%d\n", s }' /proc/buddyinfo)
echo "free pages: pagetypeinfo $pti, buddyinfo $bud"
expect_ge "pagetypeinfo's free pages, % of buddyinfo's" $((pti * 100 / bud)) 98
expect_ge "buddyinfo's free pages, % of pagetypeinfo's" $((bud * 100 / pti)) 98
echo 3 > /sys/module/test_page_census/parameters/plant || fail "plant 3 pages"
expect_ge "orphans with 3 planted" "$(orphans)" $((base_orphans + 3))
echo 0 > /sys/module/test_page_census/parameters/plant || fail "unplant"
no_page_lost "planted pages given back"
rmmod test_page_census || fail "rmmod test_page_census"
