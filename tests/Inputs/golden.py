#!/usr/bin/env python3
"""Regenerates the golden CHECK lines of lit tests (docs/testing.md).

usage: golden.py [--kitec PATH] TEST.kite...

A golden test declares its blocks in its header, one line each:

    // GOLDEN: PREFIX FLAG [FROM]

and compares `kitec TEST.kite FLAG` (from the first line containing FROM,
when given) with the lines `// PREFIX:`, `// PREFIX-NEXT:` and (an empty
line) `// PREFIX-EMPTY:` through
FileCheck --match-full-lines --strict-whitespace. This script replaces each
block's lines with the current output, keeping the rest of the file; since
the output can name source lines (anonymous tasks are called after their
line), it repeats until the file stops changing.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def output(kitec, path, flag, start):
    out = subprocess.run([kitec, path, flag], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    if start:
        for i, line in enumerate(lines):
            if start in line:
                return lines[i:]
        sys.exit(f"golden.py: {path}: `{start}` is not in the output of {flag}")
    return lines


def regenerate(kitec, path):
    for _ in range(5):
        text = open(path).read()
        lines = text.splitlines(keepends=True)
        blocks = [m.groups() for m in re.finditer(r"^// GOLDEN: (\S+) (\S+)(?: (.*))?$", text, re.M)]
        if not blocks:
            sys.exit(f"golden.py: {path} declares no golden block")
        prefixes = {p for p, _, _ in blocks}
        golden = re.compile(r"^// (" + "|".join(map(re.escape, prefixes)) + r")(-NEXT|-EMPTY)?:")
        # The golden lines go where the first of them is (else after the
        # header's comment block).
        at = next((i for i, l in enumerate(lines) if golden.match(l)), None)
        kept = [l for l in lines if not golden.match(l)]
        if at is None:
            at = next(i for i, l in enumerate(kept) if not l.startswith("//"))
        new = []
        for prefix, flag, start in blocks:
            for i, line in enumerate(output(kitec, path, flag, start)):
                kind = "" if i == 0 else "-EMPTY" if not line else "-NEXT"
                new.append(f"// {prefix}{kind}:{line}\n")
        result = "".join(kept[:at] + new + kept[at:])
        if result == text:
            return
        open(path, "w").write(result)
    sys.exit(f"golden.py: {path} did not settle")


def main():
    args = sys.argv[1:]
    kitec = os.path.join(ROOT, "build", "bin", "kitec")
    if args[:1] == ["--kitec"]:
        kitec, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    for path in args:
        regenerate(kitec, path)


if __name__ == "__main__":
    main()
