//! The requirement registry: every requirement of the MCP revisions that a
//! peer on stdio can observe, each with a stable id, its level, the
//! revisions and capability it applies to, the law that judges it and where
//! the specification says it, in this project's own words.
//!
//! A law judges one or more requirements; a requirement no law judges yet
//! says so (`law: None`), and one stdio cannot observe (HTTP headers,
//! authorization, what a host shows its user) says why. Every run gives
//! each requirement an outcome (`report::RequirementStatus`): held, failed,
//! warned, not observed with why, or not applicable.
//!
//! Ids are stable: `<side>-<area>-<what>`, lowercase words joined by `-`,
//! the side `srv` for a server's duty and `host` for a host's. A finding
//! names the requirement it shows broken; a probe step or a replay names
//! each requirement it observed.

use std::fmt;
use std::io::{self, Write};

use super::{Cite, LawId};
use crate::revision::Revision;

/// Which side of a session a requirement binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The server: the process the host starts.
    Server,
    /// The host (client): the process that starts the server.
    Host,
}

impl Side {
    /// The name used in reports: `server` or `host`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Host => "host",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How strongly the specification asks (RFC 2119); a MUST NOT is a
/// [`Level::Must`] worded as a "never".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// MUST, MUST NOT, REQUIRED, SHALL.
    Must,
    /// SHOULD, SHOULD NOT, RECOMMENDED.
    Should,
    /// MAY, OPTIONAL: judged only where the peer chose to do it.
    May,
}

impl Level {
    /// The word used in reports: `MUST`, `SHOULD` or `MAY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a peer on stdio can see a requirement kept or broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observable {
    /// It shows in what crosses stdio, or in how the process ends.
    Stdio,
    /// It does not, and why (an HTTP header, authorization, a host's user
    /// interface, what a peer does with what it is sent).
    Not(&'static str),
}

/// One requirement of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Requirement {
    /// The stable id (`srv-ping-empty-result`).
    pub id: &'static str,
    /// The side it binds.
    pub side: Side,
    /// How strongly the specification asks.
    pub level: Level,
    /// The first revision that asks it.
    pub since: Revision,
    /// The last revision that asks it; `None` while the newest still does.
    pub until: Option<Revision>,
    /// The capability it applies under, as the peer declares it
    /// (`tools`, `prompts`, `resources`, `resources.subscribe`, `logging`,
    /// `completions`; a host's `roots`, `sampling`, `elicitation`); `None`
    /// when it applies to every session.
    pub capability: Option<&'static str>,
    /// The law that judges it; `None` when none does yet.
    pub law: Option<LawId>,
    /// Where the specification (or JSON-RPC 2.0) says it.
    pub cites: &'static [Cite],
    /// What it asks, in one line of this project's words.
    pub says: &'static str,
    /// Whether stdio shows it.
    pub observable: Observable,
}

impl Requirement {
    /// Whether `revision` asks this requirement.
    pub fn applies_to(&self, revision: Revision) -> bool {
        revision >= self.since && self.until.is_none_or(|until| revision <= until)
    }

    /// The revisions that ask it, oldest first.
    pub fn revisions(&self) -> Vec<Revision> {
        Revision::ALL
            .iter()
            .copied()
            .filter(|revision| self.applies_to(*revision))
            .collect()
    }
}

mod base;
#[cfg(test)]
mod coverage;
mod features;
mod host;

/// The revisions, by the names the parts use.
const R2024: Revision = Revision::V2024_11_05;
const R0326: Revision = Revision::V2025_03_26;
const R0618: Revision = Revision::V2025_06_18;
const R1125: Revision = Revision::V2025_11_25;
const R2026: Revision = Revision::V2026_07_28;

/// A requirement of the server, from `since` on, judged by `law` (`None`
/// when no law does yet), that stdio shows; `.until`, `.under` and
/// `.unseen` narrow it.
const fn srv(
    id: &'static str,
    level: Level,
    since: Revision,
    law: Option<LawId>,
    cites: &'static [Cite],
    says: &'static str,
) -> Requirement {
    Requirement {
        id,
        side: Side::Server,
        level,
        since,
        until: None,
        capability: None,
        law,
        cites,
        says,
        observable: Observable::Stdio,
    }
}

/// A requirement of the host, as [`srv`] makes one of the server.
const fn host(
    id: &'static str,
    level: Level,
    since: Revision,
    law: Option<LawId>,
    cites: &'static [Cite],
    says: &'static str,
) -> Requirement {
    Requirement {
        side: Side::Host,
        ..srv(id, level, since, law, cites, says)
    }
}

