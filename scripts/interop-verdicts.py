"""Judges a run of scripts/interop.sh: the check verdicts against the expected
ones, their stability across runs, and the recorder's invisibility.

Usage: python3 interop-verdicts.py --expected FILE --scratch DIR --runs N
           --servers "a b" --hosts "x y"

Reads SCRATCH/results/<server>.<profile>.<run>.jsonl (the JSON report of
`mcp-replay check`) and .exit, SCRATCH/transcripts/ and SCRATCH/answers/.
Prints the tables, writes SCRATCH/results/summary.json (every law's outcome
and every finding's message, for docs/real-servers.md), and exits 1 when a
verdict is unexpected or unstable or the recorder changed an answer.
"""

import argparse
import json
import re
import sys
from pathlib import Path

PROFILES = ("core", "spec")

# What may differ between two sessions of the same host and server: the same
# kinds of value that `check` takes for noise on its own (docs/ci.md, "Noise").
DATETIME = re.compile(
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"
)
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def mask(value):
    if isinstance(value, str):
        return UUID.sub("<uuid>", DATETIME.sub("<datetime>", value))
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    return value


def read_expected(path):
    """{(server, profile): (exit, laws, replay)} from the expected-verdicts file."""
    expected = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 5:
            sys.exit(f"{path}:{number}: expected `server profile exit laws replay`, got {line!r}")
        server, profile, code, laws, replay = fields
        names = [] if laws == "-" else laws.split(",")
        required = frozenset(n for n in names if not n.endswith("?"))
        optional = frozenset(n[:-1] for n in names if n.endswith("?"))
        expected[(server, profile)] = (int(code), required, optional, replay)
    return expected


def without(got, optional):
    """A verdict with the laws that may come and go taken out."""
    code, laws, replay = got
    kept = [law for law in laws.split(",") if law and law not in optional]
    return (code, ",".join(kept), replay)


def as_expected(got, want):
    code, laws, replay = got
    laws = set(filter(None, laws.split(",")))
    return code == want[0] and want[1] <= laws <= want[1] | want[2] and replay == want[3]


def verdict(report_path, exit_path):
    """(exit, laws with findings, replay) of one check run, plus its details."""
    code = int(exit_path.read_text().strip())
    laws, replays, details = set(), [], {"laws": {}, "findings": [], "notes": {}, "errors": []}
    for line in report_path.read_text().splitlines():
        item = json.loads(line)
        kind = item["type"]
        if kind == "finding" and item["disposition"] in ("error", "warning"):
            laws.add(item["law"])
            details["findings"].append(
                {
                    "law": item["law"],
                    "severity": item["severity"],
                    "message": item["message"],
                    "where": item["location"].get("step") or f"{Path(item['location'].get('path', '')).name}:{item['location'].get('line')}",
                }
            )
        elif kind == "transcript":
            name = Path(item["path"]).stem
            replays.append((name, item["status"]))
            if item["notes"]:
                details["notes"][name] = item["notes"]
        elif kind == "law":
            details["laws"][item["law"]] = item["status"] + (f" ({item['reason']})" if item.get("reason") else "")
        elif kind == "error":
            details["errors"].append(item["message"])
            replays.append(("input", "error"))
    broken = [f"{name}:{status}" for name, status in replays if status != "pass"]
    replay = "green" if replays and not broken else ",".join(broken) or "none"
    return (code, ",".join(sorted(laws)), replay), details


def revisions(transcript):
    """The revisions a transcript's session spoke: from its `protocol` events
    (learnt from `initialize`), or else the revision its client's requests
    name in `_meta` (2026-07-28, which has no handshake)."""
    spoken, named = [], []
    for line in transcript.read_text().splitlines()[1:]:
        event = json.loads(line)
        if "protocol" in event and event["protocol"] not in spoken:
            spoken.append(event["protocol"])
        if event.get("dir") == "c2s" and isinstance(event["msg"], dict):
            meta = (event["msg"].get("params") or {}).get("_meta") or {}
            revision = meta.get("io.modelcontextprotocol/protocolVersion")
            if revision and revision not in named:
                named.append(revision)
    return spoken or named


def markdown(summary, servers):
    """Each law's outcome per server, one table per profile, for docs/real-servers.md."""
    words = {"pass": "held", "fail": "**fail**", "warn": "warn", "skip": "skip", "waived": "waived", "known": "known"}
    text = []
    for profile in PROFILES:
        laws = []
        for server in servers:
            for law in summary["servers"][server]["profiles"][profile]["outcomes"]:
                if law not in laws:
                    laws.append(law)
        text.append(f"### `--profile {profile}`\n")
        text.append("| law | " + " | ".join(servers) + " |")
        text.append("|---|" + "---|" * len(servers))
        for law in laws:
            cells = []
            for server in servers:
                seen = summary["servers"][server]["profiles"][profile]["outcomes"].get(law, [])
                cells.append(" / ".join(words.get(o, o) for o in seen) or "-")
            text.append(f"| `{law}` | " + " | ".join(cells) + " |")
        replay = []
        for server in servers:
            verdicts = summary["servers"][server]["profiles"][profile]["verdicts"]
            green = sum(1 for v in verdicts if v[2] == "green")
            replay.append(f"{green}/{len(verdicts)} green")
        text.append("| replay (`transcript-match`) | " + " | ".join(replay) + " |")
        text.append("")
    return "\n".join(text) + "\n"


