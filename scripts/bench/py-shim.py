"""A minimal recording shim in Python, for comparison only: it forwards
stdin to the server and the server's stdout back, line by line, writing each
line to a JSON Lines file first (what simple recorders do).

Usage: python3 py-shim.py OUT.jsonl -- CMD...
"""

import json
import subprocess
import sys
import threading
import time

out_path = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
start = time.monotonic()
log = open(out_path, "w")
lock = threading.Lock()


def record(direction, line):
    text = line.rstrip(b"\n").decode("utf-8", "replace")
    with lock:
        log.write(json.dumps({"t": time.monotonic() - start, "dir": direction, "text": text}) + "\n")
        log.flush()


proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def client_to_server():
    for line in sys.stdin.buffer:
        record("c2s", line)
        proc.stdin.write(line)
        proc.stdin.flush()
    proc.stdin.close()


threading.Thread(target=client_to_server, daemon=True).start()
for line in proc.stdout:
    record("s2c", line)
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.exit(proc.wait())
