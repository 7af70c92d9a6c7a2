#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench report: KSCRUB-BENCH key=value lines -> markdown and PNGs.

usage: bench-report.py BENCH.KV RESULTS_DIR

Every in-guest time comes from QEMU TCG, which does not model caches or
timing: only ratios within one boot mean something.  Counters (pages
served prezeroed, bytes cleared on the fault path) are exact.
"""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

# The seed's cover letter (2x PIII-450, 2.6.10-bk7, 256 MiB per run)
SEED = {
    (1, "off"): 157070.694, (2, "off"): 190350.885,
    (1, "on"): 664045.899, (2, "on"): 741857.373,
}
SEED_CLINES = [(1, 497925.891), (2, 472877.725), (4, 471507.415),
               (8, 416725.013), (16, 336983.834), (32, 256246.731),
               (64, 168189.283), (128, 101674.435)]


def load(path):
    rows = []
    for line in open(path):
        kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
        rows.append(kv)
    return rows


def cleared_mib(runs):
    """Median MiB cleared on the fault path, or "-" where the kernel kept
    no count: pgalloc_cleared counts only once a scrubber has registered
    (hook patch 6), so runs before kscrubd's first load show 0 of both."""
    if runs and all(int(r["cleared_bytes"]) == 0 and
                    float(r["prezeroed_pct"]) == 0 for r in runs):
        return "-"
    return f"{med([float(r['cleared_bytes']) for r in runs]) / 2**20:.0f}"


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def mode_of(r):
    """4k, thp (a touch every 4 KiB), thp-fault (one touch per THP) or cow
    (copy-on-write faults on a private file mapping, 4 KiB)"""
    if r.get("source") == "file":
        return "cow"
    if r["mode"] == "thp" and r.get("stride_kib") == "2048":
        return "thp-fault"
    return r["mode"]


def faults(rows, boot="full"):
    """(mode, threads, clines, prezero) -> list of runs"""
    g = defaultdict(list)
    for r in rows:
        if r.get("boot") == boot and r.get("kind") == "fault" and "faults_per_wsec" in r:
            g[(mode_of(r), int(r["threads"]), int(r["clines"]), r["prezero"])].append(r)
    return g


def rate(runs, key="faults_per_wsec"):
    return med([float(r[key]) for r in runs])


def spread(runs):
    v = [float(r["faults_per_wsec"]) for r in runs]
    return f"{min(v):.0f}-{max(v):.0f}" if v else "-"


def env_line(rows):
    for r in rows:
        if r.get("kind") == "env":
            return (f"QEMU TCG, {r['cpus']} vCPUs, {r['mem_mib']} MiB, "
                    f"{r['nodes']} NUMA nodes, kernel {r.get('kernel', '?')}, "
                    "init_on_alloc=1, THP always")
    return "QEMU TCG"


def one_run_table(w, g, mode, unit, title, text):
    """A section for one workload, 1 thread, 1 line: without and with"""
    off, on = g.get((mode, 1, 1, "off"), []), g.get((mode, 1, 1, "on"), [])
    if not (off and on):
        return
    w.append(title)
    w.append(text)
    w.append(f"| without: {unit} | spread | with: {unit} | spread | ratio | served prezeroed % |")
    w.append("|---:|---|---:|---|---:|---:|")
    w.append(f"| {rate(off):.0f} | {spread(off)} | {rate(on):.0f} | {spread(on)} | "
             f"{rate(on) / rate(off):.2f} | "
             f"{med([float(r['prezeroed_pct']) for r in on]):.1f} |")
    w.append("")