def findings_table(summary, servers):
    """Every finding of each server under `--profile spec`, in the first
    run: the table docs/real-servers.md argues, one row per law and server,
    with one message of each."""
    text = ["| server | law | severity | what the server did (first message) |", "|---|---|---|---|"]
    for server in servers:
        seen = {}
        for finding in summary["servers"][server]["profiles"]["spec"]["findings"]:
            seen.setdefault((finding["law"], finding["severity"]), finding["message"])
        if not seen:
            text.append(f"| {server} | - | - | no finding |")
        for (law, severity), message in sorted(seen.items()):
            message = message.replace("|", "\\|").replace("\n", " ")
            if len(message) > 220:
                message = message[:217] + "..."
            text.append(f"| {server} | `{law}` | {severity} | {message} |")
    return "\n".join(text) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--expected", required=True)
    parser.add_argument("--scratch", required=True, type=Path)
    parser.add_argument("--runs", required=True, type=int)
    parser.add_argument("--servers", required=True)
    parser.add_argument("--hosts", required=True)
    args = parser.parse_args()
    expected = read_expected(args.expected)
    results = args.scratch / "results"
    servers, hosts = args.servers.split(), args.hosts.split()
    ok = True
    summary = {"servers": {}}

    print()
    print(f"{'server':<20} {'profile':<7} {'exit':<4} {'laws with findings':<58} {'replay':<8} {'stable':<7} verdict")
    for server in servers:
        entry = summary["servers"].setdefault(server, {"transcripts": {}, "profiles": {}})
        for profile in PROFILES:
            seen, first, outcomes = [], None, {}
            for run in range(1, args.runs + 1):
                got, details = verdict(
                    results / f"{server}.{profile}.{run}.jsonl", results / f"{server}.{profile}.{run}.exit"
                )
                seen.append(got)
                first = first or details
                for law, outcome in details["laws"].items():
                    outcomes.setdefault(law, [])
                    if outcome.split(" ")[0] not in outcomes[law]:
                        outcomes[law].append(outcome.split(" ")[0])
            want = expected.get((server, profile))
            # A law the expected file marks `law?` comes and goes with a race
            # in the server itself; every other part of the verdict must be
            # the same in every run.
            optional = want[2] if want else frozenset()
            distinct = sorted(set(seen), key=seen.index)
            stable = len({without(v, optional) for v in seen}) == 1
            matches = stable and want is not None and all(as_expected(v, want) for v in seen)
            ok &= matches
            code, laws, replay = distinct[0]
            shown = ",".join(
                law + (f"({sum(law in v[1].split(',') for v in seen)}/{len(seen)})" if law in optional else "")
                for law in sorted({law for v in seen for law in v[1].split(",") if law})
            )
            word = "ok" if matches else ("FLAKY" if not stable else "UNEXPECTED")
            print(f"{server:<20} {profile:<7} {code:<4} {shown or '-':<58} {replay:<8} {'yes' if stable else 'NO':<7} {word}")
            if not stable:
                for verdict_seen in distinct:
                    runs = [i + 1 for i, v in enumerate(seen) if v == verdict_seen]
                    print(f"    runs {runs}: exit {verdict_seen[0]}, laws {verdict_seen[1] or '-'}, replay {verdict_seen[2]}")
            elif not matches:
                print(
                    f"    expected: exit {want[0]}, laws {','.join(sorted(want[1])) or '-'}"
                    f" (may add {','.join(sorted(want[2])) or 'none'}), replay {want[3]}"
                    if want
                    else "    no expected verdict"
                )
            entry["profiles"][profile] = {"verdicts": [list(v) for v in seen], "outcomes": outcomes, **first}

    print()
    print(f"{'transcript':<30} {'revisions':<24} recorder invisible")
    for server in servers:
        for host in hosts:
            name = f"{server}-{host}"
            transcript = args.scratch / "transcripts" / f"{name}.jsonl"
            spoken = revisions(transcript)
            direct = json.loads((args.scratch / "answers" / f"{name}.direct.json").read_text())
            recorded = json.loads((args.scratch / "answers" / f"{name}.recorded.json").read_text())
            same = mask(direct) == mask(recorded)
            ok &= same
            steps = len(direct)
            print(f"{name:<30} {','.join(spoken):<24} {'yes' if same else 'NO'} ({steps} answers)")
            if not same:
                for a, b in zip(mask(direct), mask(recorded)):
                    if a != b:
                        print(f"    step {a.get('step')}: without the recorder {json.dumps(a)[:300]}")
                        print(f"    {' ' * len('step ' + str(a.get('step')))}  through it        {json.dumps(b)[:300]}")
            summary["servers"][server]["transcripts"][host] = {"revisions": spoken, "invisible": same, "answers": steps}

    (results / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (results / "tables.md").write_text(markdown(summary, servers))
    (results / "findings.md").write_text(findings_table(summary, servers))
    print()
    print("all verdicts as expected and stable; the recorder changed no answer" if ok else "FAILED: see above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
