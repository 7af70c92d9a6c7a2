#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Reproduce the "Oops: int3" that static-key patching hits under QEMU's
# multi-threaded TCG, and show that single-threaded TCG does not: boot the
# test kernel BOOTS times in each mode and run only the control test
# (25-jump-label-race: flip a key while the other vCPU runs its site;
# nothing of the prezeroing series is involved).  Writes
# userspace/results/jump-label-tcg.md.
#
# usage: jump-label-evidence.sh [BOOTS] [FLIPS]   (KDIR, INITRD as make)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${KSCRUB_OUT:-$top/qemu/out}
boots=${1:-3}
flips=${2:-2000}
res=$top/userspace/results/jump-label-tcg.md
qemu=$(qemu-system-x86_64 --version | head -n1)
mkdir -p "$out"

{
	echo "# Static-key flips under QEMU TCG (TCG, not native)"
	echo
	echo "\`qemu/jump-label-evidence.sh $boots $flips\`, $(date -u +%Y-%m-%d), $qemu,"
	echo "2 vCPUs, test kernel (CONFIG_JUMP_LABEL=y).  Each boot loads"
	echo "\`jump_label_race\` with its own key, then with the stock"
	echo "\`init_on_alloc\` key, $flips enable/disable pairs each."
	echo
	echo "| TCG | boot | result | first report |"
	echo "|---|---:|---|---|"
} > "$res"

for mode in multi single; do
	crashed=0
	for b in $(seq 1 "$boots"); do
		log=$out/jlr-$mode-$b.log
		KSCRUB_TCG_THREAD=$mode KSCRUB_TIMEOUT=600 \
			bash "$top/qemu/run-guest.sh" test "$log" \
			kscrub.only=25-jump-label-race kscrub.jlr_flips="$flips" \
			> /dev/null 2>&1
		rep=$(grep -aE 'Oops|BUG:|RIP:' "$log" | head -n2 | tr -d '\r' |
			sed 's/^\[[ 0-9.]*\] //' | paste -sd ';' -)
		if grep -aq 'KSCRUB-TEST: 25-jump-label-race PASS' "$log" &&
		   [ -z "$rep" ]; then
			r=pass
		else
			r=crash; crashed=$((crashed + 1))
		fi
		echo "| $mode | $b | $r | ${rep:--} |" >> "$res"
		echo "jump-label-evidence: tcg=$mode boot $b: $r ${rep}"
	done
	echo "jump-label-evidence: tcg=$mode: $crashed of $boots boots crashed"
	echo "$mode $crashed" >> "$out/jlr-summary.$$"
done
{
	echo
	while read -r mode n; do
		echo "- $mode-threaded TCG: $n of $boots boots crashed"
	done < "$out/jlr-summary.$$"
} >> "$res"
rm -f "$out/jlr-summary.$$"
echo "jump-label-evidence: wrote $res"
