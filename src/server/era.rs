//! Which era a process serves, and what a modern request must carry.
//!
//! One process serves both eras, and the client's first move picks one for
//! the rest of the process (MCP 2026-07-28 basic/versioning, the
//! compatibility matrix): an `initialize` selects the legacy handshake
//! revisions, a request that carries the modern `params._meta` selects the
//! stateless 2026-07-28 handling, under which every request stands alone and
//! must carry its own `_meta`. Until either happens, requests are served as
//! MCP-CORE's revision, 2024-11-05 (MCP-CORE r1 §1¶07), so a host that skips
//! the handshake is served as before.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::context::check_log_level;
use crate::jsonrpc::{ErrorCode, method};
use crate::revision::{Revision, meta};

/// What the process serves, as far as the client has chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Session {
    /// Neither an `initialize` nor a modern request yet.
    Undecided,
    /// An `initialize` negotiated this legacy revision.
    Legacy(Revision),
    /// A request carried modern `_meta` first: every request stands alone.
    Modern,
}

impl Session {
    /// Whether an error answer leaves out an id that could not be read
    /// (else it writes `"id": null`).
    ///
    /// JSON-RPC 2.0 §5 writes `null`, which no MCP schema accepts; the
    /// schemas of 2025-11-25 on accept an absent id instead, and those
    /// before require an id that such an answer cannot have. So the id is
    /// left out where the revision's schema allows it, and is `null`, as
    /// JSON-RPC asks, where no form validates and before any revision is
    /// known.
    pub(super) fn unknown_id_absent(self) -> bool {
        match self {
            Session::Undecided => false,
            Session::Legacy(revision) => revision.error_id_may_be_absent(),
            Session::Modern => true,
        }
    }
}

/// Why a request is refused before its method runs: a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    pub code: ErrorCode,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    fn invalid_params(message: String, data: Option<Value>) -> Refusal {
        Refusal {
            code: ErrorCode::INVALID_PARAMS,
            message,
            data,
        }
    }
}

/// The revisions a modern request may name in its `_meta`.
pub(crate) fn modern_revisions() -> Vec<&'static str> {
    Revision::ALL
        .iter()
        .filter(|revision| revision.is_modern())
        .map(|revision| revision.as_str())
        .collect()
}

/// The legacy revision `initialize` answers: the requested one when the
/// library speaks it, else 2024-11-05 (MCP-CORE r1 §1¶07), which every
/// legacy client knows.
pub(crate) fn negotiate(requested: Option<&str>) -> Revision {
    requested
        .and_then(Revision::parse)
        .filter(|revision| !revision.is_modern())
        .unwrap_or(Revision::V2024_11_05)
}

/// The two keys of `params._meta` every modern request carries, as found
/// (a `null` counts as missing).
#[derive(Deserialize, Default)]
struct RequestMeta<'p> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<&'p RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'p RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'p RawValue>,
}

#[derive(Deserialize)]
struct WithMeta<'p> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'p RawValue>,
}

/// The request's `params._meta`, or why the params cannot hold one.
fn read_meta(params: Option<&RawValue>) -> Result<RequestMeta<'_>, String> {
    let Some(params) = params else {
        return Ok(RequestMeta::default());
    };
    // A derived struct reads from an array too, by position: only objects
    // are taken.
    if !params.get().starts_with('{') {
        return Err("the params must be an object with `_meta`".to_owned());
    }
    let with_meta = serde_json::from_str::<WithMeta<'_>>(params.get())
        .map_err(|err| format!("the params cannot be read: {err}"))?;
    match with_meta.meta {
        None => Ok(RequestMeta::default()),
        Some(meta) if !meta.get().starts_with('{') => {
            Err("`params._meta` must be an object".to_owned())
        }
        Some(meta) => serde_json::from_str::<RequestMeta<'_>>(meta.get())
            .map_err(|err| format!("`params._meta` cannot be read: {err}")),
    }
}

/// Whether a request on an undecided process speaks the modern revision:
/// it is `server/discover`, which only modern clients send, or its `_meta`
/// carries one of the keys only modern requests carry.
pub(crate) fn speaks_modern(method: &str, params: Option<&RawValue>) -> bool {
    method == method::SERVER_DISCOVER
        || read_meta(params).is_ok_and(|meta| meta.version.is_some() || meta.capabilities.is_some())
}

/// Checks the `_meta` of a modern request: both required keys present
/// (-32602 naming the missing ones, MCP 2026-07-28 basic/index#_meta) and a
/// revision the library serves statelessly (-32022 with the supported and
/// the requested version, basic/versioning).
pub(crate) fn check_modern(params: Option<&RawValue>) -> Result<Revision, Refusal> {
    let found = read_meta(params).map_err(|reason| {
        let message = format!("{reason}; a 2026-07-28 request carries `params._meta`");
        Refusal::invalid_params(message, None)
    })?;
    let mut missing = Vec::new();
    if found.version.is_none() {
        missing.push(meta::PROTOCOL_VERSION);
    }
    if found.capabilities.is_none() {
        missing.push(meta::CLIENT_CAPABILITIES);
    }
    if let (Some(version), Some(capabilities)) = (found.version, found.capabilities) {
        let Ok(version) = serde_json::from_str::<Cow<'_, str>>(version.get()) else {
            let message = format!(
                "`params._meta` `{}` must be a string",
                meta::PROTOCOL_VERSION
            );
            return Err(Refusal::invalid_params(message, None));
        };
        if !capabilities.get().starts_with('{') {
            let message = format!(
                "`params._meta` `{}` must be an object (`{{}}` for none)",
                meta::CLIENT_CAPABILITIES
            );
            return Err(Refusal::invalid_params(message, None));
        }
        if let Err(message) = check_log_level(found.log_level) {
            return Err(Refusal::invalid_params(message, None));
        }
        return Revision::parse(&version)
            .filter(|revision| revision.is_modern())
            .ok_or_else(|| unsupported(Some(&version), "on a request that carries `_meta`"));
    }
    let message = format!(
        "`params._meta` is missing {}: every 2026-07-28 request carries the protocol version and the client capabilities",
        missing
            .iter()
            .map(|key| format!("`{key}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    );
    Err(Refusal::invalid_params(
        message,
        Some(json!({ "missing": missing })),
    ))
}

/// The answer to an `initialize` on a process that already serves the
/// stateless revision: an error naming the versions it serves (MCP
/// 2026-07-28 basic/versioning, backward compatibility).
pub(crate) fn initialize_refused(params: Option<&RawValue>) -> Refusal {
    #[derive(Deserialize)]
    struct Initialize<'p> {
        #[serde(rename = "protocolVersion", borrow)]
        protocol_version: Option<Cow<'p, str>>,
    }
    let requested = params
        .filter(|params| params.get().starts_with('{'))
        .and_then(|params| serde_json::from_str::<Initialize<'_>>(params.get()).ok())
        .and_then(|params| params.protocol_version);
    unsupported(
        requested.as_deref(),
        "statelessly since this process's first request, which carried `_meta`; `initialize` belongs to the legacy revisions and starts no session here",
    )
}

/// -32022: `requested` is not served; `where_` says in what context.
fn unsupported(requested: Option<&str>, where_: &str) -> Refusal {
    let supported = modern_revisions();
    let mut data = json!({ "supported": supported });
    if let Some(requested) = requested {
        data["requested"] = json!(requested);
    }
    let asked = requested.map_or_else(|| "no version".to_owned(), |v| format!("`{v}`"));
    Refusal {
        code: ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "unsupported protocol version {asked}: this server serves {} {where_}",
            supported.join(", ")
        ),
        data: Some(data),
    }
}
