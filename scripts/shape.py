#!/usr/bin/env python3
"""The shape of the sources: the largest files (lines, and the stored properties of the
types they declare at the top level) and the longest functions. A rough reading, by
indentation and braces, for noticing a file that has grown more than one machine.

    python3 scripts/shape.py [SOURCES_DIR] [--top N]

cowatch-bench is left out: benchmarks are allowed to be long.
"""
import os
import re
import sys

root = "Sources"
top = 12
args = sys.argv[1:]
if "--top" in args:
    i = args.index("--top")
    top = int(args[i + 1])
    del args[i : i + 2]
if args:
    root = args[0]

files = []
for directory, _, names in os.walk(root):
    if "cowatch-bench" in directory:
        continue
    files += [os.path.join(directory, n) for n in names if n.endswith(".swift")]

stored = re.compile(r"^  (?:@\w+ )?(?:public |private |fileprivate |internal |package )?(?:private\(set\) |public private\(set\) )?(?:var|let) \w+")
func = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))? )*(?:public |private |fileprivate |internal |package )?(?:static |mutating |nonisolated |override )*(?:func|init)\b\s*(\w*)")

sizes, functions = [], []
for path in files:
    lines = open(path, encoding="utf-8").read().split("\n")
    properties = 0
    for line in lines:
        if stored.match(line) and "static" not in line:
            computed = "{" in line and "=" not in line.split("{")[0]
            if not computed:
                properties += 1
    sizes.append((len(lines), properties, os.path.relpath(path, root)))
    depth_at = None
    for n, line in enumerate(lines):
        if depth_at is None:
            m = func.match(line)
            if m and not line.strip().startswith("//"):
                depth_at, start, name, depth, opened = n, n, m.group(1) or "init", 0, False
        if depth_at is not None:
            code = re.sub(r'"[^"]*"', "", line.split("//")[0])
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                functions.append((n - start + 1, name, os.path.relpath(path, root)))
                depth_at = None
            elif not opened and n - start > 8:
                depth_at = None  # a requirement in a protocol: no body

print(f"{'lines':>6} {'stored':>6}  file (largest {top})")
for count, properties, path in sorted(sizes, reverse=True)[:top]:
    print(f"{count:>6} {properties:>6}  {path}")
print()
print(f"{'lines':>6}  function (longest {top})")
for count, name, path in sorted(functions, reverse=True)[:top]:
    print(f"{count:>6}  {name} ({path})")
