//! What a tool run or a method hook may say to the host before its answer:
//! progress, list changes and log messages, each only where the request
//! and the revision allow it.
//!
//! A [`Context`] writes each notification to the protocol channel at once
//! and flushes it, so the host reads it while the run goes on; the answer
//! is written only after the run returns, so every notification precedes
//! it (MCP basic/utilities/progress: progress stops once the request
//! completes).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::transport::{Transport, TransportError};
use crate::jsonrpc::method;
use crate::revision::{Revision, meta};

/// The severity of a log message: the RFC 5424 levels MCP uses
/// (server/utilities/logging), least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// What the server is doing.
    Info,
    /// A normal but significant event.
    Notice,
    /// Something to look at.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level as the wire writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LogLevel {
    type Err = String;

    fn from_str(text: &str) -> Result<LogLevel, String> {
        serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(|_| {
            format!(
                "unknown log level `{text}`: expected one of debug, info, notice, warning, error, critical, alert, emergency"
            )
        })
    }
}

/// One of the lists a server offers, for [`Context::list_changed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum List {
    /// `tools/list`.
    Tools,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
}

impl List {
    fn notification(self) -> &'static str {
        match self {
            List::Tools => method::TOOLS_LIST_CHANGED,
            List::Resources => "notifications/resources/list_changed",
            List::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// Which lists the server's capabilities say may change
/// (`listChanged: true`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Announced {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
}

/// Which log messages a request lets through.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LogGate {
    /// The server declares no `logging` capability: none.
    Off,
    /// A legacy session: those at or above the level `logging/setLevel`
    /// set, none before it.
    Legacy(Option<LogLevel>),
    /// A modern request: those at or above the level its `_meta` names,
    /// none without it.
    Modern,
}

/// The two `_meta` keys a notification needs, read from the request when
/// first asked for.
#[derive(Deserialize, Default)]
struct NotifyMeta<'p> {
    #[serde(rename = "progressToken", borrow, default)]
    progress_token: Option<&'p RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    log_level: Option<LogLevel>,
}