def fault_tables(rows, out):
    g = faults(rows)
    w = []
    w.append("# Fault rates with and without prezeroing\n")
    w.append(f"Conditions: {env_line(rows)}.  256 MiB per run, median of 3 runs "
             "(spread is min-max).  \"with\" means kscrubd loaded and every run "
             "started with the free memory scrubbed again.  Cleared MiB is "
             "\"-\" where the kernel kept no count (before kscrubd's first "
             "load).  TCG timings: "
             "compare only within this table.\n")
    # Seed format, side by side
    w.append("## The seed's table and ours (1 cache line per page, 4 KiB pages)\n")
    w.append("| threads | prezero | seed fault/wsec (PIII-450, 2005) | ours fault/wsec | ours flt/cpu/s | ours served prezeroed % | ours cleared MiB |")
    w.append("|---|---|---:|---:|---:|---:|---:|")
    for t in (1, 2):
        for pz in ("off", "on"):
            runs = g.get(("4k", t, 1, pz), [])
            w.append(f"| {t} | {pz} | {SEED[(t, pz)]:.0f} | {rate(runs):.0f} | "
                     f"{rate(runs, 'faults_per_cpu_s'):.0f} | "
                     f"{med([float(r['prezeroed_pct']) for r in runs]):.1f} | "
                     f"{cleared_mib(runs)} |")
    for t in (1, 2):
        a, b = rate(g.get(("4k", t, 1, "off"), [])), rate(g.get(("4k", t, 1, "on"), []))
        w.append(f"\n{t} thread(s): seed {SEED[(t, 'on')] / SEED[(t, 'off')]:.2f}x, ours {b / a:.2f}x.")
    w.append("")
    for mode, title in (("4k", "4 KiB pages (MADV_NOHUGEPAGE)"),
                        ("thp", "2 MiB THP (MADV_HUGEPAGE)")):
        w.append(f"## {title}: cache lines touched per 4 KiB, 1 thread\n")
        w.append("| cache lines | without: faults/s | spread | with: faults/s | spread | ratio | served prezeroed % | cleared MiB without / with |")
        w.append("|---:|---:|---|---:|---|---:|---:|---|")
        for c in (1, 2, 4, 8, 16, 32, 64):
            off, on = g.get((mode, 1, c, "off"), []), g.get((mode, 1, c, "on"), [])
            if not off:
                continue
            w.append(f"| {c} | {rate(off):.0f} | {spread(off)} | {rate(on):.0f} | {spread(on)} | "
                     f"{rate(on) / rate(off):.2f} | "
                     f"{med([float(r['prezeroed_pct']) for r in on]):.1f} | "
                     f"{cleared_mib(off)} / {cleared_mib(on)} |")
        w.append("")
        w.append(f"## {title}: threads, 1 cache line\n")
        w.append("| threads | without: faults/s | with: faults/s | ratio |")
        w.append("|---:|---:|---:|---:|")
        for t in (1, 2, 4):
            off, on = g.get((mode, t, 1, "off"), []), g.get((mode, t, 1, "on"), [])
            if off:
                w.append(f"| {t} | {rate(off):.0f} | {rate(on):.0f} | {rate(on) / rate(off):.2f} |")
        w.append("")
    one_run_table(w, g, "thp-fault", "pages/s",
                  "## 2 MiB THP, one touch per huge page (the fault alone), 1 thread\n",
                  "Touching one 4 KiB page per THP leaves the fault itself: allocation, "
                  "the clear (or none) and the PMD.  Under TCG every first touch of a "
                  "4 KiB page costs a soft-TLB fill, which the per-4 KiB sweep above pays "
                  "512 times per THP.\n")
    one_run_table(w, g, "cow", "faults/s",
                  "## Copy-on-write faults on a private file mapping, 4 KiB, 1 thread\n",
                  "A write to each page of a 256 MiB tmpfs file mapped MAP_PRIVATE: "
                  "the fault copies the file's page into a new one, which the copy "
                  "overwrites whole, so a prezeroed page saves only the clear that "
                  "init_on_alloc=1 does before the copy (a workload that could "
                  "lose: its prezeroed pages are spent on it).\n")
    w.append("## Every workload of this boot, without and with kscrubd\n")
    names = {"4k": "4 KiB", "thp": "THP, a touch every 4 KiB",
             "thp-fault": "THP, one touch per huge page",
             "cow": "copy-on-write, 4 KiB"}
    slower = []
    w.append("| workload | threads | cache lines per 4 KiB | ratio with / without |")
    w.append("|---|---:|---:|---:|")
    for k in sorted(k[:3] for k in g if k[3] == "off"):
        off, on = g.get(k + ("off",), []), g.get(k + ("on",), [])
        if off and on:
            x = rate(on) / rate(off)
            w.append(f"| {names[k[0]]} | {k[1]} | {k[2]} | {x:.2f} |")
            if x < 1:
                slower.append(f"{names[k[0]]}, {k[1]} thread(s), {k[2]} line(s) ({x:.2f}x)")
    w.append("")
    w.append("Slower with kscrubd loaded than without it in this boot: " +
             ("; ".join(slower) if slower else "none") + ".\n")
    w.append("The seed's cache-line table (prezeroing on, 16 KiB pages with 128-byte "
             "lines, so 128 lines is a full page; our 64 lines is a full 4 KiB page):\n")
    w.append("| seed cache lines | seed fault/wsec |")
    w.append("|---:|---:|")
    for c, v in SEED_CLINES:
        w.append(f"| {c} | {v:.0f} |")
    open(os.path.join(out, "faults.md"), "w").write("\n".join(w) + "\n")

    # Plot data
    for mode in ("4k", "thp"):
        with open(os.path.join(out, f"faults-{mode}.dat"), "w") as f:
            f.write("# clines without with\n")
            for c in (1, 2, 4, 8, 16, 32, 64):
                off, on = g.get((mode, 1, c, "off"), []), g.get((mode, 1, c, "on"), [])
                if off:
                    f.write(f"{c} {rate(off):.0f} {rate(on):.0f}\n")
    return g


