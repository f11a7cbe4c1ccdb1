//! Starting the probe sessions' processes: through the start gate
//! (`gate.rs`), in the order the suite asks, or beside it for a process
//! watched unspoken to.

use std::time::Duration;

use super::gate::{Gate, Place};
use super::session::Session;
use super::{Ledger, ProbeOptions};
use crate::process::{ServerCommand, SpawnError};
use crate::transcript::Redactor;

/// Starts the probe sessions' processes of one server command.
pub(super) struct Starter<'a> {
    command: &'a ServerCommand,
    options: &'a ProbeOptions,
    redactor: &'a Redactor,
    gate: Gate,
}

/// Why a session did not start.
#[derive(Debug)]
pub(super) enum NotStarted {
    /// The server could not be started at all.
    Spawn(SpawnError),
    /// An earlier process of the server wrote nothing within this
    /// allowance.
    Silent(Duration),
}

impl<'a> Starter<'a> {
    /// A starter for `command`.
    pub(super) fn new(
        command: &'a ServerCommand,
        options: &'a ProbeOptions,
        redactor: &'a Redactor,
    ) -> Starter<'a> {
        Starter {
            command,
            options,
            redactor,
            gate: Gate::new(super::gate::width()),
        }
    }

    /// The gate, for tickets taken in the suite's order.
    pub(super) fn gate(&self) -> &Gate {
        &self.gate
    }

    /// Starts the process of session `name` once `ticket`'s turn has come.
    pub(super) fn start_at(
        &'a self,
        ticket: usize,
        name: &'static str,
    ) -> Result<Session<'a>, NotStarted> {
        self.gate.wait_turn(ticket).map_err(NotStarted::Silent)?;
        let place = Place::new(&self.gate);
        let session = Session::start(name, self.command, self.options, self.redactor, &self.gate)
            .map_err(NotStarted::Spawn)?;
        Ok(session.holding(place))
    }

    /// Starts the process of session `name` after every start asked for
    /// so far.
    pub(super) fn start(&'a self, name: &'static str) -> Result<Session<'a>, NotStarted> {
        let ticket = self.gate.ticket();
        self.start_at(ticket, name)
    }

    /// Starts the process of session `name` now, beside the gate: a
    /// process watched unspoken to for the quiet start holds no place (it
    /// answers nothing until its window ends).
    pub(super) fn start_now(&'a self, name: &'static str) -> Result<Session<'a>, SpawnError> {
        Session::start(name, self.command, self.options, self.redactor, &self.gate)
    }

    /// The options the probes run with.
    pub(super) fn options(&self) -> &ProbeOptions {
        self.options
    }

    /// An empty ledger for session `name`.
    pub(super) fn ledger(&self, name: &'static str) -> Ledger {
        Ledger::new(self.command.display(), self.options.profile, name)
    }
}

/// Runs `f` on a thread of `scope`, in the caller's stop scope (`serve`'s
/// call, say), so that the processes it starts stop with the caller's.
pub(super) fn spawn_within<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    let within = crate::process::current_scope();
    scope.spawn(move || crate::process::StopScope::enter(within, f))
}

/// A scoped thread's result, its panic passed on.
pub(super) fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
