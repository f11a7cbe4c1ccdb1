//! A probe as a declared step: the process it needs, when it applies, the
//! laws it judges, the requirements it observes, and what it runs.
//!
//! The suite (`suite.rs`) declares its steps lane by lane, a lane being
//! the steps that share one process while it serves them; the runner
//! (`runner.rs`) schedules them onto processes. A step reads what the
//! earlier steps of its lane learned from [`Facts`], and leaves there what
//! later ones need.

use std::sync::mpsc::Receiver;

use serde_json::Value;

use crate::jsonrpc::RequestId;
use crate::laws::{LawId, Profile};
use crate::revision::Era;

use super::session::{Answer, Init, Session};
use super::start::NotStarted;
use super::tools::Listing;

/// What a step runs, on the process the runner gives it.
pub(super) type Run = for<'a> fn(&mut Session<'a>, &mut Facts<'a>);

/// One probe step.
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// What the step does, in a few words (`ping`, `end of input`); the
    /// findings name their own steps.
    pub name: &'static str,
    /// The process it needs.
    pub needs: Needs,
    /// When it applies.
    pub when: When,
    /// The laws it judges; a step that cannot run skips them with why.
    pub judges: &'static [LawId],
    /// The ids of the requirements of the registry (`laws::registry`) it
    /// observes; a step that cannot run reports them not observed, with
    /// why, and one that runs but could not observe one says so itself
    /// ([`Session::miss`]).
    pub observes: &'static [&'static str],
    /// More requirements it observes, besides [`Step::observes`].
    pub also: &'static [&'static str],
    /// A fresh process the step speaks to besides its own, by the name of
    /// its findings (the statelessness probe's): started as soon as the
    /// lane's first step has shown the step can run, so that its start
    /// overlaps the steps before.
    pub fresh: Option<&'static str>,
    /// The step ends its process (end of input, SIGTERM): it comes last in
    /// its lane.
    pub ends: bool,
    /// What it runs.
    pub run: Run,
}

impl Step {
    /// A step that applies always, observes nothing of the registry, and
    /// leaves its process serving.
    pub const fn new(name: &'static str, needs: Needs, judges: &'static [LawId], run: Run) -> Step {
        Step {
            name,
            needs,
            when: When::ALWAYS,
            judges,
            observes: &[],
            also: &[],
            fresh: None,
            ends: false,
            run,
        }
    }

    /// The step, observing the requirements `ids`.
    pub const fn observes(self, ids: &'static [&'static str]) -> Step {
        Step {
            observes: ids,
            ..self
        }
    }

    /// The step, observing the requirements `ids` too, besides those of
    /// [`Step::observes`] (a list several steps share).
    pub const fn observes_too(self, ids: &'static [&'static str]) -> Step {
        Step { also: ids, ..self }
    }

    /// Every requirement the step observes.
    pub fn observed(&self) -> impl Iterator<Item = &'static str> {
        self.observes.iter().chain(self.also).copied()
    }

    /// The step, applying only `when`.
    pub const fn when(self, when: When) -> Step {
        Step { when, ..self }
    }

    /// The step, speaking to a fresh process named `name` besides its own.
    pub const fn fresh(self, name: &'static str) -> Step {
        Step {
            fresh: Some(name),
            ..self
        }
    }

    /// The step, ending its process.
    pub const fn ending(self) -> Step {
        Step { ends: true, ..self }
    }
}

/// The process a step needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Needs {
    /// A process nothing has been sent to, watched from its start (the
    /// quiet start): it is never started again for the step.
    Quiet,
    /// A process nothing has been sent to: the step's first message is
    /// the process's first.
    Fresh,
    /// A process on which no session was opened in either era: fresh, or
    /// one whose `server/discover` showed the legacy era.
    Unopened,
    /// A legacy session, opened with `initialize` (a process started again
    /// for the step is opened as the variant says).
    Legacy(Reopen),
    /// A process that serves: a legacy session, or one whose `initialize`
    /// was refused (a modern-only server, spoken to statelessly), or a
    /// 2026-07-28 one. A process started again is opened with revision
    /// 2024-11-05, statelessly when that is refused.
    Serving,
    /// A process that speaks 2026-07-28 statelessly, of a server whose
    /// `server/discover` showed that era.
    Modern,
}

/// How a legacy session is opened again on a process started for a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reopen {
    /// With `initialize` for this revision.
    At(&'static str),
    /// With `initialize` for the revision the lane's first session
    /// answered.
    AsAnswered,
}

/// When a step applies; a step that does not apply is not run.
#[derive(Debug, Clone, Copy)]
pub(super) struct When {
    /// Only in this profile (another profile does not ask it here).
    pub profile: Option<Profile>,
    /// Only where the server declared this capability, by path
    /// (`completions`, `resources.subscribe`): elsewhere its requirements
    /// are not observed, for that reason.
    pub declares: Option<&'static str>,
    /// Only where the server served a tool list: elsewhere its laws are
    /// skipped with what `tools/list` answered.
    pub tools: bool,
}

