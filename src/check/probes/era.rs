//! What the sessions found together about the eras and revisions a server
//! speaks, settled once every session is over.
//!
//! The sessions run side by side, so none can wait for another's verdict:
//! the legacy sessions open with `initialize` while the modern one opens
//! with `server/discover`. A server whose `server/discover` showed the
//! modern era and that refused `initialize` is modern-only (MCP 2026-07-28
//! basic/versioning): the laws of the legacy handshake are not owed, and
//! are skipped with the reason; `initialize` is then held to what the
//! revision asks of a modern-only server, an error that names the versions
//! it serves (MCP 2026-07-28 basic/versioning#backward-compatibility-with-initialization-based-versions,
//! a SHOULD: a warning under spec).
//! The era is never decided by one particular error code.
//!
//! The laws the legacy conversation and the modern session both probe (the
//! tool laws, `capabilities-honest`, and the laws of every era) are graded
//! in each era a server speaks: a dual-era server whose tools break only in
//! 2026-07-28 fails them in the modern era. Where the two eras' verdicts
//! differ, the law's outcome carries both ([`verdicts`]); the law is still
//! one outcome, counted once. For a modern-only server the modern session's
//! verdict replaces the legacy sessions' skips.
//!
//! The revisions answered to `initialize` are also held to each other:
//! a revision answered to a request for another one must be one the server
//! supports, so a request for that revision itself gets it back (L12–L13).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::jsonrpc::{ErrorCode, RpcError};
use crate::laws::{LawId, Profile, Severity};
use crate::report::LawStatus;
use crate::revision::Era;

use super::session::error_words;
use super::steps::CONVERSATION_LAWS;
use super::suite::{CONVERSATION, MODERN};
use super::{Ledger, Negotiated};

/// Where the lane `name`'s ledger stands among `ledgers`.
fn lane(ledgers: &[Ledger], name: &str) -> Option<usize> {
    ledgers.iter().position(|ledger| ledger.session == name)
}

/// The laws only the legacy handshake has.
const LEGACY_ONLY: &[LawId] = &[LawId::Initialize, LawId::Ping];

/// Settles the sessions' ledgers: the modern-only verdict, then the
/// revisions answered. Returns the verdicts of each era for the laws a
/// dual-era server fared otherwise in one era than in the other.
pub(super) fn settle(ledgers: &mut [Ledger]) -> BTreeMap<LawId, Vec<(Era, LawStatus)>> {
    let modern_only = modern_only(ledgers) || claims_modern(ledgers);
    if modern_only {
        modern_verdicts(ledgers);
    }
    negotiated(ledgers);
    if modern_only {
        BTreeMap::new()
    } else {
        verdicts(ledgers)
    }
}

/// The laws both the conversation and the modern session probe, for a
/// modern-only server: the modern session's verdict replaces what the
/// legacy sessions that could not open said.
fn modern_verdicts(ledgers: &mut [Ledger]) {
    let Some(modern) = lane(ledgers, MODERN) else {
        return;
    };
    for law in CONVERSATION_LAWS {
        if ledgers[modern].mentions(*law) {
            for ledger in ledgers.iter_mut().filter(|l| l.refused.is_some()) {
                ledger.withdraw(*law);
            }
        }
    }
}

/// The verdict of each era, for every law that sessions of both eras
/// checked and that fared otherwise in one than in the other: failed in
/// one and held in the other, or checked in one and skipped in the other.
/// Only a server that speaks both eras has them.
pub(super) fn verdicts(ledgers: &[Ledger]) -> BTreeMap<LawId, Vec<(Era, LawStatus)>> {
    let mut verdicts = BTreeMap::new();
    if lane(ledgers, MODERN).is_none_or(|modern| ledgers[modern].modern.is_none()) {
        return verdicts;
    }
    for law in LawId::ALL.iter().copied() {
        let legacy =
            Ledger::status_among(ledgers.iter().filter(|l| l.era == Some(Era::Legacy)), law);
        let modern =
            Ledger::status_among(ledgers.iter().filter(|l| l.era == Some(Era::Modern)), law);
        if let (Some(legacy), Some(modern)) = (legacy, modern)
            && std::mem::discriminant(&legacy) != std::mem::discriminant(&modern)
        {
            verdicts.insert(law, vec![(Era::Legacy, legacy), (Era::Modern, modern)]);
        }
    }
    verdicts
}

