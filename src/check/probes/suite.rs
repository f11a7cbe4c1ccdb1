//! The probe suite: every step, lane by lane, in the order each runs.
//!
//! This is the table of contents of the probes. A step says which
//! process it needs, when it applies, the laws it judges and the
//! requirements of the registry it observes; the functions it runs live
//! in the scripts (`conversation.rs`, `lifecycle.rs`, `modern.rs`, and
//! `steps.rs` for what several lanes share), and the runner (`runner.rs`)
//! schedules the steps onto processes. Adding a probe is declaring a step
//! here.
//!
//! A legacy server gets three processes (the conversation's, the quiet
//! start's, and the modern lane's, which goes on as the negotiation
//! lane's), a server that speaks 2026-07-28 five (the statelessness
//! probe's fresh process, and the negotiation lane's own): a server's
//! start is most of its cost, so the lanes share processes, and a step
//! that ends its process comes last in its lane.

use crate::jsonrpc::PROTOCOL_2024_11_05;
use crate::laws::LawId::{
    self, CancelTolerated, CapabilitiesHonest, Discover, EofDrains, EofExitZero, Initialize,
    InvalidParams, ListCacheHints, NotificationUnanswered, ParseErrorKeepsServing, Ping,
    QuietBeforeServing, RequestAnsweredOnce, Schema, SigtermExit143, ToolErrorIsResult,
    ToolsListSorted, ToolsListValid, UnknownMethod, UnknownTool,
};
use crate::laws::Profile;
use crate::revision::Era;

use super::session::Session;
use super::step::{Facts, Lane, Needs, Reopen, Start, Step, When};
use super::steps::SUCCESSFUL_CALL;
use super::{conversation, families, lifecycle, modern, steps};

/// The lane of the legacy conversation.
pub(super) const CONVERSATION: &str = "conversation";

/// The lane that starts beside the gate: the quiet start, 2025-03-26 after
/// a cancellation, and SIGTERM.
pub(super) const QUIET: &str = "2025-03-26";

/// The lane of the modern era.
pub(super) const MODERN: &str = "modern";

/// The lane of version negotiation.
pub(super) const NEGOTIATION: &str = "negotiation";

/// The lanes, in the order the report lists what they found.
pub(super) const LANES: &[Lane] = &[
    Lane {
        name: CONVERSATION,
        era: Era::Legacy,
        start: Start::First,
        steps: CONVERSATION_STEPS,
    },
    Lane {
        name: QUIET,
        era: Era::Legacy,
        start: Start::Beside,
        steps: QUIET_STEPS,
    },
    Lane {
        name: MODERN,
        era: Era::Modern,
        start: Start::Gated,
        steps: MODERN_STEPS,
    },
    Lane {
        name: NEGOTIATION,
        era: Era::Legacy,
        start: Start::After(MODERN),
        steps: NEGOTIATION_STEPS,
    },
];

/// A legacy session opened with revision 2024-11-05.
const LEGACY: Needs = Needs::Legacy(Reopen::At(PROTOCOL_2024_11_05));

/// The tool laws of an open session, in whichever era it speaks: the
/// tool list, the other capabilities declared, broken calls.
const TOOL_LIST: &[LawId] = &[
    CapabilitiesHonest,
    ToolsListValid,
    ToolsListSorted,
    Initialize,
    Discover,
];

/// The laws the prompts step judges.
const PROMPTS_LAWS: &[LawId] = &[CapabilitiesHonest, InvalidParams, ListCacheHints, Schema];

/// The requirements the prompts step observes.
const PROMPTS: &[&str] = &[
    "srv-prompts-list-served",
    "srv-prompts-errors",
    "srv-prompts-errors",
    "srv-pagination-stable-cursors",
    "srv-pagination-invalid-cursor",
    "srv-icons-src-uri",
    "srv-icons-sizes",
];

/// The laws the resources step judges.
const RESOURCES_LAWS: &[LawId] = &[CapabilitiesHonest, InvalidParams, ListCacheHints, Schema];

/// The laws the completion step judges.
const COMPLETION_LAWS: &[LawId] = &[CapabilitiesHonest, InvalidParams, Schema];

/// The requirements the completion step observes.
const COMPLETION: &[&str] = &[
    "srv-completions-served",
    "srv-completions-result",
    "srv-completions-errors",
];

