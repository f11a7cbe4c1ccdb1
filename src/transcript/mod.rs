//! The transcript format (v2, which reads v1 too): one recorded host↔server
//! session per file.
//!
//! A transcript is JSON Lines. The first line is the [`Header`]; every other
//! line is one [`Event`]: a line the client sent, a line the server wrote on
//! stdout or stderr, the negotiated protocol revision once it is known, the
//! host's end of input and the signals the recorder passed on (version 2),
//! or how the server ended. The format streams: the recorder appends one line per
//! event and flushes it at once, so a crash loses at most the line being
//! written, and the reader reports such a truncated last line as a warning.
//!
//! The same file drives two things: `mcp-replay check` replays it against a
//! server process, and [`ReplayTransport`] replays it against an in-process
//! [`Server`](crate::Server). `docs/transcript-format.md` describes
//! the format field by field; `docs/transcript.schema.json` is its JSON Schema.

mod base64;
mod classify;
#[cfg(feature = "cli")]
pub(crate) mod clock;
mod fill;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod input;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod output;
mod read;
mod redact;
mod replay;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod secrets;
mod write;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

pub(crate) use self::classify::{LineKind, beyond_limits};
pub use self::fill::{FILL_ENV, fill_names, fill_names_from_env, with_fill_names};
pub(crate) use self::fill::{Unfilled, filler};
#[cfg_attr(not(feature = "cli"), allow(unused_imports))]
pub(crate) use self::read::{BOM_FOUND, bom_at, line_too_long, read_line};
pub use self::read::{TranscriptError, TranscriptWarning};
pub(crate) use self::redact::MIN_SECRET_LEN;
pub use self::redact::{RedactError, Redactor};
pub use self::replay::ReplayTransport;
#[cfg_attr(not(feature = "cli"), allow(unused_imports))]
pub(crate) use self::secrets::{env_secret_names, secret_names};
pub use self::write::TranscriptWriter;
#[cfg_attr(not(feature = "cli"), allow(unused_imports))]
pub(crate) use self::write::encode_line_event;

/// The value of the header's `format` field.
pub const FORMAT: &str = "mcp-replay-transcript";

/// The format version this crate writes: 2, which records how the host
/// ended the session (its end of input, the signals passed on to the
/// server).
pub const VERSION: u32 = 2;

/// The versions this crate reads: 1 and 2. A version-1 transcript reads as
/// it always did; it cannot say how the host ended the session.
pub const READS: &[u32] = &[1, 2];

/// The first line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version, [`VERSION`] for files this crate writes.
    pub version: u32,
    /// The tool that wrote the file, e.g. `mcp-replay 0.1.0`.
    pub tool: String,
    /// When the recording started, RFC 3339 in UTC.
    pub created: String,
    /// The server command as argv (never a shell string).
    pub command: Vec<String>,
    /// The server's working directory, relative to the directory that holds
    /// the transcript where possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The names (never the values) of the environment variables the server
    /// was started with, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// What the recorder replaced by placeholders.
    #[serde(default, skip_serializing_if = "Redaction::is_empty")]
    pub redact: Redaction,
    /// Ignore rules for volatile fields of server messages: JSON pointers in
    /// which a `*` segment matches any one key or index and a `**` segment
    /// matches any number of segments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<String>,
    /// In a transcript `mcp-replay fuzz` wrote of a failure: what the
    /// server really did, which the server side of the transcript (the
    /// lawful answers a fixed server gives) does not show. Replay never
    /// reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzz: Option<FuzzNote>,
}

/// What `mcp-replay fuzz` saw of the failure a transcript keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FuzzNote {
    /// The tool called.
    pub tool: String,
    /// The kind of failure (`crash`, `accepts-invalid`, …), as the
    /// transcript's name has it.
    pub failure: String,
    /// What happened, in the finding's words (how the server ended, with
    /// its last stderr lines, where it did).
    pub said: String,
    /// The server's answer to the failing call as it came, redacted; `null`
    /// when none came.
    pub answered: Option<serde_json::Value>,
}

impl Header {
    /// A header for a new recording of `command`, created now.
    pub fn new(command: Vec<String>, created: String) -> Header {
        Header {
            format: FORMAT.to_owned(),
            version: VERSION,
            tool: concat!("mcp-replay ", env!("CARGO_PKG_VERSION")).to_owned(),
            created,
            command,
            cwd: None,
            env: Vec::new(),
            redact: Redaction::default(),
            ignore: Vec::new(),
            fuzz: None,
        }
    }
}

/// The redactions a recording applied.
///
/// A secret value is replaced, wherever it appears in a message, by the
/// placeholder `[REDACTED:NAME]` (for an environment variable `NAME`) or
/// `[REDACTED:pattern-N]` (for the N-th pattern, counting from 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Redaction {
    /// The environment variables whose values were redacted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// The extra regular expressions given with `--redact`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patterns: Vec<String>,
}

impl Redaction {
    /// Whether nothing was redacted.
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.patterns.is_empty()
    }

    /// The placeholder written in place of the value of variable `name`.
    pub fn env_placeholder(name: &str) -> String {
        format!("[REDACTED:{name}]")
    }

    /// The placeholder written in place of a match of pattern `index` (from 0).
    pub fn pattern_placeholder(index: usize) -> String {
        format!("[REDACTED:pattern-{}]", index + 1)
    }
}

/// Which stream a recorded line travelled on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// Client to server: the server's stdin.
    #[serde(rename = "c2s")]
    ClientToServer,
    /// Server to client: the server's stdout.
    #[serde(rename = "s2c")]
    ServerToClient,
    /// The server's stderr.
    #[serde(rename = "stderr")]
    Stderr,
}

