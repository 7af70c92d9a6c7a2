# SPDX-License-Identifier: GPL-2.0
# make run: the single-thread fault rate without and with prezeroing in one
# boot, their ratio, and kscrubd's statistics from dmesg.  Lines meant for
# the host start with KSCRUB-RUN.
. /kscrub/lib.sh
say() { echo "KSCRUB-RUN: $*"; }
# rate MODE: median faults per second of three 256 MiB runs; the last
# run's key=value line goes to /tmp/rate.out (this runs in a subshell)
rate() {
	local i r=
	for i in 1 2 3; do
		out=$(faultbench -m 256 -$1 -k) || fail "faultbench -$1: $out"
		r="$r $(kv faults_per_wsec)"
	done
	echo "$out" > /tmp/rate.out
	echo $r | tr ' ' '\n' | sort -n | sed -n 2p
}
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) vCPUs, $(($(meminfo MemTotal) / 1024)) MiB, TCG (timings are ratios within this boot)"
for mode in N H; do
	eval "base_$mode=\$(rate $mode)"
done
dmesg -c > /dev/null
load_kscrubd noverify
say "kscrubd loaded: MemZero $(meminfo MemZero) kB of $(meminfo MemFree) kB free"
for mode in N H; do
	eval "pz_$mode=\$(rate $mode)"
	out=$(cat /tmp/rate.out)
	eval "pct_$mode=\$(kv prezeroed_pct)"
	eval "clp_$mode=\$(kv pgalloc_cleared)"
done
for mode in N H; do
	label="4 KiB"; [ $mode = H ] && label="2 MiB THP"
	eval "b=\$base_$mode p=\$pz_$mode pct=\$pct_$mode c=\$clp_$mode"
	say "$(printf '%-10s faults/s without %10s  with %10s  ratio %sx  (served prezeroed %s%%, pages still cleared %s)' \
		"$label" "$b" "$p" "$(awk -v a="$p" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" "$pct" "$c")"
done
sleep 1
say "dmesg:"
dmesg | grep kscrubd | sed 's/^/KSCRUB-RUN:   /'
say "/sys/kernel/debug/kscrubd/stats:"
sed 's/^/KSCRUB-RUN:   /' /sys/kernel/debug/kscrubd/stats
rmmod kscrubd
dmesg | grep 'unload' | sed 's/^/KSCRUB-RUN:   /'