/// The conversation: `initialize`, then one law after another, the
/// riskiest last, and end of input with nothing pending.
const CONVERSATION_STEPS: &[Step] = &[
    Step::new(
        "initialize",
        Needs::Fresh,
        &[Initialize, QuietBeforeServing],
        initialize,
    )
    .observes(&[
        "srv-init-result",
        "srv-init-same-version",
        "srv-response-same-id",
    ]),
    Step::new(
        "notifications",
        LEGACY,
        &[NotificationUnanswered],
        notifications,
    )
    .observes(&["srv-notification-never-answered"]),
    Step::new("ping", LEGACY, &[Ping], ping).observes(&["srv-ping-empty-result"]),
    Step::new(
        "an unknown method",
        LEGACY,
        &[UnknownMethod],
        unknown_method,
    )
    .observes(&["srv-unknown-method-32601"]),
    // Early, so that every log message after it is held to the level set.
    Step::new(
        "logging/setLevel",
        LEGACY,
        &[CapabilitiesHonest, InvalidParams],
        families::set_level,
    )
    .when(When::declares("logging"))
    .observes(&["srv-logging-set-level", "srv-logging-invalid-level"]),
    Step::new("tools/list", LEGACY, TOOL_LIST, tool_list).observes(&[
        "srv-tools-input-schema-object",
        "srv-tools-name-unique",
        "srv-pagination-stable-cursors",
        "srv-pagination-invalid-cursor",
        "srv-tools-capability-declared",
    ]),
    Step::new("prompts", LEGACY, PROMPTS_LAWS, families::prompts)
        .when(When::declares("prompts"))
        .observes(PROMPTS),
    Step::new("resources", LEGACY, RESOURCES_LAWS, families::resources)
        .when(When::declares("resources"))
        .observes(&[
            "srv-resources-list-served",
            "srv-resources-listed-readable",
            "srv-resources-read-unknown-error",
            "srv-pagination-stable-cursors",
            "srv-pagination-invalid-cursor",
        ]),
    Step::new(
        "subscriptions",
        LEGACY,
        &[CapabilitiesHonest],
        families::subscriptions,
    )
    .when(When::declares("resources.subscribe"))
    .observes(&[
        "srv-resources-subscribe-served",
        "srv-resources-updated-subscribed",
    ]),
    Step::new("completion", LEGACY, COMPLETION_LAWS, families::completion)
        .when(When::declares("completions"))
        .observes(COMPLETION),
    Step::new(
        "tools/call with broken params",
        LEGACY,
        &[InvalidParams],
        invalid_params,
    )
    .when(When::TOOLS)
    .observes(&["srv-tools-call-malformed-error"]),
    Step::new("an unknown tool", LEGACY, &[UnknownTool], unknown_tool)
        .when(When::TOOLS)
        .observes(&["srv-tools-call-unknown-tool-error"]),
    // MCP-CORE makes invalid arguments an isError result in every
    // revision; the spec profile asks it from 2025-11-25 on, which the
    // negotiation lane asks for.
    Step::new(
        "invalid arguments",
        LEGACY,
        &[ToolErrorIsResult],
        tool_error_is_result,
    )
    .when(When::TOOLS.in_profile(Profile::Core)),
    Step::new("a string id", LEGACY, &[RequestAnsweredOnce], string_id)
        .observes(&["srv-response-same-id"]),
    Step::new("cancellations", LEGACY, &[CancelTolerated], cancellations)
        .observes(&["srv-cancel-invalid-ignored"]),
    // Malformed input late: a server that a malformed line kills has
    // answered everything else first.
    Step::new(
        "malformed input",
        LEGACY,
        &[ParseErrorKeepsServing],
        malformed,
    )
    .observes(&["srv-jsonrpc-unreadable-line"]),
    Step::new(
        "a tool called with valid arguments",
        LEGACY,
        &[Schema, RequestAnsweredOnce],
        valid_call,
    )
    .when(When::TOOLS)
    .observes(SUCCESSFUL_CALL),
    Step::new(
        "notifications the server sent",
        LEGACY,
        &[CapabilitiesHonest],
        honest_notifications,
    )
    .observes(&[
        "srv-logging-capability",
        "srv-logging-respects-level",
        "srv-lifecycle-keeps-capabilities-2024",
        "srv-lifecycle-keeps-capabilities-2024",
        "srv-lifecycle-keeps-capabilities-2024",
    ]),
    Step::new("end of input", Needs::Serving, &[EofExitZero], eof_idle)
        .observes(&["srv-stdio-exit-on-eof"])
        .ending(),
];