def headline(g):
    lines = []
    for mode, c, label in (("4k", 1, "4 KiB"), ("4k", 64, "4 KiB, every line touched"),
                           ("cow", 1, "4 KiB, copy-on-write of a private file mapping"),
                           ("thp", 1, "2 MiB THP, a touch every 4 KiB"),
                           ("thp-fault", 1, "2 MiB THP, one touch per huge page")):
        off, on = g.get((mode, 1, c, "off"), []), g.get((mode, 1, c, "on"), [])
        if off and on:
            lines.append(f"| {label} | {rate(off):.0f} | {rate(on):.0f} | "
                         f"{rate(on) / rate(off):.2f}x | "
                         f"{med([float(r['prezeroed_pct']) for r in on]):.1f} |")
    return lines


GUESTS = {"full": "guest (TCG, qemu64)", "engines-cpumax": "guest (TCG, -cpu max)"}


def where(r):
    """native, or which guest CPU model a row was measured on"""
    if r.get("boot") == "native":
        return "native"
    return GUESTS.get(r.get("boot"), "guest (TCG)")


def clearbw_table(rows, out):
    g = defaultdict(list)
    for r in rows:
        if r.get("kind") == "clearbw" and "gbps" in r:
            g[(where(r), r["method"], int(r["extent_kib"]))].append(float(r["gbps"]))
    envs = ["native"] + list(GUESTS.values())
    w = ["# Clearing bandwidth\n",
         "GB/s (10^9 bytes/s), best of 3.  *native* is this host's CPU running "
         "userspace/clearbw directly; *guest* is the same program under QEMU TCG, "
         "which emulates the stores and models no cache: guest figures say "
         "nothing about real hardware, only how the guest's own engines compare.  "
         "The guests' CPU models are in the per-order section below.\n",
         "| where | method | 4 KiB | 2 MiB | 256 MiB | 1 GiB |", "|---|---|---:|---:|---:|---:|"]
    for env in envs:
        for m in ("memset", "rep_stosb", "rep_stosq", "sse2", "avx2", "movnti", "movntdq"):
            cells = []
            for e in (4, 2048, 262144, 1048576):
                v = g.get((env, m, e))
                cells.append(f"{max(v):.2f}" if v else "-")
            if any(c != "-" for c in cells):
                w.append(f"| {env} | {m} | " + " | ".join(cells) + " |")
    w.append("\n## kscrubd's engines in the same guest\n")
    w.append("Each engine zeroes 512 MiB freshly freed on node 0 three times, so that one "
             "kscrubd thread works while the other vCPU idles, as `memset` ran (single-"
             "threaded TCG runs both vCPUs on one host thread: two threads scrubbing at "
             "once each run at half speed by their own clocks).  MB/s is pages zeroed over "
             "the time kscrubd's threads spent in the engine (which includes time "
             "preempted at SCHED_IDLE), best round, as the figures above are best of 3.\n")
    w.append("| guest | engine | rounds | pages (all rounds) | MB/s, best round | all rounds "
             "| vs guest memset 256 MiB |")
    w.append("|---|---|---:|---:|---:|---|---:|")
    byeng = defaultdict(list)
    for r in rows:
        if r.get("kind") == "kscrubbw":
            pages, ns = int(r["pages"]), int(r["ns"])
            byeng[(where(r), r["engine"])].append((pages, pages * 4096 * 1000 / ns if ns else 0))
    for (env, eng), runs in byeng.items():
        ms = g.get((env, "memset", 262144))
        best = max(m for _, m in runs)
        rel = f"{best / (max(ms) * 1000) * 100:.0f}%" if ms else "-"
        w.append(f"| {env} | {eng} | {len(runs)} | {sum(p for p, _ in runs)} | {best:.0f} | "
                 + " ".join(f"{m:.0f}" for _, m in runs) + f" | {rel} |")
    w += engine_order_table(rows, g)
    w += bte_table(rows)
    open(os.path.join(out, "clearbw.md"), "w").write("\n".join(w) + "\n")


