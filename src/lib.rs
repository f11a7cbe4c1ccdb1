//! mcp-replay: record, replay and check MCP stdio servers, and a core
//! library for writing correct ones.
//!
//! MCP servers speak line-delimited JSON-RPC 2.0 over stdio. This crate ships
//! two things built around that contract:
//!
//! - [`server`], the core server library: a [`Transport`] seam, a serve loop
//!   that classifies frames and never dies on bad input, a tool registry,
//!   tool failures as `isError` results, and a capture guard for everything a
//!   tool run writes to stderr.
//! - the `mcp-replay` command and the library under it: [`transcript`]
//!   (the recorded-session format), `record` (the recording proxy) and
//!   [`check`] (replay, diff and the law catalog).
//!
//! Both halves share [`revision`] (what differs between the MCP revisions)
//! and [`model`] (the crate's own model of each revision's message
//! schemas, which a test holds to the official ones).
//!
//! # Features
//!
//! `cli` (on by default) is the command and everything only it needs: the
//! recorder, the checker's runner, probes and reports, argument parsing,
//! signal handling, regular expressions and the patience text diff. A
//! server that uses the library turns it off:
//!
//! ```toml
//! [dependencies]
//! mcp-replay = { version = "0.1", default-features = false }
//! ```
//!
//! and keeps [`server`], the frames, [`revision`], [`model`], [`laws`] (the
//! catalog), [`transcript`] (the model, the reader and writer, env-value
//! redaction and [`ReplayTransport`](transcript::ReplayTransport)) and the
//! comparison of messages from [`check`]: the wire classifier, the ignore
//! rules, the structural diff and the schema check. Redaction patterns and
//! the masks of a directory config are regular expressions, and need `cli`.
#![deny(unsafe_code)]

pub mod check;
mod jsonrpc;
pub mod laws;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod manifest;
#[cfg(feature = "cli")]
pub mod mock;
pub mod model;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod process;
#[cfg(feature = "cli")]
pub mod record;
pub mod report;
pub mod revision;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod serve;
pub mod server;
pub mod testing;
pub mod transcript;

pub use crate::jsonrpc::{
    ErrorCode, Frame, PROTOCOL_2024_11_05, RequestId, Response, RpcError, json_kind, method,
    notification_line, request_line,
};
pub use crate::revision::{Era, Revision};
pub use crate::server::{
    Capture, ServeError, Server, Tool, ToolDescriptor, ToolOutput, ToolSet, Transport,
    TransportError,
};
pub use crate::transcript::{Transcript, TranscriptError, TranscriptWriter};