impl Requirement {
    /// The same requirement, asked until `revision` and not after.
    const fn until(mut self, revision: Revision) -> Requirement {
        self.until = Some(revision);
        self
    }

    /// The same requirement, asked only of a peer that declares
    /// `capability`.
    const fn under(mut self, capability: &'static str) -> Requirement {
        self.capability = Some(capability);
        self
    }

    /// The same requirement, which stdio does not show, and why.
    const fn unseen(mut self, why: &'static str) -> Requirement {
        self.observable = Observable::Not(why);
        self
    }

    /// The page of the specification it cites first (`server/tools`,
    /// `basic/transports/stdio`), or `JSON-RPC 2.0` for a requirement of
    /// JSON-RPC alone: what `mcp-replay laws` groups requirements by.
    pub fn page(&self) -> &'static str {
        self.cites
            .iter()
            .find_map(|cite| match *cite {
                Cite::Mcp(_, "", _) => Some("overview"),
                Cite::Mcp(_, page, _) => Some(page),
                Cite::JsonRpc(_) => Some("JSON-RPC 2.0"),
                _ => None,
            })
            .unwrap_or("JSON-RPC 2.0")
    }

    /// Whether a law of this build judges it: it names one, and the law is
    /// implemented (a reserved law judges nothing yet).
    pub fn judged(&self) -> bool {
        self.law.is_some_and(|law| {
            super::CATALOG
                .iter()
                .any(|entry| entry.id == law && entry.implemented)
        })
    }
}

/// Every part of the registry, in order: the server's duties, then the
/// host's.
const PARTS: &[&[Requirement]] = &[base::SERVER, features::SERVER, host::HOST];

/// How many requirements the registry holds.
const LEN: usize = {
    let mut len = 0;
    let mut part = 0;
    while part < PARTS.len() {
        len += PARTS[part].len();
        part += 1;
    }
    len
};

/// The parts joined into one array, at compile time.
static JOINED: [Requirement; LEN] = {
    let mut all = [PARTS[0][0]; LEN];
    let mut at = 0;
    let mut part = 0;
    while part < PARTS.len() {
        let mut index = 0;
        while index < PARTS[part].len() {
            all[at] = PARTS[part][index];
            at += 1;
            index += 1;
        }
        part += 1;
    }
    all
};

/// The registry, server duties first, each side in the order of the
/// specification's pages.
pub const REGISTRY: &[Requirement] = &JOINED;

/// The requirement with this id, if the registry has it.
pub fn requirement(id: &str) -> Option<&'static Requirement> {
    REGISTRY.iter().find(|requirement| requirement.id == id)
}

/// The requirements `law` judges, in registry order.
pub fn judged_by(law: LawId) -> impl Iterator<Item = &'static Requirement> {
    REGISTRY
        .iter()
        .filter(move |requirement| requirement.law == Some(law))
}

/// The revisions that ask `requirement`, in words: `2024-11-05 on`,
/// `2025-03-26`, or `2024-11-05 to 2025-11-25`.
fn span(requirement: &Requirement) -> String {
    match requirement.until {
        None => format!("{} on", requirement.since),
        Some(until) if until == requirement.since => until.to_string(),
        Some(until) => format!("{} to {until}", requirement.since),
    }
}

/// What judges `requirement`, in words: its law (marked when the law is
/// reserved), `not judged`, or `not observable`.
fn judge(requirement: &Requirement) -> String {
    match (requirement.law, requirement.observable) {
        (_, Observable::Not(_)) => "not observable".to_owned(),
        (None, Observable::Stdio) => "not judged".to_owned(),
        (Some(law), Observable::Stdio) if requirement.judged() => law.to_string(),
        (Some(law), Observable::Stdio) => format!("{law} (reserved)"),
    }
}

/// How many requirements of `side` there are, how many a law judges, and
/// how many stdio cannot show.
pub(crate) fn counts(side: Option<Side>) -> (usize, usize, usize) {
    let mut all = 0;
    let mut judged = 0;
    let mut unseen = 0;
    for requirement in REGISTRY {
        if side.is_some_and(|side| side != requirement.side) {
            continue;
        }
        all += 1;
        judged += usize::from(requirement.judged());
        unseen += usize::from(matches!(requirement.observable, Observable::Not(_)));
    }
    (all, judged, unseen)
}

