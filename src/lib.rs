//! mcp-replay: record, replay and check MCP stdio servers, and a core
//! library for writing correct ones.
//!
//! MCP servers speak line-delimited JSON-RPC 2.0 over stdio. This crate ships
//! two things built around that contract:
//!
//! - the core server library, whose items are the crate root's: a
//!   [`Server`] is a name, a version and a [`ToolSet`], driven over a
//!   [`Transport`]. The loop reads one line at a time and classifies it by
//!   its id: a request is answered exactly once, a notification never, and
//!   a line that is no frame gets a parse error while the loop goes on.
//!   Tool failures are `isError` results, and a [`Capture`] guard catches
//!   everything a tool run writes to stderr. Besides tools, a server may
//!   offer resources ([`ResourceSet`]) and prompts ([`PromptSet`]), answer
//!   methods of its own ([`Server::with_method`]), and send progress, log
//!   messages and list changes from a run through its [`Context`]; typed
//!   tools ([`ToolSet::with_typed`]) get their arguments as a
//!   `Deserialize` type. [`testing`] drives a server in-process with a
//!   recorded transcript.
//! - the `mcp-replay` command and the library under it: [`transcript`]
//!   (the recorded-session format), `record` (the recording proxy),
//!   `check` (replay, diff and the law probes) and `fuzz` (a server's
//!   tools called with arguments drawn from their schemas), on an engine
//!   they share: the client that speaks to a server, the comparison of
//!   messages, the replay of a transcript and one JSON Schema room.
//!
//! Both halves share [`revision`] (what differs between the MCP revisions)
//! and [`model`] (the crate's own model of each revision's message
//! schemas, which a test holds to the official ones).
//!
//! ```no_run
//! use mcp_replay::{Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
//! use serde_json::{Value, json};
//!
//! struct Echo;
//!
//! impl Tool for Echo {
//!     fn descriptor(&self) -> ToolDescriptor {
//!         let schema = json!({
//!             "type": "object",
//!             "properties": {"text": {"type": "string"}},
//!             "required": ["text"]
//!         });
//!         ToolDescriptor::new("echo", "Answers with its text", schema)
//!     }
//!
//!     fn run(&self, args: &Value) -> ToolOutput {
//!         ToolOutput::ok(args["text"].as_str().unwrap_or_default())
//!     }
//! }
//!
//! let server = Server::new("echo-server", "1.0.0", ToolSet::new().with(Echo));
//! server.serve_stdio().expect("the protocol channel works");
//! ```
//!
//! # Features
//!
//! `cli` (on by default) is the command and everything only it needs: the
//! recorder, the checker's runner and probes, the mock, argument parsing,
//! signal handling and regular expressions. A server that uses the library
//! turns it off:
//!
//! ```toml
//! [dependencies]
//! mcp-replay = { version = "0.1", default-features = false }
//! ```
//!
//! and keeps the server library, the frames, [`revision`], [`model`],
//! [`laws`] (the catalog), [`transcript`] (the model, the reader and
//! writer, env-value redaction and
//! [`ReplayTransport`](transcript::ReplayTransport)), [`report`] (findings)
//! and [`testing`], with the client, the replay and the comparison of
//! messages that it runs. Redaction patterns and the masks of a directory
//! config are regular expressions, and need `cli`.
#![deny(unsafe_code)]

#[cfg(feature = "cli")]
pub mod check;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub mod client;
mod compare;
#[cfg(feature = "cli")]
pub mod config;
#[cfg(test)]
mod doc_tests;
#[cfg(feature = "cli")]
pub mod fuzz;
pub mod host;
mod jsonrpc;
pub mod laws;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod manifest;
#[cfg(feature = "cli")]
pub mod mock;
pub mod model;
#[cfg(test)]
mod official_schemas;
#[cfg(feature = "cli")]
mod patterns;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod process;
#[cfg(feature = "cli")]
pub mod record;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod replay;
pub mod report;
pub mod revision;
#[cfg(test)]
mod rooms;
mod schema;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod serve;
mod server;
pub mod testing;
pub mod transcript;

pub use crate::jsonrpc::{
    ErrorCode, Frame, PROTOCOL_2024_11_05, RequestId, Response, RpcError, json_kind, method,
    notification_line, request_line,
};
pub use crate::server::{
    BUILT_IN, CacheScope, Capture, Context, GetPrompt, List, LogLevel, MethodError, MethodResult,
    PROTOCOL_REVISIONS, Prompt, PromptArgument, PromptArguments, PromptMessage, PromptSet,
    ReadResult, Resource, ResourceContents, ResourceError, ResourceSet, ResourceTemplate, Role,
    ServeError, Server, Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet, Transport,
    TransportError,
};