/// A server that refused `initialize` with -32022 naming 2026-07-28, and
/// whose `server/discover` showed no modern era: it claims 2026-07-28,
/// where `server/discover` is a MUST (MCP 2026-07-28 server/discover), so
/// the finding is `discover`, and the handshake it rightly refuses is not
/// owed (its legacy laws are skipped as a modern-only server's). Returns
/// whether the server claims the modern era so.
fn claims_modern(ledgers: &mut [Ledger]) -> bool {
    let (Some(modern_lane), Some(conversation)) =
        (lane(ledgers, MODERN), lane(ledgers, CONVERSATION))
    else {
        return false;
    };
    let Some(no_discover) = ledgers[modern_lane].no_discover.clone() else {
        return false;
    };
    let Some(error) = ledgers[conversation].refused.clone() else {
        return false;
    };
    let modern = crate::revision::Revision::V2026_07_28.as_str();
    if error.code != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        || !names_versions(&error, &[modern.to_owned()])
    {
        return false;
    }
    let reason = format!(
        "the server speaks 2026-07-28 only: initialize answered {}, and {no_discover}",
        error_words(&error)
    );
    only_modern(ledgers, &reason);
    let session = &mut ledgers[modern_lane];
    session.withdraw(LawId::Discover);
    session.fail(
        LawId::Discover,
        "server/discover",
        format!(
            "{no_discover}, but initialize answered {}, which names {modern}: a server that speaks {modern} must implement server/discover",
            error_words(&error)
        ),
    );
    session.names("srv-discover-answers");
    for why in session.skipped.values_mut() {
        *why = reason.clone();
    }
    ledgers[conversation].skip(LawId::Ping, reason);
    ledgers[conversation].held(LawId::Initialize);
    true
}

/// What a server that speaks 2026-07-28 alone does not owe: the findings
/// of the legacy handshake in the sessions `initialize` was refused in,
/// whose skips are given `reason` and whose findings belong to the modern
/// era.
fn only_modern(ledgers: &mut [Ledger], reason: &str) {
    for ledger in ledgers.iter_mut().filter(|l| l.refused.is_some()) {
        for law in LEGACY_ONLY {
            ledger.forget(*law);
        }
        // What the session could not reach, it could not reach because the
        // server has no legacy session to open.
        for why in ledger.skipped.values_mut() {
            *why = reason.to_owned();
        }
        for finding in &mut ledger.findings {
            finding.era = Some(Era::Modern);
        }
        ledger.era = Some(Era::Modern);
    }
}

/// The modern-only verdict; returns whether the server is modern-only.
fn modern_only(ledgers: &mut [Ledger]) -> bool {
    let (Some(modern), Some(conversation)) = (lane(ledgers, MODERN), lane(ledgers, CONVERSATION))
    else {
        return false;
    };
    let Some(versions) = ledgers[modern].modern.clone() else {
        return false;
    };
    // The conversation opens with the one revision every legacy server
    // speaks: its refusal is the server's answer to the legacy era.
    let Some(error) = ledgers[conversation].refused.clone() else {
        return false;
    };
    let reason = format!(
        "the server speaks 2026-07-28 only: server/discover showed the modern era, and initialize answered {}",
        error_words(&error)
    );
    only_modern(ledgers, &reason);
    let conversation = &mut ledgers[conversation];
    conversation.skip(LawId::Ping, reason);
    if names_versions(&error, &versions) {
        conversation.held(LawId::Initialize);
    } else {
        let severity = match conversation.profile() {
            Profile::Core => Severity::Error,
            Profile::Spec => Severity::Warning,
        };
        conversation.fail_as(
            LawId::Initialize,
            severity,
            "initialize",
            format!(
                "a modern-only server refused initialize with {}, which names none of the versions it serves; the error should list them (`data.supported`)",
                error_words(&error)
            ),
        );
        conversation.names("srv-init-modern-only-names-versions");
    }
    true
}

/// Whether a refusal of `initialize` names the versions the server serves:
/// a `data.supported` list of version strings, or one of the versions its
/// `DiscoverResult` named anywhere in the message or data.
fn names_versions(error: &RpcError, versions: &[String]) -> bool {
    let listed = error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array)
        .is_some_and(|list| !list.is_empty() && list.iter().all(Value::is_string));
    let data = error
        .data
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    listed
        || versions.iter().any(|version| {
            error.message.contains(version.as_str()) || data.contains(version.as_str())
        })
}

