//! The runner: the declared steps of the suite (`suite.rs`) scheduled onto
//! processes.
//!
//! Each lane runs on a thread of its own, its steps in order on its
//! process. A step runs on the lane's process when that process meets the
//! step's needs ([`Needs`]); a process that ended before the step (the
//! server crashed, or stopped answering and was stopped) is started again
//! and opened as the step needs, so that the steps after a crash still
//! run, each on the process it needs, while the crash stays a finding. A
//! server that never answered any process's first request, or that wrote
//! nothing at all, is not started again, and a lane starts its process
//! again at most [`MAX_RESTARTS`] times.
//!
//! What a step could not run for is recorded: its laws skipped with the
//! reason (the server ended first, the server serves no tools, its
//! `initialize` was refused), and its requirements not observed, with the
//! same reason, or because the server does not declare the capability
//! they belong to, or speaks no 2026-07-28.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::Scope;

use crate::jsonrpc::PROTOCOL_2024_11_05;
use crate::process::SpawnError;
use crate::report::Coverage;
use crate::revision::Revision;

use super::session::{Init, Opened, Session};
use super::start::{NotStarted, Starter, joined, spawn_within};
use super::step::{Facts, Lane, Needs, Reopen, Start, Step};
use super::{Ledger, Negotiated};

/// How many times a lane starts its process again after it ended before a
/// step, at most.
pub(super) const MAX_RESTARTS: usize = 3;

/// How a lane's first process comes.
enum Begin<'a> {
    /// Started already.
    Started(Box<Session<'a>>),
    /// To start through the gate once this ticket's turn comes.
    Ticket(usize),
    /// Could not start.
    NotStarted(NotStarted),
    /// From the lane it starts after ([`Start::After`]).
    Handed(Receiver<Handover<'a>>),
}

/// What a lane hands the lane that starts after it.
enum Handover<'a> {
    /// Its process, which the follower's first step can run on.
    Process(Box<Session<'a>>),
    /// A place in the gate for a process of the follower's own, and
    /// whether the server speaks the modern era.
    Ticket(usize, bool),
    /// Its process ended: the follower starts one of its own when its
    /// first step needs it, if the server answered some process.
    Ended(String),
    /// Its process could not start, and neither can the follower's.
    NotStarted(NotStarted),
}

/// Runs `lanes` with processes from `starter`; returns each lane's ledger,
/// in the order declared.
///
/// # Errors
///
/// [`SpawnError`] when the server cannot be started at all.
pub(super) fn run<'a>(
    starter: &'a Starter<'a>,
    lanes: &'static [Lane],
) -> Result<Vec<Ledger>, SpawnError> {
    let mut begins: Vec<Option<Begin<'a>>> = lanes.iter().map(|_| None).collect();
    // The first lane's process starts before any other: a server that
    // cannot start is an error before anything else runs.
    for (begin, lane) in begins.iter_mut().zip(lanes) {
        if lane.start == Start::First {
            let ticket = starter.gate().ticket();
            *begin = Some(match starter.start_at(ticket, lane.name) {
                Ok(session) => Begin::Started(Box::new(session)),
                Err(NotStarted::Spawn(error)) => return Err(error),
                Err(why) => Begin::NotStarted(why),
            });
        }
    }
    for (begin, lane) in begins.iter_mut().zip(lanes) {
        if lane.start == Start::Gated {
            *begin = Some(Begin::Ticket(starter.gate().ticket()));
        }
    }
    for (begin, lane) in begins.iter_mut().zip(lanes) {
        if lane.start == Start::Beside {
            *begin = Some(Begin::Started(Box::new(starter.start_now(lane.name)?)));
        }
    }
    let mut followers: Vec<Option<Sender<Handover<'a>>>> = lanes.iter().map(|_| None).collect();
    for (index, lane) in lanes.iter().enumerate() {
        if let Start::After(leader) = lane.start {
            let (sender, receiver) = channel();
            begins[index] = Some(Begin::Handed(receiver));
            let at = lanes
                .iter()
                .position(|other| other.name == leader)
                .expect("a lane starts after a lane of the suite");
            followers[at] = Some(sender);
        }
    }
    let ledgers = std::thread::scope(|scope| {
        let handles: Vec<_> = lanes
            .iter()
            .zip(begins)
            .zip(followers)
            .map(|((lane, begin), follower)| {
                let begin = begin.expect("every lane has a start");
                spawn_within(scope, move || {
                    LaneRun::new(lane, starter).run(scope, begin, follower)
                })
            })
            .collect();
        handles.into_iter().map(joined).collect()
    });
    Ok(ledgers)
}

