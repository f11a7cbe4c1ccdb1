//! The checks one call is held to, each a law of the catalog:
//!
//! - `request-answered-once`: the call is answered within the call
//!   deadline, the server does not end on it, and it answers the next
//!   request after it (JSON-RPC 2.0 §5: every request gets its response);
//! - `tool-error-is-result`: arguments that break the inputSchema get a
//!   result with `isError: true` and a text report (or error -32602 where
//!   neither the profile nor the revision makes it a result), and valid
//!   arguments never get a JSON-RPC error (MCP-CORE r1 §3¶19; MCP
//!   2025-11-25 server/tools#error-handling);
//! - `stdout-is-protocol`: nothing the call makes the server write on
//!   stdout is anything but a message;
//! - `schema`: the answer validates against the revision's
//!   `CallToolResult`, and the `structuredContent` of a successful call
//!   against the tool's `outputSchema` (the client judges both).
//!
//! A valid case answered with an `isError` result is no finding (tools
//! fail for reasons of their own); the report counts them. Unjudged cases
//! are held only to the checks that hold whatever the arguments.

use serde_json::Value;

use super::conn::{Lost, error_words};
use crate::client::Answer;
use crate::jsonrpc::ErrorCode;
use crate::laws::LawId;
use crate::schema::judge::Verdict;

/// What kind of failure a call showed; with the detail, it tells two
/// failures of one tool apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Kind {
    /// The server ended before answering.
    Crashed,
    /// No answer within the call deadline.
    Hung,
    /// Answered, then did not answer the next request.
    StoppedAnswering,
    /// A line on stdout that is no message.
    Noise,
    /// Valid arguments got a JSON-RPC error.
    ErrorForValid,
    /// Invalid arguments got a JSON-RPC error the profile and revision do
    /// not allow.
    ErrorForInvalid,
    /// Invalid arguments got a successful result.
    AcceptedInvalid,
    /// Invalid arguments got an `isError` result without a text report.
    ErrorWithoutText,
    /// The answer breaks the schema or the tool's `outputSchema`.
    Schema,
    /// The call was answered more than once, or with an id of another type.
    AnsweredTwice,
}

impl Kind {
    /// The law the failure breaks.
    pub(super) fn law(self) -> LawId {
        match self {
            Kind::Crashed | Kind::Hung | Kind::StoppedAnswering | Kind::AnsweredTwice => {
                LawId::RequestAnsweredOnce
            }
            Kind::Noise => LawId::StdoutIsProtocol,
            Kind::ErrorForValid
            | Kind::ErrorForInvalid
            | Kind::AcceptedInvalid
            | Kind::ErrorWithoutText => LawId::ToolErrorIsResult,
            Kind::Schema => LawId::Schema,
        }
    }

    /// The failure's name in a transcript's file name.
    pub(super) fn slug(self) -> &'static str {
        match self {
            Kind::Crashed => "crash",
            Kind::Hung => "hang",
            Kind::StoppedAnswering => "stops-answering",
            Kind::Noise => "stdout",
            Kind::ErrorForValid => "error-for-valid",
            Kind::ErrorForInvalid => "error-for-invalid",
            Kind::AcceptedInvalid => "accepts-invalid",
            Kind::ErrorWithoutText => "error-without-text",
            Kind::Schema => "schema",
            Kind::AnsweredTwice => "answered-twice",
        }
    }
}

/// One failure of one call.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Failure {
    pub kind: Kind,
    /// What tells failures of one kind apart: the error code, the keyword
    /// the arguments break.
    pub detail: String,
    /// What happened, in words.
    pub message: String,
    /// The requirement of the registry it shows broken, where that is
    /// known (a result that breaks the tool's `outputSchema`:
    /// `srv-tools-output-schema`).
    pub requirement: Option<&'static str>,
}

