#!/usr/bin/env python3
"""Fails when a file under tests/ looks like a test that would never run.

usage: check-collected.py LIT TESTS_DIR

A file looks like a test when its name ends in .kite or .test, or when it
has a `RUN:` line. ctest runs lit on every folder of TESTS_DIR but Inputs,
unit (the doctest tests, which CMake collects), difftest and fuzz
(tests/CMakeLists.txt), and lit collects in each what its configuration
says (tests/lit.cfg.py: .kite files; a lit.local.cfg: .test files). A
test-looking file outside the folders named Inputs (files the tests read)
runs when lit lists it and it is in one of those folders; the script names
each one that does not.
"""
import os
import subprocess
import sys

lit, tests_dir = sys.argv[1:]
tests_dir = os.path.abspath(tests_dir)
not_lit = {"Inputs", "unit", "difftest", "fuzz"}
# The script itself and the lit configuration name RUN: lines.
tools = {"check-collected.py", "lit.cfg.py"}

listed = subprocess.run([sys.executable, lit, "--show-tests", tests_dir], capture_output=True,
                        text=True, check=True).stdout
collected = {line.split(" :: ", 1)[1].strip() for line in listed.splitlines() if " :: " in line}


def looks_like_a_test(path):
    if path.endswith((".kite", ".test")):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            return any("RUN:" in line for line in f)
    except UnicodeDecodeError:
        return False


never_run = []
for root, dirs, files in os.walk(tests_dir):
    rel_root = os.path.relpath(root, tests_dir)
    dirs[:] = sorted(d for d in dirs if d != "Inputs")
    top = rel_root.split(os.sep)[0]
    for name in sorted(files):
        rel = os.path.normpath(os.path.join(rel_root, name))
        if name in tools or name.startswith("lit.local.cfg"):
            continue
        runs = rel in collected and top != "." and top not in not_lit
        if not runs and looks_like_a_test(os.path.join(root, name)):
            never_run.append(rel)
if never_run:
    sys.exit("check-collected.py: these look like tests but neither lit nor ctest runs them "
             "(see tests/lit.cfg.py and the folders' lit.local.cfg):\n  " + "\n  ".join(never_run))
print("check-collected.py: %d tests, all collected" % len(collected))
