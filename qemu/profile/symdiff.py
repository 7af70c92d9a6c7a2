#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per kernel function, second kernel minus first.

usage: symdiff.py SYSTEM_MAP_A PROFILE_A SYSTEM_MAP_B PROFILE_B [N]
Each profile is tbprof.so's output ("vaddr insns" per translation block);
a block is charged to the function it starts in, so inlined code counts
for its caller.  Prints the totals and the N largest differences.
"""
import bisect
import collections
import sys


def load_map(path):
    syms = sorted((int(f[0], 16), f[2]) for f in
                  (line.split() for line in open(path))
                  if len(f) >= 3 and f[1] in 'tTwW')
    return [a for a, _ in syms], [n for _, n in syms]


def load(map_path, prof_path):
    addrs, names = load_map(map_path)
    total = collections.Counter()
    for line in open(prof_path):
        vaddr, insns = line.split()
        i = bisect.bisect_right(addrs, int(vaddr, 16)) - 1
        total[names[i] if i >= 0 else '?'] += int(insns)
    return total


def main():
    a = load(sys.argv[1], sys.argv[2])
    b = load(sys.argv[3], sys.argv[4])
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 25
    ta, tb = sum(a.values()), sum(b.values())
    print(f"total instructions: A {ta}  B {tb}  B/A {tb / ta:.4f}")
    print(f"{'B - A':>12} {'A':>12} {'B':>12}  function")
    for k in sorted(set(a) | set(b), key=lambda k: -abs(b[k] - a[k]))[:n]:
        print(f"{b[k] - a[k]:+12d} {a[k]:12d} {b[k]:12d}  {k}")


if __name__ == '__main__':
    main()
