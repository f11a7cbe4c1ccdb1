//! For mcp-replay's tests only: a tiny MCP host steered by flags.
//!
//! It starts the server command given after `--` (in the tests,
//! `mcp-replay record … -- mcp-replay mock exercise`, so the session is
//! recorded against a server that exercises the host) and speaks one
//! session: the handshake (or, with `--modern`, 2026-07-28's stateless
//! requests), every server request answered, the tools listed and called,
//! a slow call cancelled, on 2026-07-28 an `input_required` answer retried
//! and a listen stream opened and cancelled; then it closes the server's
//! stdin and waits for the server to exit, as the specification asks a
//! host to end a session.
//!
//! Without flags it keeps every host law. Each `--break <host-law-id>`
//! makes it break exactly that law, in one way, so a test can watch the
//! finding appear. It is one hand-written loop, not an SDK, so that it can
//! misbehave freely.
#![allow(clippy::print_stderr)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use clap::Parser;
use mcp_replay::laws::{LawId, Side};
use serde_json::{Value, json};

/// For mcp-replay's tests only: an MCP host that breaks host laws on request.
///
/// It runs the server command after `--` and speaks one session with it.
/// An example of the crate, not installed: from a clone, `cargo build
/// --example fixture-host` builds it.
#[derive(Debug, Parser)]
#[command(name = "fixture-host", version)]
struct Flags {
    /// Break one host law of the catalog, by id (repeatable).
    #[arg(long = "break", value_name = "LAW-ID", value_parser = parse_break)]
    breaks: Vec<LawId>,
    /// Speak 2026-07-28 (stateless, `_meta` on every request) instead of
    /// the legacy handshake.
    #[arg(long)]
    modern: bool,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    server: Vec<String>,
}

fn parse_break(text: &str) -> Result<LawId, String> {
    let law: LawId = text.parse()?;
    if law.side() != Side::Host {
        return Err(format!(
            "`{law}` is a server law; the fixture host breaks host laws"
        ));
    }
    Ok(law)
}

/// How long the host waits for any one line of the server.
const WAIT: Duration = Duration::from_secs(30);

/// The host's end of one session.
struct Session {
    flags: Flags,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: i64,
}

