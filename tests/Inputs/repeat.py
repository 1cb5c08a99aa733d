#!/usr/bin/env python3
"""Runs a command again and again: for a result that depends on timing.

usage: repeat.py N SECONDS command args...

Runs the command N times, each within SECONDS of wall-clock time, and
passes the last run's output through; exits 1 at the first run that exits
with a status other than 0 or is still running at SECONDS (it is killed),
saying which run.
"""
import subprocess
import sys

count, seconds, command = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
for i in range(1, count + 1):
    try:
        run = subprocess.run(command, timeout=seconds, capture_output=True)
    except subprocess.TimeoutExpired:
        sys.exit("repeat.py: run %d of %d of %s still ran after %g s" % (i, count, command[0], seconds))
    if run.returncode != 0:
        sys.stderr.write(run.stderr.decode())
        sys.exit("repeat.py: run %d of %d of %s exited with %d" % (i, count, command[0], run.returncode))
sys.stdout.write(run.stdout.decode())
sys.stderr.write(run.stderr.decode())
