#!/usr/bin/env python3
"""How much of two public MCP conformance registries the requirement registry
of mcp-replay holds, and judges, family by family.

    scripts/registry-coverage.py MCP_CONFORMANCE_DIR CONFORMANCE_DIR [--laws FILE]

MCP_CONFORMANCE_DIR is a checkout of github.com/tomtom215/mcp-conformance (its
clauses are crates/mcp-conformance-core/registry/<revision>/*.json);
CONFORMANCE_DIR one of github.com/modelcontextprotocol/conformance (its scored
scenarios are requirements/<revision>.yaml). The registry comes from
`mcp-replay laws --format json` (target/debug/mcp-replay when it is built,
else the one on PATH), or from FILE holding that output.

scripts/registry-coverage.tsv maps each clause and scenario onto the ids of the
registry; the script fails when a clause or scenario of the checkouts has no
row there, or a row names an id the registry does not have, so the map keeps
up with both sides. It prints one Markdown table per source and revision, as
docs/laws.md ("Coverage") shows them. It is run by hand, not in CI: it needs
the two checkouts.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REVISIONS = ["2025-11-25", "2026-07-28"]
NOT_STDIO = "not-stdio"
FAMILIES = [
    "stdio transport",
    "base messages",
    "_meta",
    "JSON Schema",
    "icons",
    "lifecycle",
    "discover and versioning",
    "statelessness",
    "ping",
    "progress",
    "logging",
    "completion",
    "pagination",
    "caching",
    "tools",
    "resources",
    "prompts",
    "subscriptions",
    "MRTR",
    "sampling",
    "elicitation",
    "tasks",
    "HTTP, authorization and custom transports",
]


def fail(message):
    print(f"registry-coverage: {message}", file=sys.stderr)
    sys.exit(2)


def registry(laws):
    """The requirements of `mcp-replay laws --format json`, by id."""
    if laws:
        with open(laws, encoding="utf-8") as file:
            text = file.read()
    else:
        built = os.path.join(ROOT, "target", "debug", "mcp-replay")
        binary = built if os.path.exists(built) else shutil.which("mcp-replay")
        if not binary:
            fail("no mcp-replay: build it (cargo build) or give --laws FILE")
        text = subprocess.run(
            [binary, "laws", "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {line["id"]: line for line in lines if line.get("type") == "requirement"}


def clauses(directory):
    """The clauses of mcp-conformance, per revision: id -> whether a check judges it."""
    found = {}
    for revision in REVISIONS:
        folder = os.path.join(
            directory, "crates", "mcp-conformance-core", "registry", revision
        )
        if not os.path.isdir(folder):
            fail(f"{folder} is no directory: is {directory} a checkout of mcp-conformance?")
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json") or name == "sources.json":
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as file:
                for clause in json.load(file)["requirements"]:
                    found[(revision, clause["id"])] = bool(clause.get("checks"))
    return found


def scenarios(directory):
    """The scenarios of the official suite, per revision: `leg/name` -> whether scored."""
    found = {}
    for revision in REVISIONS:
        path = os.path.join(directory, "requirements", f"{revision}.yaml")
        if not os.path.isfile(path):
            fail(f"{path} is no file: is {directory} a checkout of the conformance suite?")
        section = None
        last = None
        with open(path, encoding="utf-8") as file:
            for line in file:
                top = re.match(r"^([a-z_]+):", line)
                if top:
                    section = top.group(1)
                    continue
                entry = re.match(r"^  - scenario: (\S+)", line)
                if entry:
                    last = entry.group(1)
                    continue
                leg = re.match(r"^    leg: (\S+)", line)
                if leg and section == "not_scored" and last:
                    found[(revision, f"{leg.group(1)}/{last}")] = False
                    last = None
                    continue
                item = re.match(r"^  - (\S+)\s*$", line)
                if item and section in ("server", "client"):
                    found[(revision, f"{section}/{item.group(1)}")] = True
    return found


def mapping():
    """The rows of registry-coverage.tsv: (source, revision, clause) -> (family,
    ours, whether their check judges it or their suite scores it)."""
    rows = {}
    with open(os.path.join(HERE, "registry-coverage.tsv"), encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 6:
                fail(f"registry-coverage.tsv:{number}: expected 6 fields, found {len(fields)}")
            source, revision, clause, family, ours, flag = fields
            if family not in FAMILIES:
                fail(f"registry-coverage.tsv:{number}: unknown family `{family}`")
            key = (source, revision, clause)
            if key in rows:
                fail(f"registry-coverage.tsv:{number}: {clause} of {revision} twice")
            rows[key] = (family, ours, flag in ("checked", "scored"))
    return rows


def table(title, entries, theirs_judged):
    """One table: per family, their clauses that bind a stdio peer, how many
    this registry holds, how many a law of this build judges in full and in
    part; `theirs_judged` adds how many their own checks judge."""
    print(f"#### {title}\n")
    header = "| family | theirs on stdio | in the registry | judged here | in part |"
    rule = "|---|---|---|---|---|"
    if theirs_judged:
        header += " judged there |"
        rule += "---|"
    print(header)
    print(rule)
    totals = [0, 0, 0, 0, 0]
    for family in FAMILIES:
        members = [entry for entry in entries if entry["family"] == family]
        stdio = [entry for entry in members if entry["ours"] != NOT_STDIO]
        if not stdio:
            continue
        held = [entry for entry in stdio if entry["ids"]]
        full = [entry for entry in held if all(entry["judged"])]
        part = [entry for entry in held if any(entry["judged"]) and not all(entry["judged"])]
        there = [entry for entry in stdio if entry["checked"]]
        counts = [len(stdio), len(held), len(full), len(part), len(there)]
        totals = [a + b for a, b in zip(totals, counts)]
        cells = counts if theirs_judged else counts[:4]
        print(f"| {family} | " + " | ".join(str(n) for n in cells) + " |")
    cells = totals if theirs_judged else totals[:4]
    print("| **all** | " + " | ".join(f"**{n}**" for n in cells) + " |")
    off = sum(1 for entry in entries if entry["ours"] == NOT_STDIO)
    print(f"\n{len(entries)} in all, {off} of them binding only HTTP, authorization or a custom transport.\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mcp_conformance", help="a checkout of tomtom215/mcp-conformance")
    parser.add_argument("conformance", help="a checkout of modelcontextprotocol/conformance")
    parser.add_argument("--laws", help="the output of `mcp-replay laws --format json`")
    args = parser.parse_args()

    requirements = registry(args.laws)
    rows = mapping()
    theirs = {("mcp-conformance",) + key: value for key, value in clauses(args.mcp_conformance).items()}
    suite = {("conformance",) + key: value for key, value in scenarios(args.conformance).items()}
    known = {**theirs, **suite}
    for key, value in known.items():
        if key not in rows:
            fail(f"registry-coverage.tsv has no row for {key[2]} of {key[1]} ({key[0]})")
        if rows[key][2] != value:
            fail(f"registry-coverage.tsv says {key[2]} of {key[1]} is {'' if rows[key][2] else 'not '}judged or scored there, the checkout otherwise")
    for key, (_, ours, _) in rows.items():
        if key not in known:
            fail(f"registry-coverage.tsv maps {key[2]} of {key[1]} ({key[0]}), which the checkout does not have")
        if ours in (NOT_STDIO, "-"):
            continue
        for id in ours.split(","):
            if id not in requirements:
                fail(f"registry-coverage.tsv maps {key[2]} of {key[1]} to `{id}`, no requirement of the registry")

    def entries(source, revision, scored_only):
        res = []
        for key, (family, ours, flag) in rows.items():
            if key[0] != source or key[1] != revision or (scored_only and not flag):
                continue
            ids = [] if ours in (NOT_STDIO, "-") else ours.split(",")
            res.append(
                {
                    "family": family,
                    "ours": ours,
                    "ids": ids,
                    "judged": [requirements[id]["judged"] for id in ids],
                    "checked": flag and not scored_only,
                }
            )
        return res

    print("| revision | requirements | judged by a law | not judged yet | not observable over stdio |")
    print("|---|---|---|---|---|")
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18"] + REVISIONS:
        asked = [r for r in requirements.values() if revision in r["revisions"]]
        judged = sum(1 for r in asked if r["judged"])
        unseen = sum(1 for r in asked if not r["observable"])
        print(f"| {revision} | {len(asked)} | {judged} | {len(asked) - judged - unseen} | {unseen} |")
    print()
    for revision in REVISIONS:
        table(
            f"tomtom215/mcp-conformance, {revision}",
            entries("mcp-conformance", revision, False),
            True,
        )
    for revision in REVISIONS:
        table(
            f"modelcontextprotocol/conformance, {revision}",
            entries("conformance", revision, True),
            False,
        )

if __name__ == "__main__":
    main()
