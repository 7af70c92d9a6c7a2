# SPDX-License-Identifier: GPL-2.0
# make run: fault rate without and with prezeroing in one boot, then the
# scrubber's statistics.  Lines meant for the host start with KSCRUB-RUN.
. /kscrub/lib.sh
say() { echo "KSCRUB-RUN: $*"; }
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) vCPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB, TCG"
for mode in N H; do
	label=4k; [ $mode = H ] && label=THP
	say "$label faults, no prezeroing:"
	faultbench -m 256 -$mode | sed 's/^/KSCRUB-RUN:   /'
done
if modprobe kscrubd 2>/dev/null; then
	say "kscrubd loaded; waiting for the scrub pass"
	sleep 10
	for mode in N H; do
		label=4k; [ $mode = H ] && label=THP
		say "$label faults, prezeroed:"
		faultbench -m 256 -$mode | sed 's/^/KSCRUB-RUN:   /'
	done
	dmesg | grep kscrubd | sed 's/^/KSCRUB-RUN:   /'
else
	say "kscrubd.ko is not built yet (issue 5): only the baseline is shown"
fi
grep -E 'MemFree|MemZero' /proc/meminfo | sed 's/^/KSCRUB-RUN: /'
