# SPDX-License-Identifier: GPL-2.0
# 50 insmod/rmmod cycles while other processes fault memory in and out:
# no splat (the host scans the console) and no page lost.
. /kscrub/lib.sh
unload_kscrubd
# MemFree does not count the per-cpu lists: compare after a drain
drain_pcp
page_baseline
( while [ ! -e /tmp/stop-churn ]; do faultbench -m 64 -N > /dev/null; done ) &
churn=$!
i=0
while [ $i -lt 50 ]; do
	modprobe kscrubd || fail "cycle $i: modprobe kscrubd"
	sleep 0.$((i % 5))
	rmmod kscrubd || fail "cycle $i: rmmod kscrubd"
	i=$((i + 1))
done
touch /tmp/stop-churn
wait $churn
rm -f /tmp/stop-churn
drain_pcp
expect_eq "insmod/rmmod cycles" "$i" 50
no_page_lost "50 cycles"
