#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a UML console log on stdin; print one line per KUnit case
(PASS, SKIP with its reason, FAIL) as "native/<boot>/<suite>/<case>", and
fail on a failed case, on no case at all, or on a kernel splat."""
import re
import sys

SPLAT = re.compile(r'BUG:|WARNING:|Oops|bad page|Call Trace|KASAN|UBSAN')
STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SUITE = re.compile(r'^\s*# Subtest: (\S+)')
CASE = re.compile(r'^(\s+)(not ok|ok) \d+ (\S+)(?:\s+#\s*(SKIP.*))?')

boot = sys.argv[1] if len(sys.argv) > 1 else 'uml'
suite, cases, bad = '?', 0, 0
for raw in sys.stdin:
    line = STAMP.sub('', raw.rstrip('\r\n'))
    if SPLAT.search(line):
        print(f'native/{boot}: FAIL kernel log: {line.strip()}')
        bad += 1
    m = SUITE.match(line)
    if m:
        suite = m.group(1)
        continue
    m = CASE.match(line)
    if not m:
        continue
    cases += 1
    what = m.group(4)
    if m.group(2) == 'not ok':
        verdict = 'FAIL'
        bad += 1
    elif what:
        verdict = what.replace('SKIP', 'SKIP:', 1).replace('::', ':')
    else:
        verdict = 'PASS'
    print(f'native/{boot}/{suite}/{m.group(3)} {verdict}')
if not cases:
    print(f'native/{boot}: FAIL no KUnit case ran')
    bad += 1
sys.exit(1 if bad else 0)
