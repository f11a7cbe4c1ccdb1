//! The recorded side of a mock: every client request of the transcripts,
//! each with what the server did after it, in recorded order.
//!
//! A transcript is read as a list of calls. A call is one client request
//! and its script: the recorded server messages it owns, in the order they
//! were written. A response belongs to the request whose id it carries; a
//! notification or a server request belongs to the last client request
//! recorded before it (the one it followed), and one written before any
//! request belongs to the preamble, sent with the first answer. Lines that
//! are no JSON-RPC object (stray output, batches) are left out.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::MockError;
use crate::compare::diff::IgnoreRules;
use crate::config::{self, Config};
use crate::jsonrpc::{Frame, RequestId, method};
use crate::revision::{Era, Revision, meta};
use crate::transcript::{Direction, EventKind, Redactor, Transcript};

/// One transcript a mock serves: where it is, and how its requests are
/// compared.
#[derive(Debug)]
pub(crate) struct Source {
    /// The file, as given.
    pub path: PathBuf,
    /// Its header's ignore rules, then those of the nearest `mcp-replay.json`.
    pub rules: IgnoreRules,
    /// Its redactions, with the values of the current environment: a live
    /// line is redacted before it is compared with the recorded ones.
    pub redactor: Redactor,
}

/// What the recorded server did after a request, one message at a time,
/// each as the text it was recorded as.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// A notification, sent as recorded.
    Notify(String),
    /// A server request: sent, and its answer awaited.
    Ask(String),
    /// The response to the call's request, sent under the caller's id.
    Respond(String),
}

/// One recorded client request and its script.
#[derive(Debug)]
pub(crate) struct Call {
    /// The index of its transcript in [`Recorded::sources`].
    pub source: usize,
    /// Its line in the transcript.
    pub line: usize,
    /// The method.
    pub method: String,
    /// The era of the session it was recorded in.
    pub era: Era,
    /// The normalized params, as compact JSON with sorted keys.
    pub normalized: String,
    /// What names the object of the request (a tool's or a prompt's
    /// `name`, a resource's `uri`), for the matching by name.
    pub key: Option<String>,
    /// The progress token of its `_meta`, which recorded progress
    /// notifications carry.
    pub progress_token: Option<Value>,
    /// What the server did after it.
    pub script: Vec<Action>,
}

impl Call {
    /// Where it was recorded, as `file:line`.
    pub fn at(&self, sources: &[Source]) -> String {
        format!("{}:{}", sources[self.source].path.display(), self.line)
    }
}

/// Everything the mock serves, read from its transcripts.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// The transcripts, in the order given.
    pub sources: Vec<Source>,
    /// Every client request, transcript after transcript, in recorded order.
    pub calls: Vec<Call>,
    /// Server messages recorded before any client request.
    pub preamble: Vec<(usize, Action)>,
    /// The input schema of every tool a recorded `tools/list` listed, by
    /// name; `None` when no listing was recorded.
    pub tools: Option<BTreeMap<String, Value>>,
    /// The first recorded `server/discover` result.
    pub discover: Option<Value>,
    /// The server's name and version, from a recorded `initialize` result
    /// or a modern result's `_meta`.
    pub server_info: Option<Value>,
    /// The revision a recorded `initialize` negotiated.
    pub legacy_revision: Option<Revision>,
}

impl Recorded {
    /// Reads every transcript of `paths`.
    ///
    /// # Errors
    ///
    /// [`MockError`] naming the file (and line) that cannot be used.
    pub fn read(paths: &[PathBuf]) -> Result<Recorded, MockError> {
        if paths.is_empty() {
            return Err(MockError::NoTranscript);
        }
        let mut recorded = Recorded::default();
        for path in paths {
            let transcript = Transcript::read(path)?;
            recorded.add(path, &transcript)?;
        }
        Ok(recorded)
    }