/// One lane under way.
struct LaneRun<'a> {
    lane: &'static Lane,
    starter: &'a Starter<'a>,
    /// The lane's process, while it has one.
    session: Option<Session<'a>>,
    /// Why the lane has no process, when it never had one or handed it on.
    absent: Option<String>,
    /// The lane's ledger: each process's, absorbed when it ends, and what
    /// the runner itself records.
    ledger: Ledger,
    facts: Facts<'a>,
    /// How many times the lane started its process again.
    restarts: usize,
    /// Why the lane's session cannot be opened as these needs ask on a
    /// process started again, once that failed: it is not tried again.
    cannot_reopen: Option<(Needs, String)>,
}

impl<'a> LaneRun<'a> {
    fn new(lane: &'static Lane, starter: &'a Starter<'a>) -> LaneRun<'a> {
        let mut ledger = starter.ledger(lane.name);
        ledger.era = Some(lane.era);
        LaneRun {
            lane,
            starter,
            session: None,
            absent: None,
            ledger,
            facts: Facts::new(),
            restarts: 0,
            cannot_reopen: None,
        }
    }

    fn run<'scope>(
        mut self,
        scope: &'scope Scope<'scope, '_>,
        begin: Begin<'a>,
        mut follower: Option<Sender<Handover<'a>>>,
    ) -> Ledger
    where
        'a: 'scope,
    {
        match begin {
            Begin::Started(session) => self.adopt(*session),
            Begin::Ticket(ticket) => match self.starter.start_at(ticket, self.lane.name) {
                Ok(session) => self.adopt(session),
                Err(why) => self.not_started(&why),
            },
            Begin::NotStarted(why) => self.not_started(&why),
            Begin::Handed(receiver) => match receiver.recv() {
                Ok(Handover::Process(session)) => self.adopt(*session),
                Ok(Handover::Ticket(ticket, modern)) => {
                    self.facts.speaks_modern = modern;
                    match self.starter.start_at(ticket, self.lane.name) {
                        Ok(session) => self.adopt(session),
                        Err(why) => self.not_started(&why),
                    }
                }
                Ok(Handover::Ended(why)) => self.absent = Some(why),
                Ok(Handover::NotStarted(why)) => self.not_started(&why),
                Err(_) => self.absent = Some("the lane before it ended first".to_owned()),
            },
        }
        for (index, step) in self.lane.steps.iter().enumerate() {
            self.step(step);
            if index == 0 {
                self.start_fresh(scope);
                if let Some(follower) = follower.take() {
                    self.hand_over(&follower);
                }
            }
        }
        self.end_process();
        self.ledger
    }

    /// Takes `session` as the lane's process.
    fn adopt(&mut self, mut session: Session<'a>) {
        session.ledger.era = Some(self.lane.era);
        self.session = Some(session);
    }

    /// The lane's process did not start.
    fn not_started(&mut self, why: &NotStarted) {
        let reason = match why {
            NotStarted::Spawn(error) => format!("the server could not be started again: {error}"),
            NotStarted::Silent(silent) => {
                self.ledger.silent = Some(*silent);
                format!(
                    "the server wrote nothing on stdout within {} of its start",
                    super::session::seconds(*silent)
                )
            }
        };
        self.absent = Some(reason);
    }