impl Session {
    fn breaks(&self, law: LawId) -> bool {
        self.flags.breaks.contains(&law)
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        // A server that ended reads nothing more: the session is over.
        let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// The `_meta` of a 2026-07-28 request.
    fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "sampling": {}, "elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "fixture-host", "version": env!("CARGO_PKG_VERSION")},
        })
    }

    /// Sends a request, and returns its id.
    fn request(&mut self, method: &str, mut params: Value) -> i64 {
        let id = self.id();
        if self.flags.modern {
            if params.is_null() {
                params = json!({});
            }
            let mut meta = self.meta();
            if let Some(own) = params.get("_meta").and_then(Value::as_object) {
                meta.as_object_mut()
                    .expect("the meta is an object")
                    .extend(own.clone());
            }
            params["_meta"] = meta;
        }
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
        id
    }

    /// The server's next line, with its requests answered as they come.
    fn next(&mut self) -> Value {
        let line = self.lines.recv_timeout(WAIT).unwrap_or_else(|_| {
            eprintln!("fixture-host: the server said nothing for {WAIT:?}");
            std::process::exit(3)
        });
        if line.get("method").is_some() {
            match line.get("id") {
                Some(id) => self.answer(id.clone(), &line),
                None => {
                    if self.breaks(LawId::HostNotificationsUnanswered) {
                        self.send(&json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "unknown notification"}}));
                    }
                }
            }
        }
        line
    }

    /// Waits for the answer to the request `id`.
    fn answer_to(&mut self, id: i64) -> Value {
        loop {
            let line = self.next();
            if line.get("method").is_none() && line.get("id") == Some(&json!(id)) {
                return line;
            }
        }
    }

    /// Waits until the server has sent a notification of `method`.
    fn notified(&mut self, method: &str) {
        loop {
            let line = self.next();
            if line.get("id").is_none() && line.get("method") == Some(&json!(method)) {
                return;
            }
        }
    }

    /// Answers one server request.
    fn answer(&mut self, id: Value, request: &Value) {
        let method = request["method"].as_str().unwrap_or_default();
        let result = match method {
            "roots/list" if self.breaks(LawId::HostAnswersServerRequests) => return,
            "roots/list" => {
                json!({"roots": [{"uri": "file:///tmp/fixture-host", "name": "scratch"}]})
            }
            "sampling/createMessage" => {
                json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "fixture"})
            }
            "elicitation/create" if self.breaks(LawId::HostCapabilitiesHonest) => {
                self.send(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
                return;
            }
            "elicitation/create" => json!({"action": "accept", "content": {"name": "fixture"}}),
            "ping" => json!({}),
            _ => {
                self.send(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
                return;
            }
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn legacy(&mut self) {
        if self.breaks(LawId::HostFirstMessage) {
            let id = self.request("tools/list", Value::Null);
            self.answer_to(id);
        }
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "fixture-host", "version": env!("CARGO_PKG_VERSION")},
        });
        let initialize = self.request("initialize", params);
        if self.breaks(LawId::HostRequestIds) {
            // The next request takes the id of `initialize` again.
            self.next_id -= 1;
        }
        self.answer_to(initialize);
        if !self.breaks(LawId::HostInitializedSent) {
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        if self.breaks(LawId::HostMessagesValid) {
            self.send_raw("hello, server");
        }
        // The exercise: requests for what the host declared, a ping, then
        // a list change, which a server sends once the host is initialized.
        if !self.breaks(LawId::HostInitializedSent) {
            self.notified("notifications/tools/list_changed");
        }
        let list = self.request("tools/list", Value::Null);
        self.answer_to(list);
        self.calls();
    }

    fn modern(&mut self) {
        let discover = self.request("server/discover", Value::Null);
        self.answer_to(discover);
        if self.breaks(LawId::HostEraProbe) {
            // Back to the handshake, though the server answered a modern
            // request: the stateless era's probe gone wrong.
            let id = self.id();
            self.send(
                &json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "fixture-host", "version": env!("CARGO_PKG_VERSION")}}}),
            );
            self.answer_to(id);
        }
        let list = self.request("tools/list", Value::Null);
        self.answer_to(list);
        // An input_required answer, retried with its state and the input.
        let ask = self.request("tools/call", json!({"name": "ask", "arguments": {}}));
        let asked = self.answer_to(ask);
        let result = &asked["result"];
        let mut responses = serde_json::Map::new();
        if let Some(requests) = result["inputRequests"].as_object() {
            for (key, request) in requests {
                let response = match request["method"].as_str() {
                    Some("roots/list") => json!({"roots": [{"uri": "file:///tmp/fixture-host"}]}),
                    Some("sampling/createMessage") => {
                        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "fixture"})
                    }
                    _ => json!({"action": "accept", "content": {"name": "fixture"}}),
                };
                responses.insert(key.clone(), response);
            }
        }
        let mut state = result["requestState"].clone();
        if self.breaks(LawId::HostMrtrRetry)
            && let Some(text) = state.as_str()
        {
            state = json!(format!("{text}-changed"));
        }
        let retry = self.request(
            "tools/call",
            json!({"name": "ask", "arguments": {}, "requestState": state, "inputResponses": responses}),
        );
        self.answer_to(retry);
        // A listen stream, acknowledged, a list change on it, cancelled.
        let listen = self.request(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        self.notified("notifications/tools/list_changed");
        self.cancel(json!(listen));
        self.calls();
    }

    fn cancel(&mut self, id: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "done"}}));
    }

    /// The calls of both eras: `echo`, then `slow` cancelled, then a last
    /// `echo` that tells the server took the cancellation in.
    fn calls(&mut self) {
        let echo = self.request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": "echo"}}),
        );
        self.answer_to(echo);
        let slow = self.request(
            "tools/call",
            json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "slow"}}),
        );
        if self.breaks(LawId::HostProgressTokens) {
            // A second request in flight with the same token.
            let id = self.request(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "again"}, "_meta": {"progressToken": "slow"}}),
            );
            self.answer_to(id);
        }
        if self.breaks(LawId::HostCancelValid) {
            self.cancel(json!("never-sent"));
        }
        self.cancel(json!(slow));
        let last = self.request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "bye"}}),
        );
        self.answer_to(last);
    }

    /// Ends the session: closes stdin and waits for the server, or, when
    /// breaking the shutdown order, signals it with its stdin still open.
    fn end(mut self) -> ExitCode {
        let pid = rustix::process::Pid::from_child(&self.child);
        if self.breaks(LawId::HostShutdownOrder) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        } else {
            self.stdin = None;
        }
        // The server's exit shows as the end of its stdout: wait on that,
        // not on a clock.
        let deadline = Instant::now() + WAIT;
        loop {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(_) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    // Said, so that a test can see how the server ended.
                    if let Ok(status) = self.child.wait() {
                        use std::os::unix::process::ExitStatusExt as _;
                        let status = status.code().or(status.signal().map(|n| 128 + n));
                        eprintln!(
                            "fixture-host: the server exited with status {}",
                            status.unwrap_or(-1)
                        );
                    }
                    eprintln!("fixture-host: the server did not exit");
                    return ExitCode::from(3);
                }
            }
        }
        // Said, so that a test can see how the server ended.
        if let Ok(status) = self.child.wait() {
            use std::os::unix::process::ExitStatusExt as _;
            let status = status.code().or(status.signal().map(|n| 128 + n));
            eprintln!(
                "fixture-host: the server exited with status {}",
                status.unwrap_or(-1)
            );
        }
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let flags = Flags::parse();
    let mut child = match Command::new(&flags.server[0])
        .args(&flags.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => {
            eprintln!("fixture-host: cannot start `{}`: {err}", flags.server[0]);
            return ExitCode::from(2);
        }
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Value>(&line) {
                Ok(value) => {
                    if tx.send(value).is_err() {
                        break;
                    }
                }
                Err(_) => eprintln!("fixture-host: the server wrote no JSON: {line}"),
            }
        }
    });
    let modern = flags.modern;
    let mut session = Session {
        flags,
        child,
        stdin,
        lines,
        next_id: -1,
    };
    if modern {
        session.modern();
    } else {
        session.legacy();
    }
    session.end()
}
