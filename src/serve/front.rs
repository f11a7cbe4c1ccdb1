//! The front of `mcp-replay serve`: the host's lines read on a thread of
//! their own, `check` calls run off the loop, so that `serve` keeps
//! answering while checks run.
//!
//! The reader thread reads every line the host sends. A `tools/call` of
//! `check` or `fuzz` goes to a pool of [`MAX_RUNNING`] workers (at most
//! [`MAX_WAITING`] more wait for one; past that the call is answered busy),
//! and so does a 2025-03-26 batch that holds one, whole: its answer is one
//! array, which the worker's loop writes once every member is answered;
//! everything else goes to the library's loop on the serving thread, which
//! answers it at once (`ping`, `tools/list`, `laws`, the handshake). A
//! worker answers its call with a loop of its own that is handed the
//! session's `initialize` first, so the answer is the one the main loop
//! would give in that session.
//!
//! Each call's servers run in a [`StopScope`] of its own (a batch's calls
//! share one):
//! `notifications/cancelled` naming a running call stops its scope (its
//! servers are killed, its check ends) and nothing more is sent for it, as
//! MCP asks of a cancelled request; a call that runs past
//! [`call_timeout`](Limits::call_timeout) is stopped the same way and
//! answered with an error saying so. Cancelling a call of a batch stops
//! every call of the batch, whose answer still goes out, with the others'.
//! End of input stops every call, and
//! `serve` ends once their servers are reaped.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};

use crate::jsonrpc::{Frame, RequestId};
use crate::process::StopScope;
use crate::server::{ServeError, StdioTransport, Transport, TransportError};

/// How many `check` calls run at once.
pub const MAX_RUNNING: usize = 4;

/// How many more `check` calls wait for a worker before one is answered
/// busy.
pub const MAX_WAITING: usize = 16;

/// How long `serve` waits, once input has ended, for the stopped calls to
/// reap their servers.
const WIND_DOWN: Duration = Duration::from_secs(2);

/// How many lines for the loop the reader holds while the loop is busy.
const LOOP_QUEUE: usize = 64;

/// The bounds of a `serve` session.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The longest a `check` call may run before it is stopped.
    pub call_timeout: Duration,
}

/// The limit of one call in this process, for the tool's message.
static CALL_TIMEOUT: OnceLock<Duration> = OnceLock::new();

/// The limit of one `check` call, once `serve` runs.
pub(crate) fn call_timeout() -> Option<Duration> {
    CALL_TIMEOUT.get().copied()
}

/// One `check` call (or batch holding some) that has not answered yet.
struct Call {
    /// Its servers.
    scope: Arc<StopScope>,
    /// The host cancelled it, or input ended: nothing more is sent for it.
    silenced: AtomicBool,
    /// A batch: a cancellation stops it, and its answer still goes out,
    /// since it answers the batch's other requests too.
    batch: bool,
}

/// The calls not answered yet, by request id.
#[derive(Default)]
struct Calls {
    by_id: HashMap<RequestId, Arc<Call>>,
}

/// What is shared between the reader, the workers and the loop.
struct Shared {
    /// The protocol channel: each line is written whole under the lock.
    out: Mutex<File>,
    calls: Mutex<Calls>,
    /// The `initialize` request the session began with, for the workers'
    /// loops.
    initialize: Mutex<Option<Vec<u8>>>,
}

impl Shared {
    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes one line and its newline, whole.
    /// Drops `call` from the calls in flight, unless `id` names another
    /// call by now (the host used the id again once it was answered).
    fn forget(&self, id: &RequestId, call: &Arc<Call>) {
        let mut calls = self.calls();
        if calls
            .by_id
            .get(id)
            .is_some_and(|known| Arc::ptr_eq(known, call))
        {
            calls.by_id.remove(id);
        }
    }

    fn write(&self, line: &[u8]) -> Result<(), TransportError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        let mut out = self
            .out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        out.write_all(&bytes)
            .and_then(|()| out.flush())
            .map_err(TransportError::Write)
    }
}

/// A `check` call, or a batch holding some, handed to a worker.
struct Job {
    /// The ids of its `check` and `fuzz` calls.
    ids: Vec<RequestId>,
    line: Vec<u8>,
    call: Arc<Call>,
}