/// The requirements grouped by side and page, in registry order.
fn groups() -> Vec<(Side, &'static str, Vec<&'static Requirement>)> {
    let mut groups: Vec<(Side, &'static str, Vec<&'static Requirement>)> = Vec::new();
    for requirement in REGISTRY {
        let key = (requirement.side, requirement.page());
        match groups
            .iter_mut()
            .find(|(side, page, _)| (*side, *page) == key)
        {
            Some((_, _, members)) => members.push(requirement),
            None => groups.push((key.0, key.1, vec![requirement])),
        }
    }
    groups
}

/// Writes the registry for people, after the law catalog: a count line,
/// then each side's pages, one line per requirement with its level, its
/// revisions, what judges it and its id (with the capability it applies
/// under).
pub(super) fn render_human(out: &mut dyn Write) -> io::Result<()> {
    let (all, judged, unseen) = counts(None);
    let (server, _, _) = counts(Some(Side::Server));
    let (host, _, _) = counts(Some(Side::Host));
    writeln!(out)?;
    writeln!(
        out,
        "{all} requirements of MCP {} to {} (server {server}, host {host}): \
         {judged} judged by a law, {} not judged yet, {unseen} not observable over stdio",
        Revision::ALL[0],
        Revision::LATEST,
        all - judged - unseen,
    )?;
    let width = REGISTRY
        .iter()
        .map(|requirement| judge(requirement).len())
        .max()
        .unwrap_or(0);
    let span_width = REGISTRY
        .iter()
        .map(|requirement| span(requirement).len())
        .max()
        .unwrap_or(0);
    for (side, page, members) in groups() {
        writeln!(out, "{side}: {page}")?;
        for requirement in members {
            let capability = requirement
                .capability
                .map(|capability| format!(" [{capability}]"))
                .unwrap_or_default();
            writeln!(
                out,
                "  {:6}  {:span_width$}  {:width$}  {}{capability}",
                requirement.level.as_str(),
                span(requirement),
                judge(requirement),
                requirement.id,
            )?;
        }
    }
    writeln!(
        out,
        "`mcp-replay laws --format json` gives each requirement's words and citation"
    )
}