def engine_order_table(rows, g):
    """What vm.scrub_engine=auto measured and picked per block order"""
    w = ["\n## The engine per block order (vm.scrub_engine=auto)\n",
         "At insmod, auto times each CPU engine on 32 MiB in blocks of each order and "
         "keeps `nt` unless another engine is more than 5% faster (it also leaves the "
         "cache alone, which a timing loop cannot credit).  *memset* is userspace "
         "clearbw in blocks of the same size in the same boot, before insmod, best of "
         "3; *pick / memset* compares the picked engine with it.  TCG: these rank the "
         "guest's own engines, they say nothing about a real CPU.\n"]
    found = False
    for boot, env in GUESTS.items():
        picks = {int(r["order"]): r for r in rows
                 if r.get("boot") == boot and r.get("kind") == "enginepick"}
        if not picks:
            continue
        found = True
        cpu = next((r for r in rows if r.get("boot") == boot and r.get("kind") == "cpu"), {})
        flags = ", ".join(f"{f} {'yes' if cpu.get(f) == '1' else 'no'}"
                          for f in ("rep_good", "erms", "fsrm"))
        w.append(f"### {env}: {cpu.get('model', '?').replace('_', ' ').strip()} ({flags})\n")
        w.append("| order | block | clear MB/s | nt MB/s | extent MB/s | auto picks | "
                 "memset MB/s | pick / memset |")
        w.append("|---:|---:|---:|---:|---:|---|---:|---:|")
        for o in sorted(picks):
            r = picks[o]
            kib = 4 << o
            ms = g.get((env, "memset", kib))
            ms = max(ms) * 1000 if ms else None
            pick = r["auto"]
            pv = int(r.get(f"{pick}_mbps", 0))
            blk = f"{kib} KiB" if kib < 1024 else f"{kib // 1024} MiB"
            w.append(f"| {o} | {blk} | {r.get('clear_mbps', '-')} | {r.get('nt_mbps', '-')} | "
                     f"{r.get('extent_mbps', '-')} | {pick} | "
                     f"{f'{ms:.0f}' if ms else '-'} | "
                     f"{f'{pv / ms * 100:.0f}%' if ms and pv else '-'} |")
        w.append("")
    return w if found else []