/// Serves `mcp-replay serve` on stdio with `check` calls off the loop.
///
/// # Errors
///
/// As [`Server::serve_stdio`](crate::Server::serve_stdio).
pub fn serve_stdio(version: &str, limits: Limits) -> Result<(), ServeError> {
    let _ = CALL_TIMEOUT.set(limits.call_timeout);
    let server = super::server(version);
    let version = version.to_owned();
    let mut ended = None;
    let res = server.serve_stdio_via(|stdin, stdout| {
        let shared = Arc::new(Shared {
            out: Mutex::new(stdout),
            calls: Mutex::new(Calls::default()),
            initialize: Mutex::new(None),
        });
        let (to_loop, lines) = mpsc::sync_channel(LOOP_QUEUE);
        let (jobs_tx, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        // Every worker holds a sender; once all are gone, every call has
        // ended.
        let (done_tx, done) = mpsc::channel::<()>();
        for n in 0..MAX_RUNNING {
            let (shared, jobs, version, done_tx) = (
                shared.clone(),
                jobs.clone(),
                version.clone(),
                done_tx.clone(),
            );
            std::thread::Builder::new()
                .name(format!("check-{n}"))
                .spawn(move || work(&shared, &jobs, &version, limits, &done_tx))?;
        }
        drop(done_tx);
        let reader_shared = shared.clone();
        std::thread::Builder::new()
            .name("reader".to_owned())
            .spawn(move || read(stdin, &reader_shared, &to_loop, &jobs_tx))?;
        ended = Some(done);
        Ok(FrontTransport { lines, shared })
    });
    // Input has ended (or the channel died): every call was stopped; give
    // their servers a moment to be reaped, then kill whatever is left.
    // Nothing is sent on `done`: it disconnects once every worker is gone.
    if let Some(done) = ended {
        let _ = done.recv_timeout(WIND_DOWN);
    }
    crate::process::kill_all();
    res
}

/// The library loop's transport: the lines the reader hands it, and the
/// shared protocol channel.
struct FrontTransport {
    lines: Receiver<Vec<u8>>,
    shared: Arc<Shared>,
}

impl Transport for FrontTransport {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        match self.lines.recv() {
            Ok(next) => {
                *line = next;
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        self.shared.write(line)
    }
}

/// Where a line of the host goes.
enum Route {
    /// A `check` call, to a worker.
    Check(RequestId),
    /// A batch holding `check` calls (their ids), to a worker whole; the
    /// ids of all its requests, to answer it busy.
    Batch {
        calls: Vec<RequestId>,
        requests: Vec<RequestId>,
    },
    /// `notifications/cancelled` for this request id: stop it if it runs,
    /// and let the loop absorb the notification.
    Cancel(RequestId),
    /// `initialize`: kept for the workers, and answered by the loop.
    Initialize,
    /// Anything else: the loop's.
    Loop,
}

/// Whether a request of `method` with `params` is a call of a tool that
/// runs servers.
fn runs_servers(method: &str, params: Option<&Value>) -> bool {
    method == "tools/call"
        && params
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .is_some_and(|name| matches!(name, "check" | "fuzz"))
}

/// The route of a batch: a worker's when a member runs servers, the
/// loop's otherwise (which answers every batch as the session allows).
fn route_batch(line: &[u8]) -> Route {
    let Ok(members) = serde_json::from_slice::<Vec<Box<serde_json::value::RawValue>>>(line) else {
        return Route::Loop;
    };
    let mut calls = Vec::new();
    let mut requests = Vec::new();
    for member in &members {
        if let Frame::Request { id, method, params } = Frame::parse(member.get().as_bytes()) {
            if runs_servers(&method, params.as_ref()) {
                calls.push(id.clone());
            }
            requests.push(id);
        }
    }
    if calls.is_empty() {
        Route::Loop
    } else {
        Route::Batch { calls, requests }
    }
}

fn route(line: &[u8]) -> Route {
    // A line of more values than are read into memory goes to the loop,
    // which answers it without reading it.
    if crate::jsonrpc::too_many_values(line).is_some() {
        return Route::Loop;
    }
    if line.trim_ascii_start().first() == Some(&b'[') {
        return route_batch(line);
    }
    match Frame::parse(line) {
        Frame::Request { id, method, params } => match method.as_str() {
            _ if runs_servers(&method, params.as_ref()) => Route::Check(id),
            "initialize" => Route::Initialize,
            _ => Route::Loop,
        },
        Frame::Notification { method, params } if method == "notifications/cancelled" => params
            .as_ref()
            .and_then(|params| params.get("requestId"))
            .and_then(RequestId::from_value)
            .map_or(Route::Loop, Route::Cancel),
        _ => Route::Loop,
    }
}

/// The reader thread: every host line, routed, until input ends; then
/// every call is stopped and silenced.
fn read(stdin: File, shared: &Shared, to_loop: &SyncSender<Vec<u8>>, jobs: &mpsc::Sender<Job>) {
    // The transport's reading half bounds each line; its writing half is
    // never used.
    let Ok(null) = File::options().write(true).open("/dev/null") else {
        return;
    };
    let mut transport = StdioTransport::new(&stdin, &null);
    let mut line = Vec::with_capacity(4096);
    while let Ok(true) = transport.read_line(&mut line) {
        match route(&line) {
            Route::Check(id) => {
                let mut calls = shared.calls();
                if calls.by_id.contains_key(&id) || calls.by_id.len() >= MAX_RUNNING + MAX_WAITING {
                    let busy = calls.by_id.len();
                    drop(calls);
                    let _ = shared.write(busy_line(&id, busy).as_bytes());
                    continue;
                }
                let call = Arc::new(Call {
                    scope: StopScope::new(),
                    silenced: AtomicBool::new(false),
                    batch: false,
                });
                calls.by_id.insert(id.clone(), call.clone());
                drop(calls);
                let job = Job {
                    ids: vec![id],
                    line: line.clone(),
                    call,
                };
                if jobs.send(job).is_err() {
                    return;
                }
            }
            Route::Batch {
                calls: ids,
                requests,
            } => {
                let mut calls = shared.calls();
                if ids.iter().any(|id| calls.by_id.contains_key(id))
                    || calls.by_id.len() + ids.len() > MAX_RUNNING + MAX_WAITING
                {
                    let busy = calls.by_id.len();
                    drop(calls);
                    let answers: Vec<String> =
                        requests.iter().map(|id| busy_line(id, busy)).collect();
                    let _ = shared.write(format!("[{}]", answers.join(",")).as_bytes());
                    continue;
                }
                let call = Arc::new(Call {
                    scope: StopScope::new(),
                    silenced: AtomicBool::new(false),
                    batch: true,
                });
                for id in &ids {
                    calls.by_id.insert(id.clone(), call.clone());
                }
                drop(calls);
                let job = Job {
                    ids,
                    line: line.clone(),
                    call,
                };
                if jobs.send(job).is_err() {
                    return;
                }
            }
            Route::Cancel(id) => {
                if let Some(call) = shared.calls().by_id.get(&id) {
                    // A batch's answer answers its other requests too: it
                    // still goes out.
                    if !call.batch {
                        call.silenced.store(true, Ordering::Relaxed);
                    }
                    call.scope.stop();
                }
                if to_loop.send(line.clone()).is_err() {
                    break;
                }
            }
            Route::Initialize => {
                *shared
                    .initialize
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(line.clone());
                if to_loop.send(line.clone()).is_err() {
                    break;
                }
            }
            Route::Loop => {
                if to_loop.send(line.clone()).is_err() {
                    break;
                }
            }
        }
    }
    // End of input: the host is gone, and nothing it asked is answered.
    for call in shared.calls().by_id.values() {
        call.silenced.store(true, Ordering::Relaxed);
        call.scope.stop();
    }
}

/// The answer to a `check` call that finds every worker busy and the
/// queue full: a JSON-RPC error, so that the host can try again.
fn busy_line(id: &RequestId, unanswered: usize) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32000,
            "message": format!(
                "serve is busy: {unanswered} check calls are running or waiting (at most {MAX_RUNNING} run at once); try again once one has answered"
            ),
        },
    })
    .to_string()
}

