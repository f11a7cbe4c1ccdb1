#!/usr/bin/env bash
# Measures how long `mcp-replay check` takes from a stop signal to its exit
# while its servers are live, as a CI runner cancelling a job sees it.
#
# Usage: scripts/bench-signal.sh          (ROUNDS=20, SIGNAL=TERM by default)
#        BIN=/path/to/mcp-replay scripts/bench-signal.sh
#
# Each round starts `check --no-replay --junit j.xml -- sh -c 'sleep 1000'`
# (a server that never answers: the probes wait on it for their whole
# startup allowance), waits until the server runs, sends SIGNAL to the
# checker and times its exit. It prints every round's latency, then the
# median and the maximum, and fails a round whose exit status is not
# 128 + N or whose JUnit file is empty. Target: the maximum under 1 s.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-20}
SIGNAL=${SIGNAL:-TERM}
BIN=${BIN:-target/release/mcp-replay}
[ -x "$BIN" ] || cargo build --release --quiet
BIN=$(realpath "$BIN")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
want=$((128 + $(kill -l "$SIGNAL")))
marker="bench-signal-$$"
latencies=()
for round in $(seq "$ROUNDS"); do
    rm -f "$scratch/j.xml"
    (cd "$scratch" && exec "$BIN" check --no-replay --junit j.xml -- sh -c 'sleep 1000; :' "$marker") \
        >"$scratch/out" 2>"$scratch/err" &
    pid=$!
    # The server is up once a process other than the checker names the marker.
    deadline=$((SECONDS + 60))
    until [ "$(pgrep -f -- "$marker" | grep -vc "^$pid\$")" -ge 1 ]; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "round $round: no server started" >&2; exit 1; }
    done
    start=$(date +%s%N)
    kill -s "$SIGNAL" "$pid"
    status=0
    wait "$pid" || status=$?
    end=$(date +%s%N)
    if [ "$status" -ne "$want" ] || [ ! -s "$scratch/j.xml" ]; then
        echo "round $round: exit $status (want $want), JUnit $(wc -c <"$scratch/j.xml") bytes" >&2
        exit 1
    fi
    ms=$(( (end - start) / 1000000 ))
    latencies+=("$ms")
    echo "round $round: ${ms} ms"
done
sorted=$(printf '%s\n' "${latencies[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
max=$(echo "$sorted" | tail -1)
echo "SIG$SIGNAL to exit over $ROUNDS rounds: median ${median} ms, max ${max} ms (target: max < 1000 ms)"