    /// Runs `step`, or records why it could not run.
    fn step(&mut self, step: &Step) {
        let profile = self.starter.options().profile;
        if step.when.profile.is_some_and(|only| only != profile) {
            return;
        }
        if step.needs == Needs::Modern
            && let Some(why) = self.facts.no_modern.clone()
        {
            self.not_run(step, &why, false);
            return;
        }
        if let Some(capability) = step.when.declares
            && !self.facts.declares(capability)
        {
            let why = format!("the server does not declare the `{capability}` capability");
            self.not_run(step, &why, false);
            return;
        }
        if step.when.tools {
            let why = match &self.facts.listing {
                Some(Ok(_)) => None,
                Some(Err(why)) => Some(why.clone()),
                None => Some("tools/list got no answer".to_owned()),
            };
            if let Some(why) = why {
                self.not_run(step, &why, true);
                return;
            }
        }
        if let Err(why) = self.ready(step) {
            self.not_run(step, &why, true);
            return;
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        session.ledger.step_missed.clear();
        (step.run)(session, &mut self.facts);
        if let Some(why) = self.facts.again.take() {
            // The process stopped answering before the step spoke to it:
            // the step runs again, once, on a process of its own.
            if let Err(why) = self.restart(step).map_err(|gone| format!("{why}; {gone}")) {
                self.facts.unopened = Some(why.clone());
                self.not_run(step, &why, true);
                return;
            }
            let Some(session) = self.session.as_mut() else {
                return;
            };
            (step.run)(session, &mut self.facts);
            if let Some(why) = self.facts.again.take() {
                self.facts.unopened = Some(why);
            }
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let ledger = &mut session.ledger;
        for id in step.observed() {
            if !ledger.step_missed.contains(&id) {
                ledger.coverage.observe(id);
            }
        }
        ledger.step_missed.clear();
        if let Some(init) = &self.facts.init {
            declared(&mut ledger.coverage, init);
        }
        if step.ends {
            // The process has ended: a step after it (none, in a lane as
            // declared) would start one of its own.
            self.end_process();
        }
    }

    /// `step` did not run, for `why`: its requirements are not observed,
    /// and with `laws` its laws are skipped.
    fn not_run(&mut self, step: &Step, why: &str, laws: bool) {
        for id in step.observed() {
            self.ledger.miss(id, why);
        }
        if laws {
            for law in step.judges {
                self.ledger.skip(*law, why);
            }
        }
    }

    /// Makes sure the lane has a process that meets `step`'s needs: the
    /// one it has, or one started again and opened as the step needs.
    fn ready(&mut self, step: &Step) -> Result<(), String> {
        if let Some(session) = &self.session
            && session.dead().is_none()
        {
            if meets(session, step.needs) {
                return Ok(());
            }
            match step.needs {
                // A process spoken to cannot serve a step that needs a
                // fresh one: the step gets one of its own.
                Needs::Fresh | Needs::Unopened => {}
                Needs::Quiet => return Err("the quiet start is over".to_owned()),
                Needs::Legacy(_) | Needs::Serving => {
                    return Err(self
                        .facts
                        .unopened
                        .clone()
                        .unwrap_or_else(|| "no legacy session was opened".to_owned()));
                }
                Needs::Modern => {
                    return Err(self
                        .facts
                        .no_modern
                        .clone()
                        .unwrap_or_else(|| "the process speaks no 2026-07-28".to_owned()));
                }
            }
        }
        self.restart(step)
    }

    /// Why the lane's process is gone, in words.
    fn gone(&self) -> String {
        match &self.session {
            Some(session) => session
                .dead()
                .map_or_else(|| "the process was spoken to".to_owned(), str::to_owned),
            None => self
                .absent
                .clone()
                .unwrap_or_else(|| NOT_ANSWERED.to_owned()),
        }
    }

    /// Starts the lane's process (again) for `step`, and opens it as the
    /// step needs.
    fn restart(&mut self, step: &Step) -> Result<(), String> {
        let gone = self.gone();
        if step.needs == Needs::Quiet {
            return Err(gone);
        }
        if let Some((needs, why)) = &self.cannot_reopen
            && *needs == step.needs
        {
            return Err(why.clone());
        }
        if step.needs == Needs::Legacy(Reopen::AsAnswered)
            && self
                .facts
                .init
                .as_ref()
                .is_none_or(|init| init.revision.is_empty())
        {
            // No process would open: no revision was answered.
            return Err(self.facts.unopened.clone().unwrap_or_else(|| {
                "no revision was answered to reopen the session with".to_owned()
            }));
        }
        // A server that never answered a first request would only cost its
        // allowance again; one that answered another process and wrote
        // nothing to this one hung at its first request, and is started
        // again like one that crashed. A process that ended at once waits
        // for the starts under way to show which.
        let options = self.starter.options();
        let allowance = options
            .timeout
            .saturating_mul(super::session::STARTUP_STEPS)
            .max(options.startup_timeout);
        let answered = self.starter.gate().settled(allowance);
        if self.starter.gate().silent().is_some() || answered.is_none() {
            return Err(gone);
        }
        if self.session.is_some() {
            if self.restarts >= MAX_RESTARTS {
                return Err(format!(
                    "{gone}; the server was started again {MAX_RESTARTS} times already, and is not for `{}`",
                    step.name
                ));
            }
            self.restarts += 1;
        }
        let carried = self
            .session
            .as_ref()
            .map(Session::notifications)
            .unwrap_or_default();
        self.end_process();
        let mut session = match self.starter.start(self.lane.name) {
            Ok(session) => session,
            Err(why) => {
                self.not_started(&why);
                return Err(self.gone());
            }
        };
        session.ledger.era = Some(self.lane.era);
        session.carry(carried);
        self.facts.new_process();
        self.session = Some(session);
        self.open_for(step.needs).inspect_err(|why| {
            self.cannot_reopen = Some((step.needs, why.clone()));
        })
    }

    /// Opens the fresh process as `needs` asks: nothing to do for a step
    /// that sends the first message itself, `initialize` (and
    /// `notifications/initialized`) for a legacy session, the standard
    /// `_meta` on every request for a modern one.
    fn open_for(&mut self, needs: Needs) -> Result<(), String> {
        let Some(session) = self.session.as_mut() else {
            return Err(self.gone());
        };
        let revision = match needs {
            Needs::Quiet | Needs::Fresh | Needs::Unopened => return Ok(()),
            Needs::Modern => {
                session.speak_statelessly();
                session.assume(Revision::V2026_07_28);
                return Ok(());
            }
            Needs::Legacy(Reopen::At(revision)) => revision.to_owned(),
            Needs::Legacy(Reopen::AsAnswered) => match &self.facts.init {
                Some(init) if !init.revision.is_empty() => init.revision.clone(),
                _ => return Err("no revision was answered to reopen the session with".to_owned()),
            },
            Needs::Serving => PROTOCOL_2024_11_05.to_owned(),
        };
        let law = crate::laws::LawId::Initialize;
        match session.open_or_refused(law, &revision) {
            Ok(init) => {
                session.ledger.negotiated.push(Negotiated {
                    requested: revision,
                    answered: init.revision.clone(),
                    step: "initialize".to_owned(),
                });
                self.facts.init = Some(init);
                Ok(())
            }
            // A server that refuses every `initialize` (a modern-only one)
            // still serves stateless requests.
            Err(Some(error)) if needs == Needs::Serving => {
                session.ledger.refused = Some(error);
                Ok(())
            }
            Err(Some(error)) => Err(format!(
                "initialize for {revision} answered {} on a process started again",
                super::session::error_words(&error)
            )),
            Err(None) => Err(session
                .dead()
                .unwrap_or("initialize got no answer on a process started again")
                .to_owned()),
        }
    }

    /// Starts the fresh processes of the lane's steps that can run, once
    /// the lane's first step has run, so that their starts overlap the
    /// steps before them.
    fn start_fresh<'scope>(&mut self, scope: &'scope Scope<'scope, '_>)
    where
        'a: 'scope,
    {
        let serving = self
            .session
            .as_ref()
            .is_some_and(|session| session.dead().is_none());
        if !serving || self.facts.no_modern.is_some() {
            return;
        }
        let profile = self.starter.options().profile;
        for step in &self.lane.steps[1..] {
            let Some(name) = step.fresh else {
                continue;
            };
            if step.when.profile.is_some_and(|only| only != profile) {
                continue;
            }
            let ticket = self.starter.gate().ticket();
            let (sender, receiver) = channel();
            let starter = self.starter;
            spawn_within(scope, move || {
                // The step may have been skipped, its receiver dropped.
                let _ = sender.send(starter.start_at(ticket, name));
            });
            self.facts.fresh.push(receiver);
        }
    }

    /// Hands the lane that starts after this one its start: this lane's
    /// process when none of this lane's other steps can run on it and it
    /// meets the follower's first step's needs, else a place in the gate.
    fn hand_over(&mut self, follower: &Sender<Handover<'a>>) {
        let Some(next) = follower_lane(self.lane) else {
            return;
        };
        let first_needs = next.steps.first().map(|step| step.needs);
        let answered = self.starter.gate().slowest();
        let handover = match self.session.take() {
            // A server that wrote nothing to any process is not started
            // again; one that answered another process was only silent to
            // this one.
            None => match self.ledger.silent {
                Some(silent) if answered.is_none() => {
                    Handover::NotStarted(NotStarted::Silent(silent))
                }
                _ => Handover::Ended(self.gone()),
            },
            Some(session) if session.ledger.silent.is_some() && answered.is_none() => {
                let silent = session.ledger.silent.unwrap_or_default();
                self.session = Some(session);
                Handover::NotStarted(NotStarted::Silent(silent))
            }
            Some(session) if session.dead().is_some() => {
                let why = session.dead().unwrap_or_default().to_owned();
                self.session = Some(session);
                // A server of the modern era gets the follower a process of
                // its own; one whose process ended at its first request
                // gets one only if it answered some other process.
                match self.facts.no_modern.is_none() {
                    true => Handover::Ticket(self.starter.gate().ticket(), true),
                    false => Handover::Ended(why),
                }
            }
            Some(session) => {
                let stays = self.lane.steps[1..]
                    .iter()
                    .any(|step| step.needs != Needs::Modern || self.facts.no_modern.is_none());
                if !stays && first_needs.is_some_and(|needs| meets(&session, needs)) {
                    let mut session = session;
                    // The process goes on as the follower's: its findings
                    // from here on are the follower's.
                    let mine =
                        std::mem::replace(&mut session.ledger, self.starter.ledger(next.name));
                    self.ledger.merge_process(mine);
                    self.absent = Some(format!(
                        "the process went on as the {} session's",
                        next.name
                    ));
                    Handover::Process(Box::new(session))
                } else {
                    let modern = session.opened() == Opened::Modern;
                    self.session = Some(session);
                    Handover::Ticket(self.starter.gate().ticket(), modern)
                }
            }
        };
        // The follower may have ended already (it never does before its
        // start comes).
        let _ = follower.send(handover);
    }

    /// Ends the lane's process, if it has one: its ledger joins the lane's.
    fn end_process(&mut self) {
        if let Some(session) = self.session.take() {
            let dead = session.dead().map(str::to_owned);
            let ledger = session.finish();
            self.ledger.merge_process(ledger);
            self.absent = dead;
        }
    }
}

/// Notes in `coverage` the revision a session spoke and the capabilities
/// the server declared in it, by path (`tools`, `resources.subscribe`).
fn declared(coverage: &mut Coverage, init: &Init) {
    if let Some(revision) = Revision::parse(&init.revision) {
        coverage.revisions.insert(revision);
    }
    coverage.declare(&init.capabilities);
}

/// The lane that starts after `lane`, in the suite.
fn follower_lane(lane: &Lane) -> Option<&'static Lane> {
    super::suite::LANES
        .iter()
        .find(|other| other.start == Start::After(lane.name))
}

/// The reason a process is not started again for a server that never
/// answered a first request.
const NOT_ANSWERED: &str =
    "the server answered no process's first request, so no process was started for this step";

/// Whether `session` meets `needs`.
fn meets(session: &Session<'_>, needs: Needs) -> bool {
    let opened = session.opened();
    match needs {
        Needs::Quiet | Needs::Fresh => !session.sent(),
        Needs::Unopened => opened == Opened::Not,
        Needs::Legacy(_) => opened == Opened::Legacy,
        Needs::Serving => opened != Opened::Not,
        Needs::Modern => opened == Opened::Modern,
    }
}
