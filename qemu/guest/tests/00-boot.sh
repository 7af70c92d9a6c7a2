# SPDX-License-Identifier: GPL-2.0
# The guest booted the kernel we built, with the topology we asked for.
. /kscrub/lib.sh
expect_eq "kernel release" "$(uname -r)" "$(kver)"
expect_eq "online cpus" "$(grep -c ^processor /proc/cpuinfo)" "$(cat /sys/devices/system/cpu/online | awk -F- '{ print $NF + 1 }')"
grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled ||
	fail "THP is not 'always' by default (Debian's setting)"
echo "ok: THP always"
grep -q '^MemFree:' /proc/meminfo || fail "no MemFree in /proc/meminfo"
expect_ge "vmstat pgfault" "$(vmstat pgfault)" 1