/// The handle through which a tool run (or a method hook) sends
/// notifications to the host before its answer.
///
/// Each method says whether it sent anything: a notification the request,
/// the revision or the server's capabilities do not allow is dropped, so a
/// server built on the library keeps every law whatever its tools ask for.
/// A notification goes out at once, flushed, ahead of the answer.
pub struct Context<'a> {
    out: &'a mut dyn Transport,
    revision: Revision,
    /// The request's `params._meta`, as it came.
    meta: Option<&'a RawValue>,
    read: Option<NotifyMeta<'a>>,
    logs: LogGate,
    announced: Announced,
    /// The last progress sent: each must be greater.
    progress: Option<f64>,
    /// The channel died while a notification went out.
    failure: Option<TransportError>,
    line: Vec<u8>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(
        out: &'a mut dyn Transport,
        revision: Revision,
        meta: Option<&'a RawValue>,
        logs: LogGate,
        announced: Announced,
    ) -> Context<'a> {
        Context {
            out,
            revision,
            meta,
            read: None,
            logs,
            announced,
            progress: None,
            failure: None,
            line: Vec::new(),
        }
    }

    /// The revision the request is served under.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Whether the host asked for progress on this request (its params
    /// carry `_meta.progressToken`).
    pub fn wants_progress(&mut self) -> bool {
        self.token().is_some()
    }

    /// Sends `notifications/progress` for this request: `progress` so far,
    /// of `total` when known, with a `message` for people (2025-03-26 on;
    /// left out before).
    ///
    /// Sent only when the request carried a `progressToken`, with that
    /// token, and only when `progress` is greater than the last one sent,
    /// as the spec requires progress to increase (MCP
    /// basic/utilities/progress). Returns whether it was sent.
    pub fn progress(&mut self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = self.token() else {
            return false;
        };
        if !progress.is_finite() || self.progress.is_some_and(|last| progress <= last) {
            return false;
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Progress<'a> {
            progress_token: &'a RawValue,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        let params = Progress {
            progress_token: token,
            progress,
            total: total.filter(|total| total.is_finite()),
            message: message.filter(|_| self.revision >= Revision::V2025_03_26),
        };
        let sent = self.send(method::PROGRESS, &params);
        if sent {
            self.progress = Some(progress);
        }
        sent
    }

    /// Sends `notifications/message`: a log message at `level`, from
    /// `logger` when named, carrying `data` (any JSON; a string is usual).
    ///
    /// Sent only when the server declares logging
    /// ([`Server::with_logging`](super::Server::with_logging)) and the
    /// client allowed it: in a legacy session after `logging/setLevel`, at
    /// or above that level; on 2026-07-28 when the request's `_meta` names
    /// a log level, at or above it (MCP server/utilities/logging). Log
    /// messages must not carry secrets or personal data. Returns whether
    /// it was sent.
    pub fn log(&mut self, level: LogLevel, logger: Option<&str>, data: impl Serialize) -> bool {
        let threshold = match self.logs {
            LogGate::Off => None,
            LogGate::Legacy(threshold) => threshold,
            LogGate::Modern => self.read_meta().log_level,
        };
        if threshold.is_none_or(|threshold| level < threshold) {
            return false;
        }
        #[derive(Serialize)]
        struct Message<'a, T> {
            level: LogLevel,
            #[serde(skip_serializing_if = "Option::is_none")]
            logger: Option<&'a str>,
            data: T,
        }
        self.send(
            method::LOG_MESSAGE,
            &Message {
                level,
                logger,
                data,
            },
        )
    }

    /// Sends `notifications/{tools,resources,prompts}/list_changed` for
    /// `list`.
    ///
    /// Sent only in a legacy session, and only for a list the server's
    /// capabilities say may change
    /// ([`Server::with_list_changed`](super::Server::with_list_changed)); on
    /// 2026-07-28 list changes go only on a `subscriptions/listen` stream,
    /// which this library does not serve (MCP 2026-07-28
    /// basic/patterns/subscriptions). Returns whether it was sent.
    pub fn list_changed(&mut self, list: List) -> bool {
        let announced = match list {
            List::Tools => self.announced.tools,
            List::Resources => self.announced.resources,
            List::Prompts => self.announced.prompts,
        };
        if self.revision.is_modern() || !announced {
            return false;
        }
        #[derive(Serialize)]
        struct Empty {}
        self.send(list.notification(), &Empty {})
    }

    /// Why the channel died while a notification went out, if it did.
    pub(crate) fn into_failure(self) -> Option<TransportError> {
        self.failure
    }

    fn read_meta(&mut self) -> &NotifyMeta<'a> {
        let meta = self.meta;
        self.read.get_or_insert_with(|| {
            meta.filter(|meta| meta.get().starts_with('{'))
                .and_then(|meta| serde_json::from_str(meta.get()).ok())
                .unwrap_or_default()
        })
    }

    /// The request's progress token, when it is one (a string or an
    /// integer).
    fn token(&mut self) -> Option<&'a RawValue> {
        self.read_meta().progress_token.filter(|token| {
            let text = token.get();
            text.starts_with('"') || text.parse::<i64>().is_ok()
        })
    }

    fn send(&mut self, method: &str, params: &impl Serialize) -> bool {
        if self.failure.is_some() {
            return false;
        }
        #[derive(Serialize)]
        struct Wire<'a, P> {
            jsonrpc: &'static str,
            method: &'a str,
            params: &'a P,
        }
        self.line.clear();
        let wire = Wire {
            jsonrpc: "2.0",
            method,
            params,
        };
        if serde_json::to_writer(&mut self.line, &wire).is_err() {
            // Data that does not serialize (a map with non-string keys) is
            // no notification.
            return false;
        }
        match self
            .out
            .write_line(&self.line)
            .and_then(|()| self.out.flush())
        {
            Ok(()) => true,
            Err(err) => {
                self.failure = Some(err);
                false
            }
        }
    }
}

impl fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("revision", &self.revision)
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

/// Whether a modern request's `_meta` log level, when it names one, is a
/// level: the reason it is not, for a -32602.
pub(crate) fn check_log_level(level: Option<&RawValue>) -> Result<(), String> {
    let Some(level) = level else {
        return Ok(());
    };
    match serde_json::from_str::<LogLevel>(level.get()) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!(
            "`params._meta` `{}` must be one of debug, info, notice, warning, error, critical, alert, emergency, found {}",
            meta::LOG_LEVEL,
            level.get()
        )),
    }
}