def bte_table(rows):
    """bte_zero through kscrubd's wait, per block size (debugfs driver_bench)"""
    bte = [r for r in rows if r.get("kind") == "bte" and "mbps" in r]
    if not bte:
        return []
    w = ["\n## bte_zero, per block size\n",
         "The emulated SGI Altix BTE (an hrtimer keeps each transfer to its "
         "length over the declared rate) driven through kscrubd's own wait: "
         "256 blocks of each size, one at a time, scrubbing paused.  When kscrubd "
         "polled the driver once a tick, 64 KiB blocks made 7 MB/s.\n",
         "| guest | block | MB/s | declared MB/s | % of declared |",
         "|---|---:|---:|---:|---:|"]
    for r in sorted(bte, key=lambda r: (where(r), int(r["bytes"]))):
        decl = int(r["declared_bps"]) / 1e6
        mbps = int(r["mbps"])
        w.append(f"| {where(r)} | {int(r['bytes']) // 1024} KiB | {mbps} | {decl:.0f} | "
                 f"{mbps / decl * 100:.0f}% |")
    return w


def other_tables(rows, out):
    w = ["# Interference, time to scrub, cost when idle\n"]
    cl = defaultdict(list)
    for r in rows:
        if r.get("kind") == "cpuloop":
            cl[r["state"]].append(r)
    if cl.get("absent"):
        w.append("## A CPU-bound loop on every vCPU (cpuloop, 3 s per run)\n")
        w.append("Runs in this order in one boot: absent (before insmod), idle, "
                 "scrubbing (1 GiB of dirty memory just freed), idle, absent (after "
                 "rmmod); the mean per state.\n")
        w.append("| kscrubd | runs | iterations/s | vs absent | pages scrubbed meanwhile |")
        w.append("|---|---:|---:|---:|---:|")
        base = statistics.mean(float(r["iters_per_s"]) for r in cl["absent"])
        for st in ("absent", "idle", "scrubbing"):
            if cl.get(st):
                v = statistics.mean(float(r["iters_per_s"]) for r in cl[st])
                sp = sum(int(r["scrubbed_pages"]) for r in cl[st])
                w.append(f"| {st} | {len(cl[st])} | {v:.0f} | {v / base * 100:.1f}% | {sp} |")
        w.append("")
    st = [r for r in rows if r.get("kind") == "scrubtime"]
    if st:
        w.append("## Time to zero all free memory after insmod (until 90% of it is zeroed and < 4 MiB is left)\n")
        w.append("| guest memory | nodes | seconds | MemZero MiB | GB/s |")
        w.append("|---:|---:|---:|---:|---:|")
        for r in sorted(st, key=lambda r: (int(r["mem_mib"]), int(r["nodes"]))):
            s = float(r["seconds"])
            z = int(r["memzero_kib"]) / 1024
            w.append(f"| {r['mem_mib']} MiB | {r['nodes']} | {s:.1f} | {z:.0f} | {z * 2**20 / s / 1e9:.2f} |")
        w.append("")
    idle = defaultdict(list)
    for r in rows:
        clock, _, kernel = r.get("boot", "").partition("-")
        if r.get("kind") == "fault" and clock in ("wall", "icount"):
            idle[(clock, kernel, mode_of(r))].append(float(r["faults_per_wsec"]))
    if idle:
        w.append("## Cost with no scrubber: patched vs unpatched kernel, 1 thread, 1 cache line\n")
        w.append("Separate boots of the same TCG guest, alternating, 7 runs per boot, both kernels "
                 "with CONFIG_JUMP_LABEL as Debian builds them.  *wall* boots time with the host's "
                 "clock, so boot-to-boot noise is in the ratio; *icount* boots run QEMU with "
                 "`-icount shift=0`, where the guest clock counts instructions (1 ns each): their "
                 "faults/s is 10^9 / instructions per fault, what is left of the variation comes "
                 "from the allocator's state, and *best* is the run with the fewest instructions.  "
                 "The patched THP figure includes patch 1 (the upstream fix that clears a THP "
                 "once instead of twice under init_on_alloc=1).\n")
        w.append("| clock | pages | unpatched faults/s | spread | patched faults/s | spread | "
                 "patched/unpatched median | best |")
        w.append("|---|---|---:|---|---:|---|---:|---:|")
        for clock in ("wall", "icount"):
            for mode in ("4k", "thp", "thp-fault"):
                u = idle.get((clock, "unpatched", mode), [])
                p = idle.get((clock, "patched", mode), [])
                if u and p:
                    w.append(f"| {clock} | {mode} | {med(u):.0f} | "
                             f"{min(u):.0f}-{max(u):.0f} | {med(p):.0f} | {min(p):.0f}-{max(p):.0f} | "
                             f"{med(p) / med(u):.3f} | {max(p) / max(u):.3f} |")
    open(os.path.join(out, "other.md"), "w").write("\n".join(w) + "\n")