impl When {
    /// Always.
    pub const ALWAYS: When = When {
        profile: None,
        declares: None,
        tools: false,
    };

    /// Only in `profile`.
    pub const fn profile(profile: Profile) -> When {
        When {
            profile: Some(profile),
            ..When::ALWAYS
        }
    }

    /// Only where the server declared `capability`.
    pub const fn declares(capability: &'static str) -> When {
        When {
            declares: Some(capability),
            ..When::ALWAYS
        }
    }

    /// Only where the server served a tool list.
    pub const TOOLS: When = When {
        tools: true,
        ..When::ALWAYS
    };

    /// Also only in `profile`.
    pub const fn in_profile(self, profile: Profile) -> When {
        When {
            profile: Some(profile),
            ..self
        }
    }
}

/// A lane: steps that share a process while it serves them, in order.
pub(super) struct Lane {
    /// The name its findings carry (`conversation session: ping`).
    pub name: &'static str,
    /// The era its sessions speak, which their findings are tagged with.
    pub era: Era,
    /// How its first process starts.
    pub start: Start,
    /// Its steps; one that ends its process comes last.
    pub steps: &'static [Step],
}

/// How a lane's first process starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// First of all, before any other: a server that cannot be started at
    /// all is an error of the run.
    First,
    /// Through the start gate, in the order the lanes are declared.
    Gated,
    /// At once, beside the gate: a process watched unspoken to holds no
    /// place in it.
    Beside,
    /// Once the first step of the lane named has run: on that lane's
    /// process when none of that lane's other steps can run on it (its
    /// server speaks another era) and it meets this lane's first step's
    /// needs, as a client that speaks both eras falls back on the same
    /// process; otherwise on a process of its own, through the gate.
    After(&'static str),
}

/// What the steps of a lane learned, for the steps after them.
pub(super) struct Facts<'a> {
    /// What the server said of itself when the lane's session opened.
    pub init: Option<Init>,
    /// Why the lane's process serves no legacy session (its `initialize`
    /// was refused), in words.
    pub unopened: Option<String>,
    /// The tool list, or why there is none.
    pub listing: Option<Result<Listing, String>>,
    /// A request of this process already answered, to cancel later.
    pub finished: Option<RequestId>,
    /// The `DiscoverResult` (the modern lane).
    pub discovered: Option<Value>,
    /// Why the server speaks no 2026-07-28, once `server/discover` showed
    /// it does not: the steps that need that era are not run.
    pub no_modern: Option<String>,
    /// Whether the server speaks the modern era, as the lane this one
    /// started after found: a process whose `initialize` was refused is
    /// then spoken to statelessly.
    pub speaks_modern: bool,
    /// The first `tools/list` of the modern session.
    pub listed: Option<Answer>,
    /// The answers to the methods 2026-07-28 removed.
    pub removed: Vec<Option<Answer>>,
    /// The prompts listed.
    pub prompts: Vec<Value>,
    /// The resources listed.
    pub resources: Vec<Value>,
    /// The resource templates listed.
    pub templates: Vec<Value>,
    /// The fresh processes of a step ([`Step::fresh`]), as they start.
    pub fresh: Vec<Receiver<Result<Session<'a>, NotStarted>>>,
    /// Set by a step that found its process stopped answering before it
    /// spoke to it (a process handed on with a request unanswered): the
    /// runner runs the step again, once, on a process started again.
    pub again: Option<String>,
}

impl Facts<'_> {
    /// Nothing learned yet.
    pub fn new() -> Self {
        Facts {
            init: None,
            unopened: None,
            listing: None,
            finished: None,
            discovered: None,
            no_modern: None,
            speaks_modern: false,
            listed: None,
            removed: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            fresh: Vec::new(),
            again: None,
        }
    }

    /// Forgets what belongs to the process that ended: its requests.
    pub fn new_process(&mut self) {
        self.finished = None;
    }

    /// Whether the server declared `capability` (a path: `tools`,
    /// `resources.subscribe`), in the answer that opened the lane's
    /// session.
    pub fn declares(&self, capability: &str) -> bool {
        self.init
            .as_ref()
            .is_some_and(|init| declares(&init.capabilities, capability))
    }
}

/// Whether `capabilities` declare `path`: a capability object (`tools`),
/// or a flag within one that is `true` (`resources.subscribe`).
pub(super) fn declares(capabilities: &Value, path: &str) -> bool {
    let pointer = format!("/{}", path.replace('.', "/"));
    match capabilities.pointer(&pointer) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_capability_is_declared_by_its_object_or_its_flag() {
        let capabilities = json!({"tools": {}, "resources": {"subscribe": true, "listChanged": false}, "logging": null});
        assert!(declares(&capabilities, "tools"));
        assert!(declares(&capabilities, "resources.subscribe"));
        assert!(!declares(&capabilities, "resources.listChanged"));
        assert!(!declares(&capabilities, "logging"));
        assert!(!declares(&capabilities, "completions"));
    }
}
