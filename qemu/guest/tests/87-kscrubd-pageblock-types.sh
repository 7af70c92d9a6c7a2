# SPDX-License-Identifier: GPL-2.0
# kscrubd leaves pageblocks the migratetype they have (issue 15 item 7).
# scrubd_rmpage() used to take blocks out through __isolate_free_page(),
# which claims the pageblocks of any block of pageblock_order - 1 or more
# for MOVABLE, so every pass turned the free unmovable pageblocks movable
# and the next large unmovable allocations had to steal again.
#
# Runs late: it leaves 64 MiB of free Unmovable pageblocks behind, which
# movable allocations leave alone while they have their own, so a test
# that dirties free memory by faulting (64-kscrubd-hysteresis) could no
# longer dirty all of it.
. /kscrub/lib.sh
init_on_free && skip_test "init_on_free=1: every free page is zero, kscrubd takes none"
unload_kscrubd

# unmovable: pageblocks of type Unmovable, summed over all zones
unmovable() {
	awk '/^Number of blocks type/ { on = 1; next }
	     on && $1 == "Node" { s += $5; next }
	     { on = 0 }
	     END { print s + 0 }' /proc/pagetypeinfo
}

u0=$(unmovable)
dmesg -c > /dev/null
modprobe test_unmovable_blocks blocks=32 || fail "modprobe test_unmovable_blocks"
rmmod test_unmovable_blocks || fail "rmmod test_unmovable_blocks"
n=$(dmesg | sed -n 's/.*allocated and freed \([0-9]*\) unmovable.*/\1/p')
u1=$(unmovable)
echo "unmovable pageblocks: $u0 before, $u1 with ${n:-?} unmovable blocks freed"
# Each freed block leaves a free Unmovable pageblock (one taken from a
# movable pageblock, or one that was free already).  Fewer than 16 and
# the check below could not tell a claim from noise.
expect_ge "free unmovable pageblocks left" "${n:-0}" 16

# load_kscrubd waits until at most 4 MiB (plus the highatomic reserve) is
# left not zeroed: the 64 MiB in unmovable pageblocks were taken too
load_kscrubd
u2=$(unmovable)
echo "unmovable pageblocks after a scrub pass: $u2"
expect_ge "unmovable pageblocks after a scrub pass" $u2 $((u1 - 2))
expect_eq "verify: non-zero prezeroed pages" "$(kstat verify_bad)" 0
rmmod kscrubd || fail "rmmod kscrubd"
