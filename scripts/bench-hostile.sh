#!/usr/bin/env bash
# The peak memory of mcp-replay against the hostile modes of the fixture
# server (docs/limits.md, "The memory ceiling"): tool schemas that ask for
# more than any bounded generator makes, a listen stream that floods while
# answers come slowly, requestStates of 60 MiB asked for again and again.
#
# Usage: scripts/bench-hostile.sh
#        PREBUILT=DIR scripts/bench-hostile.sh   (DIR/mcp-replay and
#        DIR/fixture-server instead of a release build)
#        BEFORE=PATH scripts/bench-hostile.sh    (another mcp-replay, run
#        beside this one against the same servers)
#
# Each run is measured as tests/cli/hostile.rs measures it: under a limit of
# 1 GiB of address space (a run that would take more fails its allocation,
# and aborts), with the peak resident memory of mcp-replay and the servers
# it ran (getrusage of the children). The ceiling is 256 MiB. With the
# requestStates of 60 MiB the fixture server's own peak (about 130 MB, the
# state built and written) is the figure's floor.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${PREBUILT:-}" ]; then
    bin=$(cd "$PREBUILT" && pwd)/mcp-replay
    fixture=$(cd "$PREBUILT" && pwd)/fixture-server
else
    cargo build --release --bin mcp-replay --example fixture-server >&2
    bin=$PWD/target/release/mcp-replay
    fixture=$PWD/target/release/examples/fixture-server
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

python3 - "$bin" "$fixture" "$scratch" "${BEFORE:-}" <<'PY'
import os, resource, subprocess, sys, time
binary, fixture, scratch, before = sys.argv[1:5]
builds = [("now", binary)] + ([("before", before)] if before else [])
limit = 1 << 30
schemas = ["min-length", "min-items", "min-properties", "multiple-of", "nesting",
           "repetition", "nested-repetition", "references", "wide"]

def measured(argv):
    """Peak RSS in MiB of argv and its descendants, its status, its time."""
    wrapper = [sys.executable, "-c", """
import resource, subprocess, sys
limit, argv = int(sys.argv[1]), sys.argv[2:]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
code = subprocess.run(argv, preexec_fn=cap, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
""", str(limit), *argv]
    start = time.perf_counter()
    out = subprocess.run(wrapper, capture_output=True, text=True, cwd=scratch).stdout.split()
    took = time.perf_counter() - start
    return int(out[0]) / 1024, int(out[1]), took

def row(label, args):
    cells = []
    for name, build in builds:
        peak, code, took = measured([build, *args])
        status = f"exit {code}" if code >= 0 else f"signal {-code}"
        mark = "" if peak <= 256 and code >= 0 else "  PAST THE CEILING" if code >= 0 else "  ABORTED"
        cells.append(f"{name} {peak:7.1f} MiB {status:>9} {took:6.1f} s{mark}")
    print(f"{label:<48} " + "   ".join(cells))

for kind in schemas:
    row(f"fuzz, --hostile-schema {kind}",
        ["fuzz", "--seed", "5", "--no-findings", "--tool", "hostile_" + kind.replace("-", "_"),
         "--", fixture, "--hostile-schema", kind])
every = [arg for kind in schemas for arg in ("--hostile-schema", kind)]
row("check, a modern server with every schema", ["check", "--no-replay", "--", fixture, "--modern", *every])
row("check, a listen stream that floods (2.5 s answers)",
    ["check", "--no-replay", "--timeout", "10s", "--", fixture, "--modern", "--listen", "--flood-listen", "2500"])
row("check, requestStates of 60 MiB", ["check", "--no-replay", "--", fixture, "--modern", "--huge-state", "60"])
PY