/// Everything one call brought, read in lockstep (alone) or from a
/// pipelined run.
#[derive(Debug, Clone)]
pub(super) struct Observed {
    /// Its answer, or why none came.
    pub answer: Result<Answer, Lost>,
    /// How the server ended, when it closed stdout.
    pub exit: Option<String>,
    /// The next request sent after the answer (its method), and what came
    /// of it; `None` when none was sent.
    pub next: Option<(&'static str, Result<Answer, Lost>)>,
    /// Lines that were no message, seen before the next request's answer.
    pub noise: Vec<String>,
    /// The client's observations about the call (`schema`,
    /// `request-answered-once`), in words.
    pub observations: Vec<(LawId, String, Option<&'static str>)>,
}

/// How a check is graded in this run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    /// Invalid arguments may be error -32602 instead of an `isError`
    /// result: neither the profile (`core` asks a result in every revision)
    /// nor the revision (2025-11-25 on) makes them a result.
    pub invalid_may_be_error: bool,
}

/// What one call came to: its failures, and whether it was a valid case
/// answered with an `isError` result.
pub(super) fn classify(
    observed: &Observed,
    verdict: &Verdict,
    rules: &Rules,
) -> (Vec<Failure>, bool) {
    let mut failures = Vec::new();
    let mut failures_of = |kind: Kind, detail: String, message: String, requirement| {
        failures.push(Failure {
            kind,
            detail,
            message,
            requirement,
        });
    };
    let mut fail = |kind: Kind, detail: String, message: String| {
        failures_of(kind, detail, message, None);
    };
    let mut valid_is_error = false;
    match &observed.answer {
        Err(Lost::Closed) => fail(
            Kind::Crashed,
            String::new(),
            format!(
                "the server {} before answering the call",
                observed.exit.as_deref().unwrap_or("closed stdout")
            ),
        ),
        Err(Lost::Timeout(wait)) => fail(
            Kind::Hung,
            String::new(),
            format!(
                "no answer to the call within {}; the server was stopped",
                super::seconds(*wait)
            ),
        ),
        // The run ended first: nothing is known of the call.
        Err(Lost::Budget) => {}
        Ok(Err(error)) => match verdict {
            Verdict::Valid => fail(
                Kind::ErrorForValid,
                error.code.to_string(),
                format!(
                    "valid arguments got {}: a tool that fails answers a result with isError: true, and a protocol error is for a malformed request",
                    error_words(error)
                ),
            ),
            Verdict::Invalid(broken) if !rules.invalid_may_be_error => fail(
                Kind::ErrorForInvalid,
                error.code.to_string(),
                format!(
                    "arguments that break the inputSchema ({broken}) got {}; they are a tool's failure: a result with isError: true",
                    error_words(error)
                ),
            ),
            Verdict::Invalid(broken) if error.code != ErrorCode::INVALID_PARAMS => fail(
                Kind::ErrorForInvalid,
                error.code.to_string(),
                format!(
                    "arguments that break the inputSchema ({broken}) got {}; they are error -32602 (invalid params) or a result with isError: true",
                    error_words(error)
                ),
            ),
            _ => {}
        },
        Ok(Ok(result)) => {
            let is_error = result.get("isError") == Some(&Value::Bool(true));
            // A 2026-07-28 server may ask for more input instead of
            // answering: that says nothing of the arguments.
            let complete = result
                .get("resultType")
                .and_then(Value::as_str)
                .is_none_or(|kind| kind == "complete");
            match verdict {
                Verdict::Valid if is_error => valid_is_error = true,
                Verdict::Invalid(broken) if complete && !is_error => fail(
                    Kind::AcceptedInvalid,
                    broken.keyword.clone(),
                    format!(
                        "accepted arguments that break the inputSchema ({broken}): the result has no isError: true"
                    ),
                ),
                Verdict::Invalid(_) if is_error && !has_text(result) => fail(
                    Kind::ErrorWithoutText,
                    String::new(),
                    "refused arguments that break the inputSchema with an isError result without a text report in `content`".to_owned(),
                ),
                _ => {}
            }
        }
    }
    if let Some((name, next)) = &observed.next {
        match next {
            Err(Lost::Closed) => fail(
                Kind::StoppedAnswering,
                String::new(),
                format!(
                    "answered the call, then {} before answering the next request (`{name}`)",
                    observed.exit.as_deref().unwrap_or("closed stdout")
                ),
            ),
            Err(Lost::Timeout(wait)) => fail(
                Kind::StoppedAnswering,
                String::new(),
                format!(
                    "answered the call, then did not answer the next request (`{name}`) within {}",
                    super::seconds(*wait)
                ),
            ),
            Err(Lost::Budget) | Ok(_) => {}
        }
    }
    if let Some(first) = observed.noise.first() {
        let more = match observed.noise.len() {
            1 => String::new(),
            n => format!(" ({n} such lines)"),
        };
        fail(
            Kind::Noise,
            String::new(),
            format!(
                "the call made the server write a stdout line that is no JSON-RPC message: `{first}`{more}"
            ),
        );
    }
    for (law, message, requirement) in &observed.observations {
        match law {
            LawId::Schema => {
                failures_of(Kind::Schema, String::new(), message.clone(), *requirement)
            }
            LawId::RequestAnsweredOnce => failures_of(
                Kind::AnsweredTwice,
                String::new(),
                message.clone(),
                *requirement,
            ),
            _ => {}
        }
    }
    (failures, valid_is_error)
}

/// Whether a result carries a text block in `content`.
fn has_text(result: &Value) -> bool {
    result
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|content| {
            content.iter().any(|block| {
                block.get("type").and_then(Value::as_str) == Some("text")
                    && block.get("text").is_some_and(Value::is_string)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::RpcError;
    use crate::schema::judge::Broken;
    use serde_json::json;
    use std::time::Duration;

    fn observed(answer: Result<Answer, Lost>) -> Observed {
        Observed {
            answer,
            exit: None,
            next: None,
            noise: Vec::new(),
            observations: Vec::new(),
        }
    }

    fn invalid() -> Verdict {
        Verdict::Invalid(Broken {
            pointer: "/limit".into(),
            keyword: "maximum".into(),
            message: "51 is out of bounds: `maximum` is 50".into(),
        })
    }

    fn error(code: i64) -> Answer {
        Err(RpcError {
            code: ErrorCode(code),
            message: "no".into(),
            data: None,
        })
    }

    fn kinds(observed: &Observed, verdict: &Verdict, may_be_error: bool) -> Vec<Kind> {
        let rules = Rules {
            invalid_may_be_error: may_be_error,
        };
        classify(observed, verdict, &rules)
            .0
            .into_iter()
            .map(|failure| failure.kind)
            .collect()
    }

    #[test]
    fn each_answer_is_graded_by_its_label() {
        let ok = observed(Ok(Ok(json!({"content": [{"type": "text", "text": "3"}]}))));
        let refused = observed(Ok(Ok(
            json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
        )));
        let mute = observed(Ok(Ok(json!({"content": [], "isError": true}))));
        let unjudged = Verdict::Unjudged("format".into());
        assert_eq!(kinds(&ok, &Verdict::Valid, false), []);
        assert_eq!(kinds(&ok, &invalid(), false), [Kind::AcceptedInvalid]);
        assert_eq!(kinds(&ok, &unjudged, false), []);
        assert_eq!(kinds(&refused, &invalid(), false), []);
        assert_eq!(kinds(&mute, &invalid(), false), [Kind::ErrorWithoutText]);
        // A valid case a tool refuses is counted, not a finding.
        let rules = Rules {
            invalid_may_be_error: false,
        };
        assert_eq!(
            classify(&refused, &Verdict::Valid, &rules),
            (Vec::new(), true)
        );
        // -32602 for invalid arguments: allowed only where the rules allow.
        let invalid_params = observed(Ok(error(-32602)));
        assert_eq!(kinds(&invalid_params, &invalid(), true), []);
        assert_eq!(
            kinds(&invalid_params, &invalid(), false),
            [Kind::ErrorForInvalid]
        );
        assert_eq!(
            kinds(&observed(Ok(error(-32603))), &invalid(), true),
            [Kind::ErrorForInvalid]
        );
        assert_eq!(
            kinds(&invalid_params, &Verdict::Valid, true),
            [Kind::ErrorForValid]
        );
        assert_eq!(kinds(&invalid_params, &unjudged, false), []);
    }

    #[test]
    fn lost_answers_whatever_the_label() {
        for verdict in [Verdict::Valid, invalid(), Verdict::Unjudged("x".into())] {
            assert_eq!(
                kinds(&observed(Err(Lost::Closed)), &verdict, true),
                [Kind::Crashed]
            );
            assert_eq!(
                kinds(
                    &observed(Err(Lost::Timeout(Duration::from_secs(5)))),
                    &verdict,
                    true
                ),
                [Kind::Hung]
            );
        }
        let mut stopped = observed(Ok(Ok(json!({"content": []}))));
        stopped.next = Some(("ping", Err(Lost::Timeout(Duration::from_secs(5)))));
        stopped.noise.push("debug: here".into());
        assert_eq!(
            kinds(&stopped, &Verdict::Valid, true),
            [Kind::StoppedAnswering, Kind::Noise]
        );
    }
}
