//! The start gate of a probe suite: the order its processes start in,
//! how many start at once (the machine's cores), and what their first
//! answers show of the server's pace.
//!
//! An interpreter's start is CPU work (the Python SDK's imports take most
//! of a second of it): eight of them started at once on two cores each
//! take four times as long to answer, and on a loaded machine that is
//! past any allowance. A process holds its place in the gate only until
//! it answers its first request (or ends), so the rest of its session,
//! round trips that cost the server little, runs beside the next starts.
//! A server that wrote nothing within its allowance is not started again.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How many processes start at once, at most: the cores, at least two.
pub(super) fn width() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get().clamp(2, 8))
}

#[derive(Debug, Default)]
struct State {
    /// The next ticket handed out.
    next: usize,
    /// How many tickets have finished starting.
    released: usize,
    /// The slowest start to a first answer seen so far.
    slowest: Option<Duration>,
    /// The allowance a process used up while writing nothing at all.
    silent: Option<Duration>,
}

/// The start gate of one probe suite.
#[derive(Debug)]
pub(super) struct Gate {
    width: usize,
    state: Mutex<State>,
    turn: Condvar,
}

impl Gate {
    pub(super) fn new(width: usize) -> Gate {
        Gate {
            width,
            state: Mutex::new(State::default()),
            turn: Condvar::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place in the order of starts.
    pub(super) fn ticket(&self) -> usize {
        let mut state = self.state();
        state.next += 1;
        state.next - 1
    }

    /// Waits for `ticket`'s turn to start; `Err` with the allowance a
    /// silent process used up when the server wrote nothing to an earlier
    /// one (it is not started again).
    pub(super) fn wait_turn(&self, ticket: usize) -> Result<(), Duration> {
        let mut state = self.state();
        loop {
            if let Some(silent) = state.silent {
                // A start skipped is a start over.
                state.released += 1;
                drop(state);
                self.turn.notify_all();
                return Err(silent);
            }
            if ticket < state.released + self.width {
                return Ok(());
            }
            state = self
                .turn
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A start is over: the process answered after `answered` (from its
    /// spawn), wrote nothing within `silent`, or ended.
    fn release(&self, answered: Option<Duration>, silent: Option<Duration>) {
        let mut state = self.state();
        state.released += 1;
        if let Some(answered) = answered {
            state.slowest = Some(
                state
                    .slowest
                    .map_or(answered, |slowest| slowest.max(answered)),
            );
        }
        if silent.is_some() && state.slowest.is_none() {
            state.silent = state.silent.or(silent);
        }
        drop(state);
        self.turn.notify_all();
    }

    /// The slowest start to a first answer seen so far.
    pub(super) fn slowest(&self) -> Option<Duration> {
        self.state().slowest
    }

    /// The slowest start to a first answer, once some process answered:
    /// waits, `within` at most, while neither an answer nor a silent
    /// allowance is known and some start is still under way. `None` when
    /// no process answered its first request.
    pub(super) fn settled(&self, within: Duration) -> Option<Duration> {
        let deadline = std::time::Instant::now().checked_add(within);
        let mut state = self.state();
        while state.slowest.is_none() && state.silent.is_none() && state.released < state.next {
            let left = deadline.map_or(within, |deadline| {
                deadline.saturating_duration_since(std::time::Instant::now())
            });
            if left.is_zero() {
                break;
            }
            state = self
                .turn
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.slowest
    }

    /// The allowance a process used up while the server wrote nothing at
    /// all, once one has.
    pub(super) fn silent(&self) -> Option<Duration> {
        self.state().silent
    }

    /// Whether every start asked for so far is over (a process beside the
    /// gate holds no ticket).
    pub(super) fn starts_over(&self) -> bool {
        let state = self.state();
        state.released >= state.next
    }
}

/// A process's place in the gate while it starts; dropping it ends the
/// start.
#[derive(Debug)]
pub(super) struct Place<'a> {
    gate: &'a Gate,
}

impl<'a> Place<'a> {
    /// A place in `gate`, whose turn has come.
    pub(super) fn new(gate: &'a Gate) -> Place<'a> {
        Place { gate }
    }

    /// The start is over; see [`Gate::release`].
    pub(super) fn release(self, answered: Option<Duration>, silent: Option<Duration>) {
        self.gate.release(answered, silent);
        std::mem::forget(self);
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.gate.release(None, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn settled_waits_for_a_start_under_way_to_answer() {
        let gate = Arc::new(Gate::new(2));
        let ticket = gate.ticket();
        gate.wait_turn(ticket).unwrap();
        let answering = Arc::clone(&gate);
        let answer = std::thread::spawn(move || {
            Place::new(&answering).release(Some(Duration::from_millis(7)), None);
        });
        assert_eq!(
            gate.settled(Duration::from_secs(30)),
            Some(Duration::from_millis(7))
        );
        answer.join().unwrap();
        // Every start over and none answered: nothing to wait for.
        let silent = Gate::new(2);
        let ticket = silent.ticket();
        silent.wait_turn(ticket).unwrap();
        Place::new(&silent).release(None, None);
        assert_eq!(silent.settled(Duration::from_secs(30)), None);
    }

    #[test]
    fn no_more_than_the_width_start_at_once_and_in_ticket_order() {
        let gate = Gate::new(2);
        let starting = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let order = Mutex::new(Vec::new());
        let tickets: Vec<usize> = (0..6).map(|_| gate.ticket()).collect();
        std::thread::scope(|scope| {
            for ticket in tickets.into_iter().rev() {
                let (gate, starting, most, order) = (&gate, &starting, &most, &order);
                scope.spawn(move || {
                    gate.wait_turn(ticket).unwrap();
                    let now = starting.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    order.lock().unwrap().push(ticket);
                    std::thread::yield_now();
                    starting.fetch_sub(1, Ordering::SeqCst);
                    gate.release(Some(Duration::from_millis(ticket as u64)), None);
                });
            }
        });
        assert!(most.load(Ordering::SeqCst) <= 2);
        // A ticket starts only once all but `width - 1` before it have.
        let order = order.into_inner().unwrap();
        for (i, ticket) in order.iter().enumerate() {
            assert!(*ticket <= i + 1, "{order:?}");
        }
        assert_eq!(gate.slowest(), Some(Duration::from_millis(5)));
    }

    #[test]
    fn a_silent_server_is_not_started_again() {
        let gate = Arc::new(Gate::new(1));
        let first = gate.ticket();
        let second = gate.ticket();
        gate.wait_turn(first).unwrap();
        gate.release(None, Some(Duration::from_secs(20)));
        assert_eq!(gate.wait_turn(second), Err(Duration::from_secs(20)));
    }

    #[test]
    fn a_silent_process_after_an_answer_is_no_silent_server() {
        let gate = Gate::new(1);
        let (first, second, third) = (gate.ticket(), gate.ticket(), gate.ticket());
        gate.wait_turn(first).unwrap();
        gate.release(Some(Duration::from_millis(3)), None);
        gate.wait_turn(second).unwrap();
        gate.release(None, Some(Duration::from_secs(20)));
        assert_eq!(gate.wait_turn(third), Ok(()));
    }
}
