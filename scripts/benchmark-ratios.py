#!/usr/bin/env python3
"""Turns `swift package benchmark --format markdown` output (stdin) into a table of
medians and ratios: for every pair "<case> / keepsake" and "<case> / <peer>", how many
times faster keepsake is (peer median / keepsake median).

Usage: (cd Benchmarks && swift package --allow-writing-to-package-directory benchmark \
           --format markdown) | scripts/benchmark-ratios.py
"""
import re, sys

medians = {}
unit = {}
name = None
for line in sys.stdin:
    heading = re.match(r"^### (.+?)\s*$", line)
    if heading:
        name = heading.group(1)
        continue
    row = re.match(r"^\| Time \(wall clock\) \((\w+)\) \*?\s*\|([^|]+)\|([^|]+)\|([^|]+)\|", line)
    if name and row:
        unit[name] = row.group(1)
        medians[name] = float(row.group(4).strip().replace(",", ""))

print("| case | keepsake | peer | peer median | keepsake is |")
print("|:--|--:|:--|--:|--:|")
for name, ours in medians.items():
    case, _, who = name.rpartition(" / ")
    if who != "keepsake":
        continue
    for other, theirs in medians.items():
        other_case, _, peer = other.rpartition(" / ")
        if other_case == case and peer != "keepsake":
            ratio = theirs / ours if ours else float("inf")
            print(f"| {case} | {ours:g} {unit[name]} | {peer} | {theirs:g} {unit[other]} | {ratio:.1f}× faster |"
                  if ratio >= 1 else
                  f"| {case} | {ours:g} {unit[name]} | {peer} | {theirs:g} {unit[other]} | {1 / ratio:.2f}× slower |")
