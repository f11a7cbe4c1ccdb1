//! The tables of docs/laws.md that count the registry, held to it: the
//! requirements of each revision, and the coverage of the two public
//! registries that `scripts/registry-coverage.tsv` maps onto this one
//! (`scripts/registry-coverage.py` checks that map against their
//! checkouts; this test computes the tables from the map and the registry,
//! so they follow a law that comes or goes).

use std::collections::BTreeSet;

use super::{Observable, REGISTRY, requirement};
use crate::revision::Revision;

/// The families of the coverage tables, in their order.
const FAMILIES: &[&str] = &[
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
];

/// One row of the map: a clause of theirs and what it is here.
struct Row {
    source: String,
    revision: String,
    clause: String,
    family: String,
    /// The requirements it maps onto; empty for `-` and `not-stdio`.
    ids: Vec<String>,
    stdio: bool,
    /// Judged by their checks, or scored by their suite.
    theirs: bool,
}

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for (number, line) in read("scripts/registry-coverage.tsv").lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [source, revision, clause, family, ours, theirs] = fields[..] else {
            panic!("registry-coverage.tsv:{}: 6 fields expected", number + 1);
        };
        assert!(
            FAMILIES.contains(&family),
            "registry-coverage.tsv:{}: unknown family `{family}`",
            number + 1
        );
        assert!(
            ["checked", "unchecked", "scored", "not-scored"].contains(&theirs),
            "registry-coverage.tsv:{}: `{theirs}`",
            number + 1
        );
        let ids: Vec<String> = match ours {
            "-" | "not-stdio" => Vec::new(),
            ids => ids.split(',').map(str::to_owned).collect(),
        };
        for id in &ids {
            assert!(
                requirement(id).is_some(),
                "registry-coverage.tsv:{}: `{id}` is no requirement of the registry",
                number + 1
            );
        }
        rows.push(Row {
            source: source.to_owned(),
            revision: revision.to_owned(),
            clause: clause.to_owned(),
            family: family.to_owned(),
            ids,
            stdio: ours != "not-stdio",
            theirs: matches!(theirs, "checked" | "scored"),
        });
    }
    rows
}

/// One table as scripts/registry-coverage.py prints it.
fn table(rows: &[&Row], theirs_judged: bool) -> String {
    let mut text =
        String::from("| family | theirs on stdio | in the registry | judged here | in part |");
    let mut rule = String::from("|---|---|---|---|---|");
    if theirs_judged {
        text.push_str(" judged there |");
        rule.push_str("---|");
    }
    text.push('\n');
    text.push_str(&rule);
    text.push('\n');
    let judged = |id: &String| requirement(id).is_some_and(super::Requirement::judged);
    let mut totals = [0; 5];
    for family in FAMILIES {
        let stdio: Vec<&&Row> = rows
            .iter()
            .filter(|row| row.family == *family && row.stdio)
            .collect();
        if stdio.is_empty() {
            continue;
        }
        let held: Vec<&&&Row> = stdio.iter().filter(|row| !row.ids.is_empty()).collect();
        let full = held.iter().filter(|row| row.ids.iter().all(judged)).count();
        let part = held
            .iter()
            .filter(|row| row.ids.iter().any(judged) && !row.ids.iter().all(judged))
            .count();
        let there = stdio.iter().filter(|row| row.theirs).count();
        let counts = [stdio.len(), held.len(), full, part, there];
        for (total, count) in totals.iter_mut().zip(counts) {
            *total += count;
        }
        let cells = if theirs_judged {
            &counts[..]
        } else {
            &counts[..4]
        };
        let cells: Vec<String> = cells.iter().map(ToString::to_string).collect();
        text.push_str(&format!("| {family} | {} |\n", cells.join(" | ")));
    }
    let cells = if theirs_judged {
        &totals[..]
    } else {
        &totals[..4]
    };
    let cells: Vec<String> = cells.iter().map(|n| format!("**{n}**")).collect();
    text.push_str(&format!("| **all** | {} |\n", cells.join(" | ")));
    let off = rows.iter().filter(|row| !row.stdio).count();
    text.push_str(&format!(
        "\n{} in all, {off} of them binding only HTTP, authorization or a custom transport.\n",
        rows.len()
    ));
    text
}

#[test]
fn the_revision_table_counts_the_registry() {
    let mut expected = String::from(
        "| revision | requirements | judged by a law | not judged yet | not observable over stdio |\n|---|---|---|---|---|\n",
    );
    for revision in Revision::ALL {
        let asked: Vec<_> = REGISTRY
            .iter()
            .filter(|r| r.applies_to(*revision))
            .collect();
        let judged = asked.iter().filter(|r| r.judged()).count();
        let unseen = asked
            .iter()
            .filter(|r| matches!(r.observable, Observable::Not(_)))
            .count();
        expected.push_str(&format!(
            "| {revision} | {} | {judged} | {} | {unseen} |\n",
            asked.len(),
            asked.len() - judged - unseen
        ));
    }
    let docs = read("docs/laws.md");
    assert!(
        docs.contains(&expected),
        "docs/laws.md (\"The requirements\") should hold:\n{expected}"
    );
}

#[test]
fn the_coverage_tables_follow_the_map_and_the_registry() {
    let rows = rows();
    let mut seen = BTreeSet::new();
    for row in &rows {
        assert!(
            seen.insert((&row.source, &row.revision, &row.clause)),
            "{} of {} twice in registry-coverage.tsv",
            row.clause,
            row.revision
        );
    }
    let docs = read("docs/laws.md");
    for (source, title, scored_only) in [
        ("mcp-conformance", "tomtom215/mcp-conformance", false),
        ("conformance", "modelcontextprotocol/conformance", true),
    ] {
        for revision in ["2025-11-25", "2026-07-28"] {
            let chosen: Vec<&Row> = rows
                .iter()
                .filter(|row| {
                    row.source == source && row.revision == revision && (!scored_only || row.theirs)
                })
                .collect();
            assert!(!chosen.is_empty(), "{source} {revision}");
            let expected = format!(
                "#### {title}, {revision}\n\n{}",
                table(&chosen, !scored_only)
            );
            assert!(
                docs.contains(&expected),
                "docs/laws.md (\"Coverage\") should hold:\n{expected}"
            );
        }
    }
}
