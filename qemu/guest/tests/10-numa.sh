# SPDX-License-Identifier: GPL-2.0
# kscrubd is per node: the default guest has two NUMA nodes, each with
# memory and a CPU.
. /kscrub/lib.sh
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
expect_eq "NUMA nodes" "$nodes" 2
for n in /sys/devices/system/node/node[0-9]*; do
	free=$(awk '/MemFree:/ { print $4 }' "$n/meminfo")
	expect_ge "$(basename "$n") MemFree kB" "$free" 100000
	[ -n "$(cat "$n/cpulist")" ] || fail "$(basename "$n") has no CPU"
done