/// The quiet start's lane: the process watched unspoken to, then a
/// cancellation as its first message before `initialize` for 2025-03-26,
/// the tool list and a batch, and last SIGTERM.
const QUIET_STEPS: &[Step] = &[
    Step::new(
        "the quiet start",
        Needs::Quiet,
        &[QuietBeforeServing],
        quiet_start,
    )
    .observes(&["srv-stdio-only-messages-on-stdout"]),
    Step::new(
        "a cancellation first, then initialize for 2025-03-26",
        Needs::Fresh,
        &[CancelTolerated, Initialize],
        negotiate,
    )
    .observes(&["srv-cancel-invalid-ignored", "srv-init-same-version"]),
    Step::new(
        "tools/list and a batch",
        Needs::Legacy(Reopen::At("2025-03-26")),
        &[RequestAnsweredOnce, NotificationUnanswered],
        list_and_batch,
    ),
    Step::new("SIGTERM", Needs::Serving, &[SigtermExit143], sigterm).ending(),
];

/// The modern lane: `server/discover` first, then the laws of 2026-07-28
/// and of every era, spoken statelessly.
const MODERN_STEPS: &[Step] = &[
    Step::new(
        "server/discover",
        Needs::Fresh,
        &[Discover],
        modern::discover,
    )
    .observes(&["srv-discover-answers"]),
    Step::new(
        "server/discover within its ttlMs",
        Needs::Modern,
        &[Discover],
        stable_discover,
    )
    .observes(&["srv-discover-stable-within-ttl"]),
    Step::new(
        "an unsupported version",
        Needs::Modern,
        &[Discover],
        unsupported_version,
    )
    .observes(&["srv-version-unsupported-32022"]),
    Step::new(
        "requests without their _meta",
        Needs::Modern,
        &[Discover],
        missing_meta,
    )
    .observes(&["srv-meta-required-fields", "srv-meta-client-info-optional"]),
    Step::new(
        "tools/list with cache hints",
        Needs::Modern,
        &[ListCacheHints, Discover],
        cache_hints,
    )
    .observes(&[
        "srv-caching-hints",
        "srv-meta-server-info",
        "srv-result-type",
    ]),
    Step::new(
        "the methods 2026-07-28 removed",
        Needs::Modern,
        &[UnknownMethod],
        removed_methods,
    )
    .observes(&["srv-unknown-method-32601"]),
    Step::new(
        "statelessness",
        Needs::Modern,
        &[Discover, ListCacheHints, UnknownMethod, CancelTolerated],
        stateless,
    )
    .fresh("stateless")
    .observes(&["srv-stateless-no-prior-context"]),
    Step::new("tools/list", Needs::Modern, TOOL_LIST, tool_list).observes(&[
        "srv-tools-input-schema-object",
        "srv-tools-name-unique",
        "srv-pagination-stable-cursors",
        "srv-pagination-invalid-cursor",
        "srv-tools-list-order",
        "srv-icons-src-uri",
        "srv-icons-sizes",
    ]),
    Step::new("prompts", Needs::Modern, PROMPTS_LAWS, families::prompts)
        .when(When::declares("prompts"))
        .observes(PROMPTS)
        .observes_too(&["srv-caching-hints", "srv-caching-scope-every-page"]),
    Step::new(
        "resources",
        Needs::Modern,
        RESOURCES_LAWS,
        families::resources,
    )
    .when(When::declares("resources"))
    .observes(&[
        "srv-resources-list-served",
        "srv-resources-listed-readable",
        "srv-resources-read-unknown-32602",
        "srv-pagination-stable-cursors",
        "srv-pagination-invalid-cursor",
        "srv-caching-hints",
        "srv-caching-scope-every-page",
    ]),
    Step::new(
        "completion",
        Needs::Modern,
        COMPLETION_LAWS,
        families::completion,
    )
    .when(When::declares("completions"))
    .observes(COMPLETION),
    Step::new(
        "a log level asked in _meta",
        Needs::Modern,
        &[InvalidParams],
        families::log_level,
    )
    .when(When::declares("logging"))
    .observes(&["srv-logging-unknown-level"]),
    Step::new(
        "tools/call with broken params",
        Needs::Modern,
        &[InvalidParams],
        invalid_params,
    )
    .when(When::TOOLS)
    .observes(&["srv-tools-call-malformed-error"]),
    Step::new(
        "an unknown tool",
        Needs::Modern,
        &[UnknownTool],
        unknown_tool,
    )
    .when(When::TOOLS)
    .observes(&["srv-tools-call-unknown-tool-error"]),
    Step::new(
        "invalid arguments",
        Needs::Modern,
        &[ToolErrorIsResult],
        tool_error_is_result,
    )
    .when(When::TOOLS)
    .observes(&["srv-tools-invalid-arguments-result"]),
    Step::new(
        "the laws of every era",
        Needs::Modern,
        &[NotificationUnanswered, CancelTolerated, RequestAnsweredOnce],
        every_era,
    )
    .observes(&[
        "srv-notification-never-answered",
        "srv-cancel-invalid-ignored",
        "srv-response-same-id",
    ]),
    Step::new(
        "a subscriptions/listen stream",
        Needs::Modern,
        &[RequestAnsweredOnce, CapabilitiesHonest],
        listen,
    )
    .observes(&[
        "srv-subscriptions-acknowledged-first",
        "srv-subscriptions-asked-kinds",
        "srv-subscriptions-silent-after-cancel",
        "srv-subscriptions-none-outside",
        "srv-subscriptions-listen-served",
    ]),
    Step::new(
        "malformed input",
        Needs::Modern,
        &[ParseErrorKeepsServing],
        malformed,
    )
    .observes(&["srv-jsonrpc-unreadable-line"]),
    Step::new(
        "a tool called with valid arguments",
        Needs::Modern,
        &[Schema, RequestAnsweredOnce],
        valid_call,
    )
    .when(When::TOOLS)
    .observes(SUCCESSFUL_CALL)
    .observes_too(&["srv-mrtr-fields"]),
    Step::new(
        "notifications the server sent",
        Needs::Modern,
        &[CapabilitiesHonest],
        honest_notifications,
    )
    .observes(&[
        "srv-logging-capability",
        "srv-logging-only-when-asked",
        "srv-subscriptions-none-outside",
        "srv-stdio-no-requests",
    ]),
    Step::new(
        "a listen stream open at end of input",
        Needs::Modern,
        &[RequestAnsweredOnce],
        listen_at_end,
    )
    .observes(&["srv-subscriptions-graceful-close"])
    .ending(),
];

