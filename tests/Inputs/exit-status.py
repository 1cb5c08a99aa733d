#!/usr/bin/env python3
"""Runs a command and checks its exit status and how long it took.

usage: exit-status.py STATUS SECONDS command args...

Passes the command's output through; exits 0 if the command exited with
STATUS within SECONDS of wall-clock time, else 1 with a message (a command
still running at SECONDS is killed).
"""
import subprocess
import sys
import time

status, seconds, command = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
start = time.monotonic()
try:
    got = subprocess.run(command, timeout=seconds).returncode
except subprocess.TimeoutExpired:
    sys.exit("exit-status.py: %s still ran after %g s" % (command[0], seconds))
took = time.monotonic() - start
if got != status:
    sys.exit("exit-status.py: %s exited with %d, not %d" % (command[0], got, status))
print("exit-status.py: status %d after %.1f s" % (got, took), file=sys.stderr)