/// Writes the registry as JSON Lines, after the law catalog: one object
/// per requirement, `"type": "requirement"`.
pub(super) fn render_json(out: &mut dyn Write) -> io::Result<()> {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        id: &'a str,
        side: &'a str,
        level: &'a str,
        revisions: Vec<&'a str>,
        capability: Option<&'a str>,
        law: Option<&'a str>,
        judged: bool,
        observable: bool,
        unobservable: Option<&'a str>,
        cite: String,
        says: &'a str,
    }
    for requirement in REGISTRY {
        let unobservable = match requirement.observable {
            Observable::Stdio => None,
            Observable::Not(why) => Some(why),
        };
        let line = Line {
            kind: "requirement",
            id: requirement.id,
            side: requirement.side.as_str(),
            level: requirement.level.as_str(),
            revisions: requirement
                .revisions()
                .into_iter()
                .map(Revision::as_str)
                .collect(),
            capability: requirement.capability,
            law: requirement.law.map(LawId::as_str),
            judged: requirement.judged(),
            observable: unobservable.is_none(),
            unobservable,
            cite: super::render_cites(requirement.cites),
            says: requirement.says,
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        for requirement in REGISTRY {
            assert!(seen.insert(requirement.id), "{} twice", requirement.id);
            let prefix = match requirement.side {
                Side::Server => "srv-",
                Side::Host => "host-",
            };
            assert!(requirement.id.starts_with(prefix), "{}", requirement.id);
            assert!(
                requirement
                    .id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                requirement.id
            );
        }
    }

    #[test]
    fn every_requirement_applies_to_some_revision_and_cites_a_source() {
        for requirement in REGISTRY {
            assert!(!requirement.revisions().is_empty(), "{}", requirement.id);
            assert!(
                requirement.cites.iter().any(|cite| cite.target().is_some()),
                "{} cites nothing that opens",
                requirement.id
            );
            assert!(!requirement.says.is_empty(), "{}", requirement.id);
        }
    }

    #[test]
    fn a_requirement_stdio_cannot_observe_has_no_law() {
        for requirement in REGISTRY {
            if let Observable::Not(why) = requirement.observable {
                assert!(requirement.law.is_none(), "{}", requirement.id);
                assert!(!why.is_empty(), "{}", requirement.id);
            }
        }
    }

    #[test]
    fn revisions_run_forward_and_capabilities_are_declared_ones() {
        let known = [
            "tools",
            "tools.listChanged",
            "resources",
            "resources.listChanged",
            "resources.subscribe",
            "prompts",
            "prompts.listChanged",
            "logging",
            "completions",
            "tasks",
            "roots",
            "roots.listChanged",
            "sampling",
            "elicitation",
        ];
        for requirement in REGISTRY {
            if let Some(until) = requirement.until {
                assert!(until >= requirement.since, "{}", requirement.id);
            }
            if let Some(capability) = requirement.capability {
                assert!(
                    known.contains(&capability),
                    "{}: {capability}",
                    requirement.id
                );
            }
        }
    }

    #[test]
    fn a_requirement_is_judged_by_a_law_of_its_side() {
        for requirement in REGISTRY {
            if let Some(law) = requirement.law {
                assert_eq!(
                    law.as_str().starts_with("host-"),
                    requirement.side == Side::Host,
                    "{} is judged by {law}",
                    requirement.id
                );
            }
        }
    }

    /// The laws that rest on no requirement of MCP: the core profile's own
    /// contracts (a banner before the first message, the exit status of
    /// SIGTERM, the command line) and the recording.
    const NO_REQUIREMENT: &[LawId] = &[
        LawId::QuietBeforeServing,
        LawId::SigtermExit143,
        LawId::TranscriptMatch,
        LawId::HelpDoesNotServe,
        LawId::BadFlagExits2,
    ];

    #[test]
    fn every_law_judges_a_requirement_but_those_of_the_core_contracts_alone() {
        for law in LawId::ALL {
            let judges = judged_by(*law).count();
            if NO_REQUIREMENT.contains(law) {
                assert_eq!(judges, 0, "{law} is listed as judging no requirement");
            } else {
                assert!(judges > 0, "{law} judges no requirement of the registry");
            }
        }
    }

    #[test]
    fn the_registry_is_told_by_side_and_page() {
        let mut human = Vec::new();
        render_human(&mut human).unwrap();
        let human = String::from_utf8(human).unwrap();
        for requirement in REGISTRY {
            let line = human
                .lines()
                .find(|line| line.split_whitespace().any(|word| word == requirement.id))
                .unwrap_or_else(|| panic!("no line for {}", requirement.id));
            assert!(
                line.trim_start().starts_with(requirement.level.as_str()),
                "{line}"
            );
            assert!(line.contains(&judge(requirement)), "{line}");
        }
        assert!(human.contains("server: server/tools\n"), "{human}");
        assert!(human.contains("host: basic/patterns/mrtr\n"), "{human}");
        let line = human
            .lines()
            .find(|line| line.ends_with(" srv-ping-empty-result"))
            .unwrap();
        assert_eq!(
            line.split_whitespace().collect::<Vec<_>>(),
            [
                "MUST",
                "2024-11-05",
                "to",
                "2025-11-25",
                "ping",
                "srv-ping-empty-result"
            ]
        );
        let line = human
            .lines()
            .find(|line| line.contains(" srv-tools-list-order"))
            .unwrap();
        assert!(line.ends_with("srv-tools-list-order [tools]"), "{line}");
        let (all, judged, unseen) = counts(None);
        assert_eq!(all, REGISTRY.len());
        assert!(human.contains(&format!(
            "{all} requirements of MCP 2024-11-05 to 2026-07-28 (server {}, host {}): {judged} judged by a law, {} not judged yet, {unseen} not observable over stdio",
            counts(Some(Side::Server)).0,
            counts(Some(Side::Host)).0,
            all - judged - unseen
        )));
    }

    #[test]
    fn the_registry_is_one_json_line_per_requirement() {
        let mut json = Vec::new();
        render_json(&mut json).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), REGISTRY.len());
        assert!(lines.iter().all(|line| line["type"] == "requirement"));
        let ping = lines
            .iter()
            .find(|line| line["id"] == "srv-ping-empty-result")
            .unwrap();
        assert_eq!(
            ping,
            &serde_json::json!({
                "type": "requirement",
                "id": "srv-ping-empty-result",
                "side": "server",
                "level": "MUST",
                "revisions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"],
                "capability": null,
                "law": "ping",
                "judged": true,
                "observable": true,
                "unobservable": null,
                "cite": "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping#behavior-requirements",
                "says": "ping is answered promptly with an empty result",
            })
        );
        let auth = lines
            .iter()
            .find(|line| line["id"] == "srv-auth-http-only")
            .unwrap();
        assert_eq!(auth["observable"], false);
        assert_eq!(auth["judged"], false);
        assert!(auth["unobservable"].as_str().unwrap().contains("HTTP"));
    }
}
