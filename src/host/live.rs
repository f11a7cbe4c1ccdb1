//! A session judged as it happens: `mcp-replay mock` serves a host through
//! a [`Watched`] transport, which hands every line either side writes to
//! the judge; whoever ends the session (the serving thread at end of
//! input, the signal watcher on a signal) finishes it.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::{Ending, Judge};
use crate::laws::Profile;
use crate::report::{HostResult, Location};
use crate::server::{Transport, TransportError};

/// A live session's judge, behind a lock: the serving thread feeds it,
/// and the thread that ends the session finishes it.
#[derive(Debug)]
pub struct Live {
    source: String,
    state: Mutex<Option<State>>,
}

#[derive(Debug)]
struct State {
    judge: Judge,
    started: Instant,
    host_lines: usize,
    server_lines: usize,
    ended: bool,
}

impl Live {
    /// A live session about to begin, judged under `profile`; `source`
    /// names it in reports (`mcp-replay mock exercise`).
    pub fn new(profile: Profile, source: impl Into<String>) -> Live {
        Live {
            source: source.into(),
            state: Mutex::new(Some(State {
                judge: Judge::new(profile),
                started: Instant::now(),
                host_lines: 0,
                server_lines: 0,
                ended: false,
            })),
        }
    }

    fn state(&self) -> MutexGuard<'_, Option<State>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn at(&self, what: &str, n: usize) -> Location {
        Location::Probe {
            command: self.source.clone(),
            step: format!("{what} line {n}"),
        }
    }

    /// A line the host wrote.
    pub fn host_line(&self, line: &[u8]) {
        let mut state = self.state();
        if let Some(state) = state.as_mut() {
            state.host_lines += 1;
            let at = self.at("host", state.host_lines);
            let t = state.started.elapsed().as_secs_f64();
            state.judge.host_line(line, true, t, at);
        }
    }

    /// A line the server wrote.
    pub fn server_line(&self, line: &[u8]) {
        let mut state = self.state();
        if let Some(state) = state.as_mut() {
            state.server_lines += 1;
            let at = self.at("server", state.server_lines);
            let t = state.started.elapsed().as_secs_f64();
            state.judge.server_line(line, t, at);
        }
    }

    /// The host closed the server's stdin.
    pub fn end_of_input(&self) {
        let mut state = self.state();
        if let Some(state) = state.as_mut() {
            let at = Location::Probe {
                command: self.source.clone(),
                step: format!("end of input, after host line {}", state.host_lines),
            };
            let t = state.started.elapsed().as_secs_f64();
            state.judge.end_of_input(t, at);
            state.ended = true;
        }
    }

    /// The host sent the server `signal`, which ends the session.
    pub fn signal(&self, signal: i32) {
        let mut state = self.state();
        if let Some(state) = state.as_mut() {
            let t = state.started.elapsed().as_secs_f64();
            let at = Location::Probe {
                command: self.source.clone(),
                step: format!("signal {signal}"),
            };
            state.judge.signal(signal, t, at);
            state.judge.server_exit(t);
            state.ended = true;
        }
    }

    /// The verdict, once: `None` when it was taken already. A session that
    /// did not end (the host's end of input, a signal) is finished as it
    /// stands.
    pub fn finish(&self) -> Option<HostResult> {
        let state = self.state().take()?;
        let end = Location::Probe {
            command: self.source.clone(),
            step: "the end of the session".to_owned(),
        };
        let judging = Instant::now();
        let verdict = state.judge.finish(
            Ending::Recorded {
                complete: state.ended,
            },
            end,
        );
        Some(verdict.into_result(self.source.clone(), judging.elapsed()))
    }
}

/// A transport whose every line, each way, the session's judge sees.
#[derive(Debug)]
pub struct Watched<'a, T> {
    inner: &'a mut T,
    live: &'a Live,
}

impl<'a, T: Transport> Watched<'a, T> {
    /// `inner`, watched by `live`.
    pub fn new(inner: &'a mut T, live: &'a Live) -> Watched<'a, T> {
        Watched { inner, live }
    }
}

impl<T: Transport> Transport for Watched<'_, T> {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        let more = self.inner.read_line(line)?;
        if more {
            self.live.host_line(line);
        } else {
            self.live.end_of_input();
        }
        Ok(more)
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        self.live.server_line(line);
        self.inner.write_line(line)
    }

    fn flush_if_idle(&mut self) -> Result<(), TransportError> {
        self.inner.flush_if_idle()
    }

    fn flush(&mut self) -> Result<(), TransportError> {
        self.inner.flush()
    }
}