/// A worker: runs the calls handed to it, one at a time, until the reader
/// is gone.
fn work(
    shared: &Arc<Shared>,
    jobs: &Mutex<Receiver<Job>>,
    version: &str,
    limits: Limits,
    _done: &mpsc::Sender<()>,
) {
    loop {
        let job = {
            let jobs = jobs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            jobs.recv()
        };
        let Ok(job) = job else {
            return;
        };
        if !job.call.silenced.load(Ordering::Relaxed) {
            run_call(shared, &job, version, limits);
        }
        for id in &job.ids {
            shared.forget(id, &job.call);
        }
    }
}

/// Runs one `check` call in its own loop and scope, stopped once it runs
/// past the limit.
fn run_call(shared: &Arc<Shared>, job: &Job, version: &str, limits: Limits) {
    let (finished, finish) = mpsc::channel::<()>();
    let scope = job.call.scope.clone();
    let watchdog = std::thread::Builder::new()
        .name("call-timeout".to_owned())
        .spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = finish.recv_timeout(limits.call_timeout) {
                scope.stop();
            }
        });
    let initialize = shared
        .initialize
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let mut lines = VecDeque::new();
    let skip = usize::from(initialize.is_some());
    lines.extend(initialize);
    lines.push_back(job.line.clone());
    let mut transport = CallTransport {
        ids: job.ids.clone(),
        lines,
        skip,
        shared: shared.clone(),
        call: job.call.clone(),
    };
    let server = super::server(version);
    StopScope::enter(Some(job.call.scope.clone()), || {
        let _ = server.serve(&mut transport);
    });
    drop(finished);
    if let Ok(watchdog) = watchdog {
        let _ = watchdog.join();
    }
}

/// A worker loop's transport: the session's `initialize` (whose answer is
/// dropped), then the call; what it writes goes to the host unless the call
/// was silenced.
struct CallTransport {
    /// The ids of the `check` and `fuzz` calls it answers.
    ids: Vec<RequestId>,
    lines: VecDeque<Vec<u8>>,
    /// How many lines written are answers to the replayed `initialize`.
    skip: usize,
    shared: Arc<Shared>,
    call: Arc<Call>,
}

impl Transport for CallTransport {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        match self.lines.pop_front() {
            Some(next) => {
                *line = next;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(());
        }
        // Answered: the ids are the host's to use again once it reads this.
        for id in &self.ids {
            self.shared.forget(id, &self.call);
        }
        if self.call.silenced.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.shared.write(line)
    }
}
