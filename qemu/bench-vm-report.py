#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-vm's table: THP faults on reported memory, by boot and clock."""
import statistics
import sys

BOOTS = [
    ("host-zeroes", "host zeroes reported memory (host_zeroes_pages=1)"),
    ("discards", "no promise, no kscrubd"),
    ("discards-kscrubd", "no promise, kscrubd's 256 MiB reserve"),
]
STRIDES = [("2048", "one touch per 2 MiB"), ("4", "every 4 KiB touched")]


def rows(path, kind):
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if kv.get("kind") == kind and "error" not in kv:
                yield kv


def main():
    kv, out = sys.argv[1], sys.argv[2]
    runs = {}
    for r in rows(kv, "reported"):
        key = (r["boot"], r["clock"], r["stride_kib"])
        runs.setdefault(key, []).append(r)
    rss = {}
    for r in rows(kv, "rss"):
        key = (r["boot"], r["clock"], r["stride_kib"])
        rss.setdefault(key, []).append(int(r["rss_growth_kib"]))
    lines = [
        "# THP faults on memory reported to the host",
        "",
        "A 512 MiB THP run (`faultbench -H`) after idle, every time on",
        "memory that free page reporting gave to QEMU, which discarded it.",
        "2 GiB, 2 nodes, 2 vCPUs, `init_on_alloc=1`; medians of 3 runs.",
        "`wall`: TCG, wall clock (a ratio within one machine only);",
        "`icount`: TCG with `-icount shift=0`, guest time counts",
        "instructions, free of host noise but not of the host's own page",
        "faults on discarded memory, which cost no guest instructions.",
        "",
        "QEMU RSS growth: what the host backed for the run, sampled from",
        "the host every 0.5 s (the most after the run less the most",
        "before it); the run maps 512 MiB.",
        "",
        "| boot | clock | touch | faults/s | vs no promise | prezeroed | bytes cleared | QEMU RSS growth |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for stride, sdesc in STRIDES:
        for clock in ("wall", "icount"):
            base = runs.get(("discards", clock, stride))
            base_rate = (statistics.median(float(r["faults_per_wsec"]) for r in base)
                         if base else None)
            for boot, bdesc in BOOTS:
                rs = runs.get((boot, clock, stride))
                if not rs:
                    continue
                rate = statistics.median(float(r["faults_per_wsec"]) for r in rs)
                pct = statistics.median(float(r["prezeroed_pct"]) for r in rs)
                cleared = statistics.median(int(r["cleared_bytes"]) for r in rs)
                ratio = f"{rate / base_rate:.2f}x" if base_rate else "-"
                g = rss.get((boot, clock, stride))
                growth = f"{statistics.median(g) >> 10} MiB" if g else "-"
                lines.append(f"| {bdesc} | TCG {clock} | {sdesc} | {rate:,.0f} | "
                             f"{ratio} | {pct:.1f}% | {cleared >> 20} MiB | {growth} |")
    for r in rows(kv, "reportedcycle"):
        sc, d = int(r["scrubbed"]), int(r["discarded"])
        lines += [
            "",
            f"No promise, with kscrubd (TCG, wall clock): over {r['seconds']} s of",
            "idling and 512 MiB THP runs, kscrubd zeroed "
            f"{sc:,} pages and page reporting threw away {d:,} of them"
            f" ({100.0 * d / sc if sc else 0:.1f}%).",
        ]
    lines += [
        "",
        "On a real VM host (host CPU, stock host kernel; issue 29) a 2 MiB",
        "THP fault costs 48-57 us on a block just freed, 107-120 us on a",
        "cold block the host still backs, and 3.4-3.7 ms on a block the",
        "host discarded after reporting, 98.5% of it inside the guest's",
        "clear, while the host backs the memory (native, PVM host, AMD",
        "family 26).  Skipping that clear leaves the host to back only",
        "the pages the program touches.",
        "",
    ]
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
