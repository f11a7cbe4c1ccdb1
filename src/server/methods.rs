//! Hooks for the methods the library does not answer itself: a server's
//! own requests and notifications.
//!
//! The loop keeps its laws around a hook: a request is answered exactly
//! once, with the hook's result or error (a panic is an internal error);
//! a notification is never answered, whatever its hook does. The methods
//! the library answers cannot be hooked (see [`BUILT_IN`]), and on
//! 2026-07-28 the methods that revision removed stay unknown.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::context::Context;
use crate::jsonrpc::{ErrorCode, method};

/// The methods the loop answers itself;
/// [`Server::with_method`](super::Server::with_method) refuses them, so no hook can break the
/// laws they keep (the handshake, the tool contract, the lists' order and
/// capabilities).
pub const BUILT_IN: &[&str] = &[
    method::INITIALIZE,
    method::PING,
    method::SERVER_DISCOVER,
    method::TOOLS_LIST,
    method::TOOLS_CALL,
    method::RESOURCES_LIST,
    method::RESOURCES_TEMPLATES_LIST,
    method::RESOURCES_READ,
    method::PROMPTS_LIST,
    method::PROMPTS_GET,
    method::LOGGING_SET_LEVEL,
];

/// The JSON-RPC error a method hook answers with.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MethodError {
    /// The error code.
    pub code: ErrorCode,
    /// The message.
    pub message: String,
    /// More about the error, as JSON.
    pub data: Option<Value>,
}

impl MethodError {
    /// An error with `code` and `message`.
    ///
    /// On 2026-07-28 a code the revision reserves and does not define
    /// (-32002, -32042, and -32020 to -32099 other than -32020, -32021 and
    /// -32022) goes out as -32603 with the same message, as the revision
    /// forbids emitting them (MCP 2026-07-28 basic/index#error-codes).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> MethodError {
        MethodError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// -32602: the params are wrong; `message` says how.
    pub fn invalid_params(message: impl Into<String>) -> MethodError {
        MethodError::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// -32603: the method failed; `message` says how.
    pub fn internal(message: impl Into<String>) -> MethodError {
        MethodError::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: Value) -> MethodError {
        self.data = Some(data);
        self
    }

    /// The code as the modern revision may emit it.
    pub(crate) fn modern_code(&self) -> ErrorCode {
        let code = self.code.0;
        let reserved = code == -32002
            || code == -32042
            || ((-32099..=-32020).contains(&code) && !(-32022..=-32020).contains(&code));
        if reserved {
            ErrorCode::INTERNAL_ERROR
        } else {
            self.code
        }
    }
}

/// What a request hook answers: a result object, or an error.
pub type MethodResult = Result<Value, MethodError>;

type RequestHook = Box<dyn Fn(&Value, &mut Context<'_>) -> MethodResult>;
type NotificationHook = Box<dyn Fn(&Value)>;

/// The hooks a server registered.
#[derive(Default)]
pub(crate) struct Hooks {
    pub requests: BTreeMap<String, RequestHook>,
    pub notifications: BTreeMap<String, NotificationHook>,
}

impl Hooks {
    pub fn request(&self, name: &str) -> Option<&RequestHook> {
        if self.requests.is_empty() {
            return None;
        }
        self.requests.get(name)
    }

    pub fn notification(&self, name: &str) -> Option<&NotificationHook> {
        if self.notifications.is_empty() {
            return None;
        }
        self.notifications.get(name)
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("requests", &self.requests.keys().collect::<Vec<_>>())
            .field(
                "notifications",
                &self.notifications.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
}