/// Version negotiation: `initialize` with a revision no server supports,
/// `tool-error-is-result` under spec in the revision answered, and last
/// end of input with requests pending.
const NEGOTIATION_STEPS: &[Step] = &[
    Step::new(
        "initialize for an unsupported revision",
        Needs::Unopened,
        &[Initialize],
        negotiation,
    )
    .observes(&["srv-init-other-version"]),
    Step::new(
        "invalid arguments in the revision answered",
        Needs::Legacy(Reopen::AsAnswered),
        &[ToolErrorIsResult],
        tool_errors_answered,
    )
    .when(When::profile(Profile::Spec))
    .observes(&["srv-tools-invalid-arguments-result"]),
    Step::new(
        "the lists in the revision answered",
        Needs::Legacy(Reopen::AsAnswered),
        &[Schema],
        families::lists_answered,
    )
    .observes(&["srv-icons-src-uri", "srv-icons-sizes"]),
    Step::new(
        "three requests, then end of input",
        Needs::Serving,
        &[EofDrains],
        eof_pending,
    )
    .observes(&["srv-stdio-answers-before-exit"])
    .ending(),
];

fn initialize(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    s.ledger.era = Some(Era::Legacy);
    // `notifications/initialized` is the next step's first notification.
    facts.init = conversation::initialize(s);
    if facts.init.is_none() {
        facts.unopened = Some("initialize failed at step `initialize`".to_owned());
    }
}

fn notifications(s: &mut Session<'_>, _: &mut Facts<'_>) {
    conversation::notifications(s);
}

fn ping(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    facts.finished = conversation::ping(s);
}

fn unknown_method(s: &mut Session<'_>, _: &mut Facts<'_>) {
    conversation::unknown_method(s);
}

fn tool_list(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = facts.init.clone() {
        let listing = steps::tool_list(s, &init);
        if let Ok(listing) = &listing {
            families::icons(s, &init.revision, "tools/list", &listing.tools);
        }
        facts.listing = Some(listing);
    }
}

fn invalid_params(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(Ok(listing)) = &facts.listing {
        steps::invalid_params(s, listing);
    }
}

fn unknown_tool(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(Ok(listing)) = &facts.listing {
        steps::unknown_tool(s, listing);
    }
}

fn tool_error_is_result(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(Ok(listing)) = &facts.listing {
        super::tools::tool_error_is_result(s, listing);
    }
}

fn string_id(s: &mut Session<'_>, _: &mut Facts<'_>) {
    conversation::string_id(s);
}

fn cancellations(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    conversation::cancellations(s, facts.finished.take());
}

fn malformed(s: &mut Session<'_>, _: &mut Facts<'_>) {
    steps::malformed(s);
}

fn honest_notifications(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = facts.init.clone() {
        steps::honest_notifications(s, &init);
    }
}

fn eof_idle(s: &mut Session<'_>, _: &mut Facts<'_>) {
    steps::eof_idle(s);
}

