#!/usr/bin/env python3
"""Runs every ```kite block of README.md and docs/*.md through kite-test.

Each such block is a complete program with a kite-test header (`// run:`
and `// expect:` lines, or `// compile-error:`), so the documentation's
examples are compiled and run exactly as shown. The blocks are written to
OUT/<page>-<line>.kite (the line of the opening fence), so a failure names
the page and the place. Grammar sketches are ```text blocks and shell
commands ```sh blocks; neither is run.

usage: doc-blocks.py --kite-test PATH --out DIR [--jobs N] [REPO_ROOT]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")


def blocks(path):
    """(line of the opening fence, text) of every ```kite block in a page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and lines[i].strip().strip(fence[0]) == ""):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        if i == len(lines):
            sys.exit(f"{path}:{start}: a code block that is never closed")
        i += 1
        if lang == "kite":
            found.append((start, "\n".join(body) + "\n"))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kite-test", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", default="2")
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    a = ap.parse_args()
    pages = [os.path.join(a.root, "README.md")] + sorted(glob.glob(os.path.join(a.root, "docs", "*.md")))
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    files = []
    for page in pages:
        name = os.path.splitext(os.path.basename(page))[0]
        for line, text in blocks(page):
            f = os.path.join(a.out, f"{name}-{line}.kite")
            with open(f, "w", encoding="utf-8") as out:
                out.write(text)
            files.append(f)
    if not files:
        sys.exit("no ```kite blocks found: is the repository root right?")
    print(f"{len(files)} ```kite blocks from {len(pages)} pages", flush=True)
    # A block that never ends fails after a minute instead of hanging the suite.
    return subprocess.call([a.kite_test, "-j", a.jobs, "--timeout", "60"] + files)


if __name__ == "__main__":
    sys.exit(main())
