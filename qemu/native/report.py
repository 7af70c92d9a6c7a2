#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make native's report: userspace/results/native.md and native.dat
(for native.gp) from the UML microbenchmark logs (bench-R-B.log, a few
boots B per run R) and the host faultbench runs (faults-R.txt, one per
run)."""
import argparse
import os
import platform
import re
import statistics
import subprocess

SERVED = re.compile(r'kscrub-bench-served: order=(\d+) touch=(\d+) '
                    r'pass=\d+ served=(\d+) of=(\d+)')
BENCH = re.compile(r'kscrub-bench: (\S+) order=(\d+) touch=(\d+) '
                   r'pass=\d+ ns=([\d.]+)')
WS = re.compile(r'kscrub-bench-ws: (\S+) ws_mb=(\d+) touch=(\d+) '
                r'pass=\d+ ns=([\d.]+) served=(\d+) of=(\d+)')
HOST = re.compile(r'kscrub-host: uml_memory=(\S+) pmd_mapped_kb=(\d+)')
SOURCES = ['hot-noclear', 'hot-clear', 'hot-clear-extent', 'cold-clear',
           'cold-clear-extent', 'cold-prezeroed-temporal',
           'cold-prezeroed-nt']
POLICIES = ['alloc-stock', 'alloc-hot-first', 'alloc-today']
WS_POLICIES = ['ws-stock', 'ws-stock-stosb', 'ws-today',
               'ws-today-keep1m']
WHAT = {
    'hot-noclear': 'hot (just freed, LIFO reuse), no clear: the floor',
    'hot-clear': 'hot, cleared per 4 KiB (`rep stosb`, as clear_page)',
    'hot-clear-extent': 'hot, one `rep stosb` over the block',
    'cold-clear': 'cold dirty, cleared per 4 KiB: stock fault path',
    'cold-clear-extent': 'cold dirty, one clear of the extent',
    'cold-prezeroed-temporal': 'cold, prezeroed earlier with ordinary stores',
    'cold-prezeroed-nt': 'cold, prezeroed earlier with `movnti`: kscrubd',
    'alloc-stock': 'no scrubber: `alloc_pages(__GFP_ZERO)` clears the '
                   'hot block it reuses (UML\'s clear_page, a memset)',
    'alloc-hot-first': 'alternative: hot block first, cleared '
                       '(`alloc_pages()` + `rep stosb`)',
    'alloc-today': 'the series as built, with zeroed blocks present '
                   '(the hot block just freed first, then a zeroed '
                   'one; UML has no THP, hence no per-cpu THP list, '
                   'so its order 9 takes a zeroed block first)',
    'ws-stock': 'no scrubber, `__GFP_ZERO`: the allocator clears each '
                'page with UML\'s clear_page() (a memset loop), as '
                '`ws-today` clears the pages that do not come prezeroed',
    'ws-stock-stosb': 'no scrubber, each page cleared with `rep stosb` '
                      '(as x86\'s clear_page), faster than UML\'s own '
                      'when the page is in the cache: against it, any '
                      'error favours stock',
    'ws-today': 'the series with kscrubd keeping up: between rounds the '
                'per-cpu list drained down to the CPU\'s slice of the '
                'last-level cache (LLC / CPUs sharing it, at least 1 MiB), '
                'as `scrubd_drain_pcp()` keeps it, and as much memory '
                'zeroed (non-temporal) as the round took; `__GFP_ZERO`',
    'ws-today-keep1m': 'the same with 1 MiB kept, kscrubd\'s rule before '
                       'the drain kept the cache slice',
}
# workload: (faultbench key, order, touch, label)
WORKLOADS = [
    ('4k-1', 0, 1, '4 KiB, one line'),
    ('4k-64', 0, 64, '4 KiB, every line'),
    ('thp-1', 9, 0, 'THP, one touch'),
    ('thp-64', 9, 64, 'THP, every line'),
]


def touch_name(t):
    return 'one line per block' if t == 0 else f'{t} per 4 KiB'


def parse_bench(path):
    d = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = WS.search(line)
            if m:
                k = (m.group(1), int(m.group(2)), int(m.group(3)))
                d.setdefault(k, []).append(float(m.group(4)))
                d.setdefault(('ws-served',) + k, []).append(
                    100.0 * int(m.group(5)) / max(int(m.group(6)), 1))
                continue
            m = SERVED.search(line)
            if m:
                k = ('served', int(m.group(1)), int(m.group(2)))
                d.setdefault(k, []).append(100.0 * int(m.group(3)) /
                                           int(m.group(4)))
                continue
            m = BENCH.search(line)
            if m:
                k = (m.group(1), int(m.group(2)), int(m.group(3)))
                d.setdefault(k, []).append(float(m.group(4)))
    return d


def uml_backing(paths):
    """run-uml.sh's line in each boot log: how UML's memory was backed"""
    kinds, pmd = set(), []
    for p in paths:
        with open(p, errors='replace') as f:
            for line in f:
                m = HOST.search(line)
                if m:
                    kinds.add(m.group(1))
                    pmd.append(int(m.group(2)) // 1024)
    return kinds, pmd


def parse_faults(path):
    d = {}
    with open(path) as f:
        for line in f:
            kv = dict(x.split('=', 1) for x in line.split() if '=' in x)
            if 'workload' not in kv:
                continue
            pages = int(kv['pages'])
            faults = pages / 512 if kv['workload'].startswith('thp') \
                else pages
            ns = float(kv['wall_s']) * 1e9 / faults
            d.setdefault(kv['workload'], []).append(ns)
            d.setdefault(kv['workload'] + ':thp', []).append(
                int(kv.get('thp_fault_alloc', '-1')) / max(faults, 1))
    return d


def med(v):
    return statistics.median(v)


def quartiles(v):
    if len(v) < 2:
        return v[0], v[0], v[0]
    return tuple(statistics.quantiles(v, n=4, method='inclusive'))


def parse_run(paths):
    """A run's boots: key -> one list of passes per boot"""
    d = {}
    for p in paths:
        for k, v in parse_bench(p).items():
            d.setdefault(k, []).append(v)
    return d