fn eof_pending(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    // A modern-only server refused `initialize`, and serves stateless
    // requests; a legacy server that refused an unsupported revision has
    // no session, and answers plain ones (with errors, as it may).
    let stateless = s.ledger.refused.is_some() && facts.speaks_modern;
    steps::eof_pending(s, stateless);
}

fn quiet_start(s: &mut Session<'_>, _: &mut Facts<'_>) {
    lifecycle::quiet_start(s);
    // A server silent to every process so far is not spoken to.
    s.silent_server();
}

fn negotiate(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    facts.init = lifecycle::negotiate(s);
}

fn list_and_batch(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = facts.init.clone() {
        lifecycle::list_and_batch(s, &init);
    }
}

fn sigterm(s: &mut Session<'_>, _: &mut Facts<'_>) {
    lifecycle::sigterm_tail(s);
}

fn stable_discover(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(discovered) = &facts.discovered {
        modern::stable_discover(s, discovered);
    }
}

fn unsupported_version(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(discovered) = &facts.discovered {
        modern::unsupported_version(s, discovered);
    }
}

fn missing_meta(s: &mut Session<'_>, _: &mut Facts<'_>) {
    modern::missing_meta(s);
}

fn cache_hints(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    facts.listed = modern::cache_hints(s);
}

fn removed_methods(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    facts.removed = modern::removed_methods(s);
}

fn stateless<'a>(s: &mut Session<'a>, facts: &mut Facts<'a>) {
    let Some(discovered) = facts.discovered.clone() else {
        return;
    };
    // A process that could not start (the server wrote nothing to an
    // earlier one) leaves its comparisons out.
    let fresh: Vec<Session<'a>> = std::mem::take(&mut facts.fresh)
        .into_iter()
        .filter_map(|receiver| receiver.recv().ok()?.ok())
        .collect();
    let plan = modern::first_requests(&discovered);
    let listed = facts.listed.clone();
    let removed = std::mem::take(&mut facts.removed);
    modern::stateless(s, &discovered, fresh, plan, listed, removed);
}

fn every_era(s: &mut Session<'_>, _: &mut Facts<'_>) {
    modern::every_era(s);
}

fn listen(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = &facts.init {
        let capabilities = init.capabilities.clone();
        modern::listen(s, &capabilities);
    }
}

fn valid_call(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let (Some(Ok(listing)), Some(init)) = (&facts.listing, &facts.init) {
        steps::valid_call(s, &listing.tools, &init.revision);
    }
}

fn listen_at_end(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = &facts.init {
        let capabilities = init.capabilities.clone();
        modern::listen_at_end(s, &capabilities);
    }
}

fn negotiation(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    match steps::negotiation(s) {
        Ok(init) => facts.init = Some(init),
        Err(why) if s.ledger.refused.is_none() && s.unanswered_within_pace().is_some() => {
            // No answer, on a process whose `server/discover` went
            // unanswered already: the server may have stopped answering
            // there, before this step spoke. The step runs again on a
            // process of its own.
            if s.dead().is_none() {
                s.stop(format!("{why}; the server was stopped"));
            }
            facts.again = Some(why);
        }
        Err(why) => facts.unopened = Some(why),
    }
}

fn tool_errors_answered(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    if let Some(init) = facts.init.clone() {
        steps::tool_errors_answered(s, &init);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::registry::requirement;

    #[test]
    fn a_step_that_ends_its_process_comes_last_in_its_lane() {
        for lane in LANES {
            for (index, step) in lane.steps.iter().enumerate() {
                assert!(
                    !step.ends || index + 1 == lane.steps.len(),
                    "{}: `{}` ends its process before the lane's last step",
                    lane.name,
                    step.name
                );
            }
        }
    }

    #[test]
    fn every_requirement_a_step_observes_is_in_the_registry() {
        for lane in LANES {
            for step in lane.steps {
                for id in step.observed() {
                    assert!(
                        requirement(id).is_some(),
                        "{}: `{}` observes `{id}`, which the registry lacks",
                        lane.name,
                        step.name
                    );
                }
            }
        }
    }

    #[test]
    fn only_the_first_step_of_a_lane_watches_a_quiet_start() {
        for lane in LANES {
            for step in &lane.steps[1..] {
                assert_ne!(step.needs, Needs::Quiet, "{}: {}", lane.name, step.name);
            }
        }
    }

    #[test]
    fn a_lane_starts_after_a_lane_of_the_suite() {
        for lane in LANES {
            if let Start::After(leader) = lane.start {
                assert!(LANES.iter().any(|other| other.name == leader), "{leader}");
            }
        }
    }
}