/// `initialize`: a revision answered to a request for another is one the
/// server supports, so a request for it gets it back.
fn negotiated(ledgers: &mut [Ledger]) {
    let all: Vec<Negotiated> = ledgers
        .iter()
        .flat_map(|ledger| ledger.negotiated.iter().cloned())
        .collect();
    for ledger in ledgers.iter_mut() {
        for asked in ledger.negotiated.clone() {
            let Negotiated {
                requested,
                answered,
                step,
            } = asked;
            if requested == answered {
                continue;
            }
            let Some(other) = all
                .iter()
                .find(|n| n.requested == answered && n.answered != answered)
                .map(|n| &n.answered)
            else {
                continue;
            };
            ledger.fail(
                LawId::Initialize,
                &step,
                format!(
                    "answered revision {} to a request for {}, but a request for {} itself is answered {}: version negotiation answers a revision the server supports",
                    crate::jsonrpc::wire::quoted(answered.as_bytes()),
                    crate::jsonrpc::wire::quoted(requested.as_bytes()),
                    crate::jsonrpc::wire::quoted(answered.as_bytes()),
                    crate::jsonrpc::wire::quoted(other.as_bytes())
                ),
            );
            ledger.names("srv-init-other-version");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(message: &str, data: Option<Value>) -> RpcError {
        RpcError {
            code: ErrorCode(-32601),
            message: message.into(),
            data,
        }
    }

    #[test]
    fn a_refusal_names_versions_in_its_data_or_words() {
        let versions = ["2026-07-28".to_owned()];
        assert!(names_versions(
            &error("no", Some(json!({"supported": ["2026-07-28"]}))),
            &versions
        ));
        assert!(names_versions(
            &error("this server speaks 2026-07-28 only", None),
            &versions
        ));
        assert!(!names_versions(&error("Method not found", None), &versions));
        assert!(!names_versions(
            &error("no", Some(json!({"supported": []}))),
            &versions
        ));
    }

    fn ledger(name: &'static str) -> Ledger {
        Ledger::new("server".to_owned(), Profile::Core, name)
    }

    #[test]
    fn a_modern_only_server_owes_no_legacy_law() {
        let mut ledgers: Vec<Ledger> = ["conversation", "eof", "sigterm", "modern"]
            .into_iter()
            .map(ledger)
            .collect();
        let refusal = error("initialize is unknown", None);
        for ledger in &mut ledgers[..3] {
            ledger.fail(LawId::Initialize, "initialize", "refused");
            ledger.skip(LawId::CancelTolerated, "initialize failed");
            ledger.refused = Some(refusal.clone());
        }
        ledgers[3].modern = Some(vec!["2026-07-28".to_owned()]);
        settle(&mut ledgers);
        let conversation = &ledgers[0];
        // The refusal names no version: a finding of its own, no other.
        assert_eq!(conversation.findings.len(), 1);
        assert!(
            conversation.findings[0]
                .message
                .starts_with("a modern-only server refused")
        );
        assert_eq!(conversation.findings[0].era, Some(Era::Modern));
        assert!(ledgers[1].findings.is_empty());
        assert!(
            ledgers[1].skipped[&LawId::CancelTolerated]
                .starts_with("the server speaks 2026-07-28 only")
        );
    }

    #[test]
    fn the_tool_laws_are_graded_in_each_era() {
        let sessions = ["conversation", "eof", "sigterm", "modern"];
        // A dual-era server: each era's verdict stands, and where they
        // differ the law carries both.
        let mut ledgers: Vec<Ledger> = sessions.into_iter().map(ledger).collect();
        for ledger in &mut ledgers[..3] {
            ledger.era = Some(Era::Legacy);
        }
        ledgers[3].era = Some(Era::Modern);
        ledgers[0].held(LawId::ToolsListSorted);
        ledgers[0].held(LawId::UnknownTool);
        ledgers[0].held(LawId::ToolErrorIsResult);
        ledgers[3].modern = Some(vec!["2026-07-28".to_owned()]);
        ledgers[3].fail(LawId::ToolsListSorted, "tools/list", "unsorted");
        ledgers[3].held(LawId::UnknownTool);
        ledgers[3].skip(LawId::ToolErrorIsResult, "no schema");
        let verdicts = settle(&mut ledgers);
        assert_eq!(ledgers[3].findings.len(), 1);
        assert_eq!(
            verdicts[&LawId::ToolsListSorted],
            [
                (Era::Legacy, LawStatus::Held),
                (Era::Modern, LawStatus::Failed)
            ]
        );
        assert_eq!(
            verdicts[&LawId::ToolErrorIsResult],
            [
                (Era::Legacy, LawStatus::Held),
                (Era::Modern, LawStatus::Skipped("no schema".to_owned()))
            ]
        );
        // Eras that agree need no verdict of their own.
        assert!(!verdicts.contains_key(&LawId::UnknownTool));
        // A modern-only server: the modern session's verdict replaces the
        // skips of the sessions that could not open.
        let mut ledgers: Vec<Ledger> = sessions.into_iter().map(ledger).collect();
        for ledger in &mut ledgers[..3] {
            ledger.skip(LawId::ToolsListSorted, "initialize failed");
            ledger.skip(LawId::UnknownTool, "initialize failed");
            ledger.refused = Some(error("no", Some(json!({"supported": ["2026-07-28"]}))));
        }
        ledgers[3].modern = Some(vec!["2026-07-28".to_owned()]);
        ledgers[3].skip(LawId::ToolsListSorted, "the tool set changed");
        assert!(settle(&mut ledgers).is_empty());
        let mut all = ledger("");
        for ledger in ledgers {
            all.merge(ledger);
        }
        let report = all.into_report();
        assert_eq!(
            report.status(LawId::ToolsListSorted),
            Some(&crate::report::LawStatus::Skipped(
                "the tool set changed".to_owned()
            ))
        );
        // What the modern session did not reach keeps the legacy reason.
        match report.status(LawId::UnknownTool) {
            Some(crate::report::LawStatus::Skipped(reason)) => {
                assert!(
                    reason.starts_with("the server speaks 2026-07-28 only"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_server_that_claims_2026_without_server_discover_breaks_discover() {
        let mut ledgers: Vec<Ledger> = ["conversation", "eof", "sigterm", "modern"]
            .into_iter()
            .map(ledger)
            .collect();
        let refusal = RpcError {
            code: ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"supported": ["2026-07-28"], "requested": "2024-11-05"})),
        };
        for ledger in &mut ledgers[..3] {
            ledger.fail(
                LawId::Initialize,
                "initialize",
                "initialize answered error -32022",
            );
            ledger.refused = Some(refusal.clone());
        }
        ledgers[3].skip(LawId::Discover, "the server speaks no 2026-07-28");
        ledgers[3].no_discover = Some("server/discover answered error -32601 (\"no\")".to_owned());
        settle(&mut ledgers);
        assert!(ledgers[..3].iter().all(|l| !l.failed(LawId::Initialize)));
        let modern = &ledgers[3];
        assert_eq!(modern.findings.len(), 1, "{:?}", modern.findings);
        assert_eq!(modern.findings[0].law, LawId::Discover);
        assert!(
            modern.findings[0]
                .message
                .ends_with("must implement server/discover"),
            "{}",
            modern.findings[0].message
        );
        // A -32022 that names no 2026-07-28 claims no modern era.
        let mut ledgers: Vec<Ledger> = ["conversation", "eof", "sigterm", "modern"]
            .into_iter()
            .map(ledger)
            .collect();
        ledgers[0].fail(LawId::Initialize, "initialize", "refused");
        ledgers[0].refused = Some(error("no", None));
        ledgers[3].no_discover = Some("server/discover got no answer".to_owned());
        settle(&mut ledgers);
        assert!(ledgers[0].failed(LawId::Initialize));
        assert!(ledgers[3].findings.is_empty());
    }

    #[test]
    fn a_legacy_server_that_refuses_initialize_keeps_its_findings() {
        let mut ledgers: Vec<Ledger> = ["conversation", "eof", "sigterm", "modern"]
            .into_iter()
            .map(ledger)
            .collect();
        ledgers[0].fail(LawId::Initialize, "initialize", "refused");
        ledgers[0].refused = Some(error("no", None));
        settle(&mut ledgers);
        assert_eq!(ledgers[0].findings.len(), 1);
        assert_eq!(ledgers[0].findings[0].message, "refused");
    }

    #[test]
    fn an_answered_revision_must_be_one_the_server_answers_for_itself() {
        let mut ledgers: Vec<Ledger> = ["conversation", "eof", "sigterm", "modern", "2025-06-18"]
            .into_iter()
            .map(ledger)
            .collect();
        let asked = |requested: &str, answered: &str| Negotiated {
            requested: requested.to_owned(),
            answered: answered.to_owned(),
            step: format!("initialize for {requested}"),
        };
        ledgers[0]
            .negotiated
            .push(asked("2024-11-05", "2024-11-05"));
        ledgers[1]
            .negotiated
            .push(asked("1900-01-01", "2025-06-18"));
        ledgers[4]
            .negotiated
            .push(asked("2025-06-18", "2024-11-05"));
        settle(&mut ledgers);
        assert_eq!(ledgers[1].findings.len(), 1, "{:?}", ledgers[1].findings);
        assert_eq!(
            ledgers[1].findings[0].location,
            crate::report::Location::Probe {
                command: "server".to_owned(),
                step: "eof session: initialize for 1900-01-01".to_owned()
            }
        );
        assert!(
            ledgers[1].findings[0]
                .message
                .contains("a request for \"2025-06-18\" itself is answered \"2024-11-05\"")
        );
        // Answering 2024-11-05 to a request for 2025-06-18 is no lie: the
        // server answers 2024-11-05 to a request for it.
        assert!(ledgers[4].findings.is_empty());
    }
}