    fn add(&mut self, path: &Path, transcript: &Transcript) -> Result<(), MockError> {
        let mut rules = IgnoreRules::parse(transcript.header.ignore.iter().map(String::as_str))
            .map_err(|message| MockError::Ignore {
                path: path.to_owned(),
                message,
            })?;
        if let Some(found) = config_near(path) {
            rules.extend(&Config::read(&found)?.ignore);
        }
        let redactor =
            Redactor::from_env(&transcript.header.redact).map_err(|source| MockError::Redact {
                path: path.to_owned(),
                source,
            })?;
        let source = self.sources.len();
        self.sources.push(Source {
            path: path.to_owned(),
            rules,
            redactor,
        });
        let mut era = None;
        let mut current: Option<usize> = None;
        let mut pending: HashMap<RequestId, usize> = HashMap::new();
        for event in &transcript.events {
            let EventKind::Line { dir, payload, .. } = &event.kind else {
                continue;
            };
            // A line that is JSON beyond what mcp-replay reads as a message
            // was a request or an answer the mock can neither match nor
            // send: leaving it out would answer its request with "the
            // recording has no answer", which the recording has.
            if *dir != Direction::Stderr
                && let Some(why) = payload.beyond_limits()
            {
                return Err(MockError::Unreadable {
                    path: path.to_owned(),
                    line: event.line,
                    side: if *dir == Direction::ClientToServer {
                        "client"
                    } else {
                        "server"
                    },
                    why,
                });
            }
            let Some(Value::Object(object)) = payload.to_json() else {
                continue;
            };
            let text = String::from_utf8_lossy(payload.as_bytes())
                .trim()
                .to_owned();
            match (dir, Frame::from_object(object)) {
                (Direction::ClientToServer, Frame::Request { id, method, params }) => {
                    if method == method::INITIALIZE {
                        era = Some(Era::Legacy);
                    } else if era.is_none() && speaks_modern(&method, params.as_ref()) {
                        era = Some(Era::Modern);
                    }
                    let sources = &self.sources[source];
                    let call = Call {
                        source,
                        line: event.line,
                        era: era.unwrap_or(Era::Legacy),
                        normalized: normalize(&method, params.as_ref(), &sources.rules),
                        key: key(&method, params.as_ref()),
                        progress_token: progress_token(params.as_ref()),
                        method,
                        script: Vec::new(),
                    };
                    pending.insert(id, self.calls.len());
                    current = Some(self.calls.len());
                    self.calls.push(call);
                }
                (
                    Direction::ServerToClient,
                    Frame::Response {
                        id: Some(id),
                        outcome,
                    },
                ) => {
                    let Some(index) = pending.remove(&id) else {
                        continue;
                    };
                    if let Ok(result) = &outcome {
                        self.learn(&self.calls[index].method.clone(), result);
                    }
                    self.calls[index].script.push(Action::Respond(text));
                }
                (Direction::ServerToClient, Frame::Notification { .. }) => {
                    self.follow(current, source, Action::Notify(text));
                }
                (Direction::ServerToClient, Frame::Request { .. }) => {
                    self.follow(current, source, Action::Ask(text));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether a recorded session spoke the stateless revision.
    pub fn speaks_modern(&self) -> bool {
        self.calls.iter().any(|call| call.era == Era::Modern)
    }

    /// Files `action` under the call it followed, or the preamble.
    fn follow(&mut self, current: Option<usize>, source: usize, action: Action) {
        match current {
            Some(index) => self.calls[index].script.push(action),
            None => self.preamble.push((source, action)),
        }
    }

    /// What a recorded result says about the server: its tools, its
    /// discovery answer, its name and revision.
    fn learn(&mut self, method: &str, result: &Value) {
        match method {
            method::TOOLS_LIST => {
                let tools = self.tools.get_or_insert_with(BTreeMap::new);
                for tool in result
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(name) = tool.get("name").and_then(Value::as_str) {
                        let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
                        tools.entry(name.to_owned()).or_insert(schema);
                    }
                }
            }
            method::INITIALIZE => {
                if self.legacy_revision.is_none() {
                    self.legacy_revision = result
                        .get("protocolVersion")
                        .and_then(Value::as_str)
                        .and_then(Revision::parse)
                        .filter(|revision| !revision.is_modern());
                }
                if let Some(info) = result.get("serverInfo") {
                    self.server_info.get_or_insert_with(|| info.clone());
                }
            }
            method::SERVER_DISCOVER => {
                self.discover.get_or_insert_with(|| result.clone());
            }
            _ => {}
        }
        if let Some(info) =
            result.pointer(&format!("/_meta/{}", meta::SERVER_INFO.replace('/', "~1")))
        {
            self.server_info.get_or_insert_with(|| info.clone());
        }
    }
}

/// The nearest `mcp-replay.json` of a transcript: in its directory or a
/// parent, no higher than the current directory when the transcript is
/// under it, else its own directory.
fn config_near(path: &Path) -> Option<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let root = if dir.is_relative() {
        PathBuf::new()
    } else {
        match std::env::current_dir() {
            Ok(cwd) if dir.starts_with(&cwd) => cwd,
            _ => dir.to_owned(),
        }
    };
    config::find(dir, &root)
}

/// Whether a request speaks the stateless revision: `server/discover`, or
/// params whose `_meta` carries a key only modern requests carry.
pub(crate) fn speaks_modern(method: &str, params: Option<&Value>) -> bool {
    method == method::SERVER_DISCOVER
        || params
            .and_then(|params| params.get("_meta"))
            .is_some_and(|meta| {
                meta.get(meta::PROTOCOL_VERSION).is_some()
                    || meta.get(meta::CLIENT_CAPABILITIES).is_some()
            })
}

/// A request's params as the matching compares them: `_meta` left out
/// (protocol version, client info, progress token), absent params as an
/// empty object, then the transcript's ignore rules applied to the
/// request (`{"method": ..., "params": ...}`), as compact JSON with sorted
/// keys. The id is never part of it.
pub(crate) fn normalize(method: &str, params: Option<&Value>, rules: &IgnoreRules) -> String {
    let mut params = match params {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params) => params.clone(),
    };
    if let Value::Object(map) = &mut params {
        map.remove("_meta");
    }
    let mut request = Value::Object(Map::from_iter([
        ("method".to_owned(), Value::from(method)),
        ("params".to_owned(), params),
    ]));
    rules.apply(&mut request);
    request
        .get("params")
        .map_or_else(|| "{}".to_owned(), Value::to_string)
}

/// What names the object of a request, for the methods that have one.
pub(crate) fn key(method: &str, params: Option<&Value>) -> Option<String> {
    let member = match method {
        method::TOOLS_CALL | method::PROMPTS_GET => "name",
        method::RESOURCES_READ | "resources/subscribe" | "resources/unsubscribe" => "uri",
        "completion/complete" => "ref",
        _ => return None,
    };
    Some(
        params
            .and_then(|params| params.get(member))
            .map_or_else(String::new, Value::to_string),
    )
}

/// The progress token in a request's `_meta`.
pub(crate) fn progress_token(params: Option<&Value>) -> Option<Value> {
    params?.get("_meta")?.get(meta::PROGRESS_TOKEN).cloned()
}
