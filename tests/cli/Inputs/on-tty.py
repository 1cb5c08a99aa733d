#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal, as when someone runs
it by hand, and copies what it wrote there to this script's stderr (with the
terminal's \\r\\n line ends back to \\n). Its stdin and stdout are this
script's. Exits with the command's exit status.

usage: on-tty.py command args...
"""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[1:], stderr=slave)
os.close(slave)
received = []
while True:
    try:
        data = os.read(master, 65536)
    except OSError:  # EIO: the command and its children closed the terminal
        break
    if not data:
        break
    received.append(data)
status = child.wait()
sys.stderr.buffer.write(b"".join(received).replace(b"\r\n", b"\n"))
sys.exit(status)
