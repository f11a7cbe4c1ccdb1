#!/usr/bin/env bash
# Measures the peak memory of a failing replay against the size of its
# transcript: every recorded answer differs from the live one.
#
# Usage: scripts/bench-findings.sh          (MISMATCHES=50000, PAD=20)
#        BIN=/path/to/mcp-replay scripts/bench-findings.sh
#
# It writes a transcript of MISMATCHES `echo` calls to `mcp-replay
# demo-server` whose recorded answers all differ from what the server
# answers (PAD characters of text each: the defaults make about 13 MB),
# replays it with `check --no-probes --format json`, and prints the
# transcript's size, the peak RSS (GNU time's %M: the largest of the checker
# and the server it waited for), their ratio, and the size of the report.
# Target: the peak within 10x the transcript.
set -euo pipefail
cd "$(dirname "$0")/.."
MISMATCHES=${MISMATCHES:-50000}
PAD=${PAD:-20}
BIN=${BIN:-target/release/mcp-replay}
[ -x "$BIN" ] || cargo build --release --quiet
BIN=$(realpath "$BIN")
[ -x /usr/bin/time ] || { echo "needs GNU time at /usr/bin/time" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 - "$MISMATCHES" "$PAD" "$BIN" >"$scratch/t.jsonl" <<'PY'
import json, sys
n, pad, binary = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out = sys.stdout
def line(obj):
    out.write(json.dumps(obj, separators=(",", ":")) + "\n")
line({"format": "mcp-replay-transcript", "version": 1, "tool": "bench", "created": "2026-01-01T00:00:00Z",
      "command": [binary, "demo-server"]})
line({"t": 0, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}})
line({"t": 0, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"tools": {"listChanged": False}},
      "protocolVersion": "2024-11-05", "serverInfo": {"name": "mcp-replay-demo", "version": "0.1.0"}}}})
text = "x" * pad
for i in range(n):
    line({"t": 0, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
          "params": {"name": "echo", "arguments": {"text": text}}}})
    line({"t": 0, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": i + 2,
          "result": {"content": [{"type": "text", "text": "recorded " + text}], "isError": False}}})
PY
size=$(stat -c %s "$scratch/t.jsonl")
status=0
/usr/bin/time -f "%M" -o "$scratch/rss" "$BIN" check --no-probes --format json "$scratch/t.jsonl" \
    >"$scratch/report.jsonl" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "check exited $status, not 1 (findings)" >&2; exit 1; }
peak_kb=$(tail -1 "$scratch/rss")
report=$(stat -c %s "$scratch/report.jsonl")
awk -v size="$size" -v peak="$peak_kb" -v report="$report" -v n="$MISMATCHES" 'BEGIN {
    printf "transcript %.1f MB (%d mismatches), peak RSS %.1f MB: %.1fx the transcript (target: < 10x); JSON report %.1f MB\n",
        size / 1e6, n, peak * 1024 / 1e6, peak * 1024 / size, report / 1e6
}'