STEADY_FROM = 11     # churn reps before this one are the warm-up


def churn_table(rows, out):
    """Steady map/touch/unmap churn: share served prezeroed per boot"""
    ch = defaultdict(list)
    for r in rows:
        if r.get("kind") == "churn" and "pgalloc_prezeroed" in r:
            ch[(r["boot"], r["state"])].append(r)
    if not ch:
        return
    w = ["# Steady churn: map, touch (1 line per 4 KiB) and unmap 128 MiB in a loop on vCPU 0 (TCG)\n",
         f"The other vCPU idles.  Steady state: reps {STEADY_FROM} and later; the share counts every "
         "order-0 zeroing allocation of the boot during the rep (pgalloc_prezeroed / (prezeroed + "
         "cleared)).  With two nodes, kscrubd0 belongs to the loop's node and vCPU 0; when the loop starves it there, its starvation watch lets it run on vCPU 1 (the `widened` count below).\n",
         "| boot | kscrubd | reps | steady % served prezeroed | min % | faults/s (median) | MemZero MiB (min) |",
         "|---|---|---:|---:|---:|---:|---:|"]
    dat = open(os.path.join(out, "churn.dat"), "w")
    for (boot, state), rs in sorted(ch.items()):
        rs.sort(key=lambda r: int(r["rep"]))
        st = [r for r in rs if int(r["rep"]) >= STEADY_FROM] or rs
        p = sum(int(r["pgalloc_prezeroed"]) for r in st)
        c = sum(int(r["pgalloc_cleared"]) for r in st)
        share = p / max(p + c, 1) * 100
        w.append(f"| {boot} | {state} | {len(rs)} | {share:.1f} | "
                 f"{min(float(r['prezeroed_pct']) for r in st):.1f} | "
                 f"{med([float(r['faults_per_wsec']) for r in st]):.0f} | "
                 f"{min(int(r['memzero_kib']) for r in st) / 1024:.0f} |")
        if state == "loaded":
            dat.write(f"# {boot}\n")
            for r in rs:
                dat.write(f"{r['rep']} {r['prezeroed_pct']} "
                          f"{int(r['memzero_kib']) / 1024:.0f} {r['t']}\n")
            dat.write("\n\n")
    dat.close()
    for r in rows:
        if r.get("kind") == "churnstats":
            w.append(f"\n{r['boot']}: {r['wakeups']} wake-ups, {r['passes']} passes, "
                     f"{r.get('pcp_drained', '?')} pages drained from per-cpu lists, "
                     f"{r.get('pcp_looks', '?')} timer looks at them, "
                     f"{r.get('widened', '?')} times let off its node's busy CPUs.")
    open(os.path.join(out, "churn.md"), "w").write("\n".join(w) + "\n")


FRAG_KEYS = ("thp_fault_alloc", "thp_fault_fallback", "compact_stall",
             "compact_fail", "compact_success", "compact_migrate_scanned",
             "compact_free_scanned", "pgalloc_prezeroed", "pgalloc_cleared")