def lq(v):
    """
    A boot's figure: the lower quartile of its passes.  What disturbs a
    pass on this host (itself a VM: the hypervisor, a host task) only
    ever adds time, and whole stretches of a boot can be slowed, so the
    median moves with how much of it was disturbed; the lower quartile
    is the speed of its quieter passes.
    """
    return quartiles(v)[0]


def fig(boots):
    """
    A run's figure: the median over its boots of each boot's figure.
    Where UML's memory lands in the host's (itself a guest's) memory is
    fixed for a boot and differs between boots, and it moves a few rows
    by 10-25% (cold misses and the translation behind them), so a run is
    several boots.
    """
    return med([lq(v) for v in boots])


def above(boots):
    """how far a boot's median lies above its figure, % (median of boots)"""
    return med([100.0 * (med(v) - lq(v)) / lq(v) if lq(v) else 0.0
                for v in boots])


def spread(boots):
    """a boot's interquartile range, % of its figure (median of boots)"""
    return med([100.0 * (quartiles(v)[2] - lq(v)) / lq(v) if lq(v) else 0.0
                for v in boots])


def across(boots):
    """largest difference between the figures of a run's boots, %"""
    f = [lq(v) for v in boots]
    return 100.0 * (max(f) - min(f)) / min(f) if min(f) else 0.0


def flat(boots):
    return [x for v in boots for x in v]


def cpu_model():
    try:
        out = subprocess.run(['lscpu'], capture_output=True,
                             text=True).stdout
    except OSError:
        return platform.processor()
    f = dict(line.split(':', 1) for line in out.splitlines()
             if ':' in line)
    g = {k.strip(): v.strip() for k, v in f.items()}
    return (f"{g.get('Model name', '?')} (family {g.get('CPU family', '?')}, "
            f"model {g.get('Model', '?')}, {g.get('CPU(s)', '?')} CPUs, "
            f"{g.get('Hypervisor vendor', 'virtualised') if 'hypervisor' in g.get('Flags', '') else 'bare metal'})")


def fmt(v):
    if v >= 1000:
        return f'{v:,.0f}'
    return f'{v:.1f}'