impl Direction {
    /// The name used in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "c2s",
            Direction::ServerToClient => "s2c",
            Direction::Stderr => "stderr",
        }
    }
}

/// The content of one recorded line.
#[derive(Debug, Clone)]
pub enum Payload {
    /// A line that is exactly one JSON value, kept as its original text.
    Json(Box<RawValue>),
    /// A line that is valid UTF-8 but not exactly one JSON value, kept as is.
    Text(String),
    /// A line that is not valid UTF-8, kept byte for byte.
    Bytes(Vec<u8>),
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        match (self, other) {
            (Payload::Json(a), Payload::Json(b)) => a.get() == b.get(),
            (Payload::Text(a), Payload::Text(b)) => a == b,
            (Payload::Bytes(a), Payload::Bytes(b)) => a == b,
            _ => false,
        }
    }
}

impl Payload {
    /// Classifies the bytes of one line (without its terminator).
    ///
    /// A line is `Json` only when its bytes are exactly the JSON text (no
    /// surrounding whitespace), so writing `Json` back reproduces the line.
    pub fn from_line(line: &[u8]) -> Payload {
        match LineKind::of(line) {
            LineKind::Json(json) => Payload::Json(
                serde_json::from_slice::<Box<RawValue>>(json)
                    .expect("classified as one JSON value"),
            ),
            LineKind::Text(text) => Payload::Text(text.to_owned()),
            LineKind::Bytes(bytes) => Payload::Bytes(bytes.to_vec()),
        }
    }

    /// The exact bytes of the line.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Payload::Json(raw) => raw.get().as_bytes(),
            Payload::Text(text) => text.as_bytes(),
            Payload::Bytes(bytes) => bytes,
        }
    }

    /// The line parsed as JSON, when it is JSON (a `Text` line with
    /// surrounding whitespace parses too). A line of more JSON values than
    /// are read into memory as one message (524,288) is not read: `None`.
    pub fn to_json(&self) -> Option<serde_json::Value> {
        if crate::jsonrpc::too_many_values(self.as_bytes()).is_some() {
            return None;
        }
        match self {
            Payload::Json(raw) => serde_json::from_str(raw.get()).ok(),
            Payload::Text(text) => serde_json::from_str(text).ok(),
            Payload::Bytes(_) => None,
        }
    }

    /// Why a line that is JSON cannot be read as a message, when that is
    /// so: it is beyond the limits of the grammar the checker reads
    /// (nesting, a number's range, a lone surrogate; see `classify.rs`).
    /// `None` for a line that reads, and for one that is no JSON at all.
    pub(crate) fn beyond_limits(&self) -> Option<&'static str> {
        let text = match self {
            Payload::Json(raw) => raw.get(),
            Payload::Text(text) => text.trim_matches(['\t', '\n', '\r', ' ']),
            Payload::Bytes(_) => return None,
        };
        beyond_limits(text.as_bytes())
    }
}

/// How the recorded server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Exit {
    /// It exited with this status code.
    Code(i32),
    /// It was killed by this signal number.
    Signal(i32),
}

impl Exit {
    /// The status a shell reports: the code, or 128 + the signal number.
    pub fn shell_status(self) -> i32 {
        match self {
            Exit::Code(code) => code,
            Exit::Signal(signal) => 128 + signal,
        }
    }
}

/// One event of a transcript.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Event {
    /// The 1-based line of the file the event was read from (0 when the event
    /// was not read from a file).
    pub line: usize,
    /// Seconds since the recording started.
    pub t: f64,
    /// What happened.
    pub kind: EventKind,
}

/// What an [`Event`] records.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EventKind {
    /// A line on one of the server's streams.
    Line {
        /// The stream.
        dir: Direction,
        /// The line's content.
        payload: Payload,
        /// `false` when the line ended the stream without a newline.
        eol: bool,
        /// The line was longer than the recorder keeps: `payload` is its
        /// start, and this many bytes more of it were forwarded but not
        /// recorded.
        cut: Option<u64>,
    },
    /// The protocol revision the session negotiated.
    Protocol(String),
    /// The host closed the server's stdin: its end of input (version 2).
    EndOfInput,
    /// The recorder received this signal and passed it on to the server
    /// (version 2).
    Signal(i32),
    /// How the server ended.
    Exit(Exit),
}

/// A whole transcript, read into memory.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Transcript {
    /// The file it was read from.
    pub path: PathBuf,
    /// The header.
    pub header: Header,
    /// The events, in file order.
    pub events: Vec<Event>,
    /// Problems that did not stop the read (a truncated last line).
    pub warnings: Vec<TranscriptWarning>,
}

impl Transcript {
    /// The negotiated protocol revision, when the transcript recorded one.
    pub fn protocol(&self) -> Option<&str> {
        self.events.iter().find_map(|event| match &event.kind {
            EventKind::Protocol(revision) => Some(revision.as_str()),
            _ => None,
        })
    }

    /// Whether the transcript's format records how the host ended the
    /// session (version 2 and later): its end of input and the signals
    /// passed on are events, so their absence means they did not happen.
    pub fn records_host_ending(&self) -> bool {
        self.header.version >= 2
    }

    /// How the recorded server ended, when the transcript says.
    pub fn exit(&self) -> Option<Exit> {
        self.events.iter().find_map(|event| match event.kind {
            EventKind::Exit(exit) => Some(exit),
            _ => None,
        })
    }

    /// The events on one stream, in order.
    pub fn lines(&self, dir: Direction) -> impl Iterator<Item = (&Event, &Payload)> {
        self.events
            .iter()
            .filter_map(move |event| match &event.kind {
                EventKind::Line {
                    dir: d, payload, ..
                } if *d == dir => Some((event, payload)),
                _ => None,
            })
    }
}
