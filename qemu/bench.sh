#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench (host side): boot once, collect the guest's KSCRUB-BENCH
# lines and write the median fault rates as a markdown table.  Timings
# come from TCG: compare them only as ratios within this one boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/qemu/out
res=$top/userspace/results
mkdir -p "$out" "$res"
KSCRUB_TIMEOUT=${KSCRUB_TIMEOUT:-1700} bash "$top/qemu/run-guest.sh" bench "$out/bench-console.log"
grep -a '^KSCRUB-BENCH: ' "$out/bench-console.log" | tr -d '\r' | sed 's/^KSCRUB-BENCH: //' > "$out/bench.kv"
python3 "$top/qemu/bench-table.py" "$out/bench.kv" | tee "$res/faults.md"