def slower_than_stock(rows):
    """
    The labels of (label, F, projected) rows projected slower than F,
    each with its largest shortfall in %, so that a row 0.1% over stock
    reads as what it is next to the runs' own differences
    """
    worst = {}
    for lab, F, p in rows:
        if p > F:
            worst[lab] = max(worst.get(lab, 0.0), 100.0 * (p - F) / F)
    return '; '.join(f'{lab} (by up to ' +
                     (f'{v:.1f}%)' if v >= 0.05 else 'under 0.1%)')
                     for lab, v in worst.items()) or 'none'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--llc-kb', type=int, required=True)
    ap.add_argument('--llc-sharers', type=int, default=1)
    ap.add_argument('--out', required=True)
    ap.add_argument('--bench', nargs='+', required=True,
                    help='one argument per run: its boots\' logs, '
                    'comma-separated')
    ap.add_argument('--faults', nargs='+', required=True)
    ap.add_argument('--note', action='append', default=[],
                    help='a paragraph for the top of the report')
    a = ap.parse_args()
    bench = [parse_run(r.split(',')) for r in a.bench]
    nboots = min(len(r.split(',')) for r in a.bench)
    # the host runs are one set per run: one "boot" each
    faults = [{k: [v] for k, v in parse_faults(p).items()}
              for p in a.faults]
    nr = len(bench)
    L = []
    w = L.append
    worst = []

    def runs_cells(get):
        cells, meds = [], []
        for r in range(nr):
            v = get(r)
            if not v:
                cells.append('-')
                continue
            meds.append(fig(v))
            b = f', {across(v):.0f}%' if len(v) > 1 else ''
            cells.append(f'{fmt(fig(v))} (+{above(v):.0f}%, '
                         f'{spread(v):.0f}%{b})')
        diff = ''
        if len(meds) >= 2 and min(meds) > 0:
            dd = 100.0 * (max(meds) - min(meds)) / min(meds)
            diff = f'{dd:.1f}%'
            worst.append(dd)
        return cells, diff

    def keys_of(names):
        """(name, size, touch) measured, by size, touch, then names' order"""
        return sorted({k for b in bench for k in b if k[0] in names},
                      key=lambda k: (k[1], k[2], names.index(k[0])))

    def table_rows(names, first):
        """a row per (size, touch, name) measured"""
        for k in keys_of(names):
            cells, diff = runs_cells(lambda r: bench[r].get(k))
            w(f'| {first(k[1])} | {touch_name(k[2])} | {k[0]} | ' +
              ' | '.join(cells) + f' | {diff} |')

    w('# Native evidence: the host CPU, not TCG')
    w('')
    w('Written by `make native` (`qemu/native/`).  Host CPU: '
      f'**{cpu_model()}**; host kernel {platform.release()} (stock, '
      'nothing loaded into it).  The microbenchmark runs in a User-mode '
      'Linux kernel (`ARCH=um`, the same 6.12 tree and series, `-O2`) on '
      'that CPU; `faultbench` runs on the host kernel from userspace.')
    w('')
    kinds, pmd = uml_backing([p for r in a.bench for p in r.split(',')])
    if kinds == {'huge-tmpfs'}:
        w('UML\'s memory is a file on a tmpfs mounted `huge=always` in a '
          'mount namespace of its own, so that the host maps it with '
          '2 MiB pages, as a real kernel\'s direct map is mapped.  On '
          '`/dev/shm` (4 KiB pages, shmem THP off) a cold block also cost '
          'host TLB misses that a real kernel does not take (on the Zen 3 '
          'host of 7 December, a cold 2 MiB clear: 80 us there, 68-70 us '
          'on 2 MiB pages); it did not make the boots agree better there '
          '(7 and 8 of 146 rows over 10% apart in two pairs of runs, 9 '
          'before).  Mapped with 2 MiB pages, at most, '
          f'per boot: {min(pmd)}-{max(pmd)} MiB of UML\'s memory.')
    else:
        w('UML\'s memory is a file on `/dev/shm`, mapped with 4 KiB host '
          'pages (not root, or no `huge=always` tmpfs): every cold block '
          'costs host TLB misses that a real kernel, with its direct map '
          'of large pages, does not take.')
    w('')
    for n in a.note:
        w(n)
        w('')
    w(f'Cold means out of the cache: before every timed pass of a cold '
      f'source a buffer of 4 x the host\'s last-level cache as the CPU '
      f'reports it ({a.llc_kb} KiB, so {4 * a.llc_kb // 1024} MiB) is '
      'written line by line with ordinary stores, and each block of the '
      'pass (128 MiB of them) is used once.  Hot means the block just '
      'freed, reused at once (per-cpu lists and buddy heads are LIFO).')
    w('')
    w(f'Every figure: ns per cycle (one block of 2^order pages).  A run '
      f'is {nboots} boot(s) of UML; a boot\'s figure is the lower quartile '
      'of its passes (11, taken pass by pass over every figure), and the '
      'run\'s figure the median of its boots\' figures.  In brackets: '
      'how far a boot\'s median lies above its figure, its interquartile '
      'range, and how far apart the run\'s boots are, all as % of the '
      'figure (the first two the median over the boots); "runs" is the '
      'difference between the two runs\' figures.  A cycle is: get the '
      'block, clear it or not, write the touched lines (1, 8 or 64 per '
      '4 KiB, or one line per block).  Why the lower quartile and not '
      'the median: the host is itself a VM, and what disturbs a pass '
      'there (the hypervisor, a host task) only ever adds time, to whole '
      'stretches of a boot at once; the median then moves with how much '
      'of a boot was disturbed, the lower quartile much less (two runs '
      'on 7 December: medians over 10% apart in 26 of 110 rows, lower '
      'quartiles in none).  Why several boots: where UML\'s memory lands '
      'in the host\'s is fixed for a boot, and it moved a few rows '
      '(cold misses, sub-microsecond prezeroed touches) by 10-25% '
      'between one-boot runs whose passes agreed within 5%.')
    w('')
    brk = '(median +, IQR, boots)' if nboots > 1 else '(median +, IQR)'
    hdr = '| order | touch | source | ' + ' | '.join(
        f'run {r + 1}: ns {brk}' for r in range(nr)) + ' | runs |'
    sep = '|---|---|---|' + '---:|' * nr + '---:|'
    w('## Page sources (UML, measured natively)')
    w('')
    for s in SOURCES:
        w(f'- `{s}`: {WHAT[s]}')
    w('')
    w(hdr)
    w(sep)
    table_rows(SOURCES, str)
    w('')
    w('## The allocator under each policy (UML, measured natively)')
    w('')
    w('Cycles of allocate + touch + free in a loop (churn), booted with '
      '`init_on_alloc=0` so only `__GFP_ZERO` clears.')
    w('')
    for s in POLICIES:
        w(f'- `{s}`: {WHAT[s]}')
    w('')
    w(hdr)
    w(sep)
    table_rows(POLICIES, str)
    w('')
    w('Pages `alloc-today` got prezeroed (`pgalloc_prezeroed`), median % '
      'per run: ' + '; '.join(
          f'order {k[1]} {touch_name(k[2])}: ' + ' / '.join(
              f'{med(flat(bench[r][k])):.0f}%' for r in range(nr)
              if bench[r].get(k))
          for k in sorted({k for b in bench for k in b
                           if k[0] == 'served'})) + '.')
    w('')
    ws_keys = keys_of(WS_POLICIES)
    if ws_keys:
        w('## A working set churned (UML, measured natively)')
        w('')
        w('Rounds of: take a working set of order-0 pages one by one, '
          'each cleared or not and touched as it is taken (a fault), '
          'then give them all back (an munmap); ns per page, over at '
          'least 128 MiB of rounds per pass after one round that brings '
          'the steady state.  This is the case the projection below can '
          'only bound: pages given back beyond the per-cpu list\'s high '
          'mark drain to the buddy lists, still in the cache while the '
          'working set fits in it (the host\'s LLC: '
          f'{a.llc_kb // 1024} MiB), and stock\'s next round clears them '
          'there, while the series hands out cold zeroed pages instead, '
          'unless the drain keeps them.  `ws-today` keeps this CPU\'s '
          f'slice of the LLC, {max(a.llc_kb // max(a.llc_sharers, 1), 1024) // 1024} '
          f'MiB ({a.llc_sharers} CPU(s) share it).  Booted with '
          '`init_on_alloc=0`.')
        w('')
        for s in WS_POLICIES:
            w(f'- `{s}`: {WHAT[s]}')
        w('')
        w(hdr.replace('| order | touch | source |',
                      '| working set | touch | policy |'))
        w(sep)
        table_rows(WS_POLICIES, lambda mb: f'{mb} MiB')
        w('')
        w('Time per page relative to stock, per run (above 1.00x: slower '
          'than stock), and the share `ws-today` got prezeroed:')
        w('')
        cols = [('ws-today', 'ws-stock'), ('ws-today', 'ws-stock-stosb'),
                ('ws-today-keep1m', 'ws-stock')]
        w('| working set | touch | ' + ' | '.join(
            f'`{a_}` / `{b_}`' for a_, b_ in cols) +
          ' | served prezeroed |')
        w('|---|---|' + '---:|' * len(cols) + '---:|')
        for ws, t in sorted({(k[1], k[2]) for k in ws_keys}):
            cells = []
            for a_, b_ in cols:
                v = []
                for r in range(nr):
                    x = bench[r].get((a_, ws, t))
                    y = bench[r].get((b_, ws, t))
                    v.append(f'{fig(x) / fig(y):.2f}x' if x and y else '-')
                cells.append(' / '.join(v))
            served = ' / '.join(
                f'{med(flat(sv)):.0f}%' if sv else '-'
                for sv in (bench[r].get(('ws-served', 'ws-today', ws, t))
                           for r in range(nr)))
            w(f'| {ws} MiB | {touch_name(t)} | ' + ' | '.join(cells) +
              f' | {served} |')
        w('')
    w('## Faults on the host\'s stock kernel (measured natively)')
    w('')
    w('`faultbench -r 3 -k` (mmap, touch, munmap three times in one '
      'process), 5 runs after one warm-up run, 256 MiB (1 GiB for THP '
      'one touch); `-N` (MADV_NOHUGEPAGE) for 4 KiB, `-H` '
      '(MADV_HUGEPAGE; the host\'s THP setting is "madvise") for THP.  ns '
      'per fault: wall time / faults (a THP fault maps 2 MiB).')
    w('')
    w('| workload | ' + ' | '.join(
        f'run {r + 1}: ns/fault (median +, IQR)' for r in range(nr)) +
      ' | runs | THP faults / expected |')
    w('|---|' + '---:|' * nr + '---:|---:|')
    for key, _, _, label in WORKLOADS:
        cells, diff = runs_cells(lambda r: faults[r].get(key))
        thp = faults[0].get(key + ':thp', [[-1]])
        thp = f'{med(flat(thp)):.2f}' if key.startswith('thp') else '-'
        w(f'| {label} (`{key}`) | ' + ' | '.join(cells) +
          f' | {diff} | {thp} |')
    w('')
    w('## Projected native speed-up of today\'s series (PROJECTED)')
    w('')
    w('Not measured: a projection from the measurements above.  For each '
      'workload, with F the stock kernel\'s ns per fault, C the UML '
      'microbenchmark\'s ns per cycle for the same order and touch '
      'pattern:')
    w('')
    w('    projected = F - clear saved + extra miss cost')
    w('              = F - (C[cold-clear] - C[floor]) + '
      '(C[cold-prezeroed-nt] - C[floor])')
    w('              = F - C[cold-clear] + C[cold-prezeroed-nt]')
    w('')
    w('(the floor, what touching costs anyway, cancels).  The stock '
      'kernel\'s page is taken as cold and dirty (C[cold-clear]), and '
      'the series hands out a cold zeroed page instead.  Where stock '
      'would reuse a hot page or THP just freed on its CPU, the series '
      'takes that same block first and clears it, as stock does: its '
      'time is then F, 1.00x, by construction, and no column shows it.  '
      'The microbenchmark\'s cold is harsh (the cache is full of dirty '
      'lines from the eviction buffer, so every line a clear allocates '
      'writes one back), while `faultbench` reuses its own 256 MiB '
      'region, partly still cached and clean, and a block can be in '
      'the cache without being on the per-cpu list (drained to the '
      'buddy lists), where the series does not look for it.  So the '
      'last two columns bound the speed-up from below: stock\'s clear '
      'taken as cheap as it gets, C[hot-clear] in place of '
      'C[cold-clear].  '
      'Where C[cold-clear] exceeds F itself (THP, every line) the cold '
      'projection is too optimistic; read the lower bound instead.  '
      'Each run is projected from its own measurements.')
    w('')
    w('| workload | F stock ns | C cold-clear | C cold-prezeroed-nt | '
      '**projected ns** | **projected speed-up** | lower bound: '
      'projected ns | lower bound: speed-up |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|')
    proj = []
    for key, order, t, label in WORKLOADS:
        for r in range(nr):
            fv = faults[r].get(key) if r < len(faults) else None
            cc = bench[r].get(('cold-clear', order, t))
            cp = bench[r].get(('cold-prezeroed-nt', order, t))
            hc = bench[r].get(('hot-clear', order, t))
            if not (fv and cc and cp and hc):
                continue
            F, CC, CP, HC = fig(fv), fig(cc), fig(cp), fig(hc)
            p, pl = F - CC + CP, F - HC + CP
            proj.append((label, r, F, p, pl))
            w(f'| {label}, run {r + 1} | {fmt(F)} | {fmt(CC)} | '
              f'{fmt(CP)} | **{fmt(p)}** (projected) | '
              f'**{F / p:.2f}x** (projected) | {fmt(pl)} (projected) | '
              f'{F / pl:.2f}x (projected) |')
    w('')
    proj.sort(key=lambda x: x[0])
    w('Projected slower than stock: ' +
      slower_than_stock((lab, F, p) for lab, r, F, p, pl in proj) +
      '.  At the lower bound: ' +
      slower_than_stock((lab, F, pl) for lab, r, F, p, pl in proj) +
      '.  Where stock would reuse a hot block: none, by construction.')
    w('')
    wsp = []
    for key, order, t, label in WORKLOADS:
        if order:  # the working sets are of 4 KiB pages
            continue
        for ws in sorted({k[1] for k in ws_keys if k[2] == t}):
            for r in range(nr):
                fv = faults[r].get(key) if r < len(faults) else None
                st = bench[r].get(('ws-stock', ws, t))
                sb = bench[r].get(('ws-stock-stosb', ws, t))
                td = bench[r].get(('ws-today', ws, t))
                if fv and st and sb and td:
                    F, S, B, T = fig(fv), fig(st), fig(sb), fig(td)
                    wsp.append((f'{label}, working set {ws} MiB', r, F, S,
                                T, F - S + T, B, F - B + T))
    if wsp:
        w('With a working set, measured rather than bounded: the '
          'working-set rounds above time stock\'s page and the series\' '
          'page as a process churning that much memory gets them (pages '
          'kept on the per-cpu list, pages drained and still cached, '
          'pages cold), so for 4 KiB faults')
        w('')
        w('    projected = F - C[ws-stock] + C[ws-today]')
        w('')
        w('and, as a bound that favours stock, C[ws-stock-stosb] (stock '
          'clearing with `rep stosb`, faster than UML\'s clear_page() on '
          'a cached page) in place of C[ws-stock].  Where `ws-today` got '
          'no page prezeroed (the working set stays on the per-cpu list), '
          'it takes the same pages as stock and runs the same clear, and '
          'the gap to the bound is UML\'s clear against `rep stosb`, not '
          'the series.')
        w('')
        w('| workload | F stock ns | C ws-stock | C ws-today | '
          '**projected ns** | **projected speed-up** | '
          'C ws-stock-stosb | bound: speed-up |')
        w('|---|---:|---:|---:|---:|---:|---:|---:|')
        for lab, r, F, S, T, p, B, pb in wsp:
            w(f'| {lab}, run {r + 1} | {fmt(F)} | {fmt(S)} | {fmt(T)} | '
              f'**{fmt(p)}** (projected) | **{F / p:.2f}x** (projected) | '
              f'{fmt(B)} | {F / pb:.2f}x (projected) |')
        w('')
        w('Projected slower than stock with a working set: ' +
          slower_than_stock((x[0], x[2], x[5]) for x in wsp) +
          '.  At the bound: ' +
          slower_than_stock((x[0], x[2], x[7]) for x in wsp) + '.')
        w('')
    w(f'Largest difference between the two runs\' figures over every '
      f'measured row: {max(worst) if worst else 0:.1f}% '
      f'({sum(1 for x in worst if x > 10)} of {len(worst)} rows over 10%).')
    w('')
    w('![native](native.png)')
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'native.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')
    # ns per 4 KiB, run 1 and run 2, for the plot
    with open(os.path.join(a.out, 'native.dat'), 'w') as f:
        f.write('# workload ' + ' '.join(
            f'{s}_r{r + 1}' for s in SOURCES[1:] for r in range(nr)) +
            '  (ns per 4 KiB)\n')
        for key, order, t, label in WORKLOADS:
            row = [f'"{label}"']
            for s in SOURCES[1:]:
                for r in range(nr):
                    v = bench[r].get((s, order, t))
                    row.append(f'{fig(v) / (1 << order):.2f}' if v
                               else 'NaN')
            f.write(' '.join(row) + '\n')
    print('\n'.join(L))


if __name__ == '__main__':
    main()
