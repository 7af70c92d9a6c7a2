#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-vm: THP faults on memory that free page reporting gave to the
# host (QEMU's virtio-balloon, free-page-reporting=on; QEMU discards it),
# after idle.  One boot each: the host declared to zero reported memory
# (virtio_balloon.host_zeroes_pages=1), no promise, and no promise with
# kscrubd's reserve; by TCG's wall clock and with -icount (instructions).
# Writes userspace/results/vm-reporting.md.  Also run by make bench.
# KSCRUB_VM_BOOTS="NAME:CLOCK ..." runs only those boots and keeps the
# other boots' results from the last run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${KSCRUB_OUT:-$top/qemu/out}
res=$top/userspace/results
kv=$out/bench-vm.kv
mkdir -p "$out" "$res"
boots=${KSCRUB_VM_BOOTS:-host-zeroes:wall discards:wall host-zeroes:icount \
	discards:icount discards-kscrubd:wall}
if [ -n "${KSCRUB_VM_BOOTS:-}" ] && [ -f "$kv" ]; then
	for b in $boots; do
		sed -i "/^boot=${b%:*} clock=${b#*:} /d" "$kv"
	done
else
	: > "$kv"
fi
dev="-device virtio-balloon-pci,free-page-reporting=on"

# rss_sampler LOG: QEMU's resident memory every half second, filed under
# the guest's last KSCRUB-MARK line, until QEMU exits.  One guest runs at
# a time (run-guest.sh's lock), so the newest QEMU is this boot's.
rss_sampler() {
	local log=$1 pid='' mark rss tries=300
	while [ -z "$pid" ]; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 0
		sleep 0.2
		pid=$(pgrep -n -x qemu-system-x86) || pid=
	done
	while rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2> /dev/null) &&
		[ -n "$rss" ]; do
		# no mark yet is no error (set -e and pipefail hold here too)
		mark=$(grep -a '^KSCRUB-MARK: ' "$log" 2> /dev/null | tail -n1 | tr -d '\r') ||
			mark=
		[ -z "$mark" ] || echo "${mark#KSCRUB-MARK: } rss_kib=$rss"
		sleep 0.5
	done
}

boot() {	# boot NAME CLOCK kernel-args...
	local name=$1 clock=$2 icount='' t0=$SECONDS
	shift 2
	[ "$clock" = icount ] && icount=0
	echo "bench-vm: $name ($clock)" >&2
	rm -f "$out/bench-vm-$name-$clock.log"
	rss_sampler "$out/bench-vm-$name-$clock.log" > "$out/bench-vm-$name-$clock.rss" &
	KSCRUB_ICOUNT=$icount KSCRUB_QEMU_ARGS="${KSCRUB_QEMU_ARGS:-} $dev" \
		KSCRUB_TIMEOUT=${KSCRUB_TIMEOUT:-1500} \
		bash "$top/qemu/run-guest.sh" bench "$out/bench-vm-$name-$clock.log" "$@"
	grep -a '^KSCRUB-BENCH: ' "$out/bench-vm-$name-$clock.log" | tr -d '\r' |
		sed "s/^KSCRUB-BENCH: /boot=$name clock=$clock /" >> "$kv"
	wait
	# QEMU's growth over a run: the most it held from the run's mark on,
	# less what it held at the mark (the guest had idled, so reporting
	# had given the last run's memory back).  Reporting gives this run's
	# back 2 s after it ends at the soonest, after the peak is sampled.
	awk -v b="$name" -v c="$clock" '
		{ k = $1 " " $2; v = substr($4, 9) + 0
		  if (!(k in base)) base[k] = v
		  if (v > peak[k]) peak[k] = v }
		END { for (k in peak)
			print "boot=" b " clock=" c " kind=rss " k " rss_growth_kib=" peak[k] - base[k] }' \
		"$out/bench-vm-$name-$clock.rss" >> "$kv"
	echo "bench-vm: $name ($clock) took $((SECONDS - t0)) s" >&2
}

for b in $boots; do
	case ${b%:*} in
	host-zeroes) args="kscrub.bench=reported virtio_balloon.host_zeroes_pages=1" ;;
	discards) args="kscrub.bench=reported" ;;
	discards-kscrubd) args="kscrub.bench=reported-kscrubd" ;;
	*) echo "bench-vm: unknown boot $b" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2086 # split on purpose
	boot "${b%:*}" "${b#*:}" $args
done

python3 "$top/qemu/bench-vm-report.py" "$kv" "$res/vm-reporting.md"
