#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress (host side): one guest boot that runs qemu/guest/stress.sh
# for DURATION seconds: stress-ng's memory stressors with --verify while
# kscrubd (verify mode) and bte_zero with fault injection come and go.
# One line per check, then "N passed, N failed".  Fails on a stressor
# failure, a page served prezeroed that is not zero, a module cycle that
# failed, a kernel splat on the console (the same patterns as
# qemu/test.sh) or a guest that did not finish in DURATION + 600 s.
#
# usage: stress.sh [DURATION]  (seconds, default 300)
# env:   KDIR, INITRD (as built by the Makefile), and run-guest.sh's
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${KSCRUB_OUT:-$top/qemu/out}
dur=${1:-300}
log=$out/stress-console.log
mkdir -p "$out"
pass=0
failn=0

result() {	# result NAME PASS|FAIL [why]
	printf '%-52s %s%s\n' "$1" "$2" "${3:+  ($3)}"
	if [ "$2" = PASS ]; then pass=$((pass + 1)); else failn=$((failn + 1)); fi
}

[[ "$dur" =~ ^[0-9]+$ ]] || { echo "stress.sh: DURATION=$dur: want seconds" >&2; exit 2; }
echo "stress: $dur s of stress in the guest, console in $log"
# Boot, module loading and the end of the last stressors take a few
# minutes under TCG on a busy host
if KSCRUB_TIMEOUT=${KSCRUB_TIMEOUT:-$((dur + 600))} \
	bash "$top/qemu/run-guest.sh" stress "$log" "kscrub.duration=$dur" ${KSCRUB_CMDLINE:-}; then
	result stress/boot-and-finish PASS
else
	result stress/boot-and-finish FAIL "see $log"
fi

# The guest's own verdicts, with its output for failures
while IFS= read -r line; do
	set -- ${line#KSCRUB-TEST: }
	case $2 in
	PASS) result "$1" PASS ;;
	SKIP) printf '%-52s SKIP\n' "$1" ;;
	*)
		result "$1" FAIL
		name=${1#stress/}
		grep -a "^$name: " "$log" | tail -n 15 | sed 's/^/    /'
		;;
	esac
done < <(grep -a '^KSCRUB-TEST: ' "$log" 2>/dev/null | tr -d '\r')

# The guest's own checks came as KSCRUB-TEST lines; its summary must be there
summary=$(grep -a '^KSCRUB-STRESS: ' "$log" 2>/dev/null | tail -n1 | tr -d '\r')
if [ -n "$summary" ]; then
	result stress/summary PASS "${summary#KSCRUB-STRESS: }"
else
	result stress/summary FAIL "no KSCRUB-STRESS line"
fi

splat_re='BUG:|WARNING:|Oops|[Bb]ad page|Call Trace|KASAN|UBSAN|Kernel panic'
splat=$(grep -anE "$splat_re" "$log" 2>/dev/null | head -n 5)
if [ -n "$splat" ]; then
	result stress/no-kernel-splat FAIL
	echo "$splat" | sed 's/^/    /'
else
	result stress/no-kernel-splat PASS
fi

echo "$pass passed, $failn failed"
[ $failn = 0 ]
