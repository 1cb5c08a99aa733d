#!/usr/bin/env python3
"""Runs kite-interp with every option that kite-run's --help lists (but
--help, --version and --build-only), each with a value kite-run would take, followed by
the program and its arguments; prints kite-interp's output and, on stderr,
the options it passed. Exits with kite-interp's status.

usage: every-run-option.py KITE_RUN KITE_INTERP PROG ARGS...
"""
import os
import subprocess
import sys
import tempfile

kite_run, kite_interp, *program = sys.argv[1:]
help_text = subprocess.run([kite_run, "--help"], capture_output=True, text=True, check=True).stdout
# A value each kind of value may take: 64 is a power of two and a multiple
# of 4 within every numeric option's range.
trace = os.path.join(tempfile.mkdtemp(), "trace.json")
samples = {"N": "64", "BYTES": "64", "SIZE": "64K", "SECONDS": "60", "DEVICE": "cpu", "FILE": trace,
           "WHEN": "always"}
words = []
in_options = False
for line in help_text.splitlines():
    if line.strip() == "Options:":
        in_options = True
    elif in_options and line.startswith("  -"):
        names, *rest = line.split()
        name = names.split(",")[-1]
        # These say what to do instead of running: --build-only too.
        if name in ("--help", "--version", "--build-only"):
            continue
        words.append(name)
        if rest and rest[0] in samples:
            words.append(samples[rest[0]])
        elif rest and rest[0].isupper():
            sys.exit("every-run-option.py: no sample value for %s %s" % (name, rest[0]))
if not words:
    sys.exit("every-run-option.py: %s --help lists no options" % kite_run)
print(" ".join(words), file=sys.stderr)
status = subprocess.run([kite_interp] + words + program).returncode
if os.path.exists(trace):
    sys.exit("every-run-option.py: kite-interp wrote a trace")
sys.exit(status)