def frag_table(rows, out):
    """Fragmentation after a long mixed churn, without and with kscrubd"""
    ends = {r["state"]: r for r in rows
            if r.get("kind") == "frag" and r.get("at") == "end"}
    starts = {r["state"]: r for r in rows
              if r.get("kind") == "frag" and r.get("at") == "start"}
    if not ends:
        return
    states = [s for s in ("absent", "loaded") if s in ends]
    rounds = ends[states[0]].get("rounds", "?")
    w = ["# Fragmentation after a long mixed churn (TCG, 1 GiB, one node)\n",
         f"A fresh boot per column, {rounds} rounds: a 4 MiB ramfs file written (page cache that "
         "cannot move) and, past 176 files (704 MiB), the oldest removed; 96 MiB of 4 KiB pages mapped, "
         "touched and unmapped; 64 MiB of THP faulted in, one touch each.  Counters are the "
         "difference over the churn; the rest is read at its end.  The unusable free space "
         "index for a THP is debugfs extfrag's (0: all free memory is in blocks of a THP or "
         "larger; 1: none is).\n",
         "| | " + " | ".join(f"kscrubd {s}" for s in states) + " |",
         "|---|" + "---:|" * len(states)]

    def diff(s, k):
        try:
            return int(ends[s][k]) - int(starts[s][k])
        except (KeyError, ValueError):
            return "?"

    for k in FRAG_KEYS:
        w.append(f"| {k} | " + " | ".join(str(diff(s, k)) for s in states) + " |")
    w.append("| THP faults that fell back, % | " + " | ".join(
        f"{100 * diff(s, 'thp_fault_fallback') / max(diff(s, 'thp_fault_alloc') + diff(s, 'thp_fault_fallback'), 1):.1f}"
        if diff(s, "thp_fault_alloc") != "?" else "?" for s in states) + " |")
    for k in ("unusable_index_thp", "free_kb_thp", "memzero_kib", "blocks_unmovable",
              "blocks_movable", "blocks_reclaimable", "blocks_highatomic"):
        w.append(f"| {k} at the end | " + " | ".join(ends[s].get(k, "?") for s in states) + " |")
    open(os.path.join(out, "frag.md"), "w").write("\n".join(w) + "\n")


def plots(out):
    script = f"""
set terminal png size 800,500
set logscale x 2
set xlabel "64-byte cache lines written per 4 KiB page"
set ylabel "4 KiB pages faulted in per second (TCG)"
set key top right
set grid
set output "{out}/faults-4k.png"
set title "4 KiB anonymous faults, 1 thread: without and with prezeroing"
plot "{out}/faults-4k.dat" using 1:2 with linespoints title "without", \\
     "" using 1:3 with linespoints title "with kscrubd"
set output "{out}/faults-thp.png"
set title "2 MiB THP faults, 1 thread: without and with prezeroing"
set ylabel "4 KiB pages faulted in per second (TCG)"
plot "{out}/faults-thp.dat" using 1:2 with linespoints title "without", \\
     "" using 1:3 with linespoints title "with kscrubd"
"""
    if os.path.exists(f"{out}/churn.dat"):
        script += f"""
unset logscale x
set output "{out}/churn.png"
set title "Steady 128 MiB map/touch/unmap churn on one vCPU, kscrubd loaded (TCG)"
set xlabel "rep"
set ylabel "% of faults served prezeroed"
set yrange [0:100]
set key bottom right
plot "{out}/churn.dat" index 0 using 1:2 with linespoints title "1 node", \\
     "" index 1 using 1:2 with linespoints title "2 nodes"
set output "{out}/churn-memzero.png"
set title "MemZero during the same churn, after each rep (TCG)"
set xlabel "seconds since the first rep with kscrubd loaded"
set ylabel "MemZero, MiB"
set autoscale y
set yrange [0:*]
set key top right
plot "{out}/churn.dat" index 0 using 4:3 with linespoints title "1 node", \\
     "" index 1 using 4:3 with linespoints title "2 nodes"
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: no plots: {e}", file=sys.stderr)


def main():
    rows = load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    g = fault_tables(rows, out)
    clearbw_table(rows, out)
    other_tables(rows, out)
    churn_table(rows, out)
    frag_table(rows, out)
    plots(out)
    head = ["| pages | without prezeroing: faults/s | with: faults/s | ratio | served prezeroed % |",
            "|---|---:|---:|---:|---:|"] + headline(g)
    open(os.path.join(out, "headline.md"), "w").write(
        f"Single thread, 1 cache line per 4 KiB page unless said, 256 MiB, same boot; {env_line(rows)}.\n\n"
        + "\n".join(head) + "\n")
    for f in ("headline.md", "faults.md", "clearbw.md", "other.md", "churn.md", "frag.md"):
        if os.path.exists(os.path.join(out, f)):
            print(open(os.path.join(out, f)).read())


main()
