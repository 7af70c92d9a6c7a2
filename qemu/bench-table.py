#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate KSCRUB-BENCH key=value lines: median of the repetitions."""
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
    if "faults_per_wsec" not in kv:
        continue
    key = (kv["mode"], int(kv["clines"]), kv["prezero"])
    runs[key].append(kv)

print("| pages | cache lines | prezero | faults/s (median) | spread | "
      "served prezeroed % | cleared MiB |")
print("|---|---|---|---|---|---|---|")
for key in sorted(runs):
    rs = runs[key]
    rate = [float(r["faults_per_wsec"]) for r in rs]
    pct = statistics.median(float(r.get("prezeroed_pct", -1)) for r in rs)
    clr = statistics.median(float(r.get("cleared_bytes", -1)) for r in rs)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {statistics.median(rate):.0f} "
          f"| {min(rate):.0f}-{max(rate):.0f} | {pct:.1f} | {clr / 2**20:.0f} |")
