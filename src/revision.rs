//! The MCP protocol revisions, and what differs between them.
//!
//! Five revisions speak over stdio: four legacy ones, which open a session
//! with the `initialize` handshake, and the modern 2026-07-28, which is
//! stateless (no handshake; `params._meta` on every request; `resultType`
//! on every result; cache hints on list results). [`Revision`] owns every
//! rule that differs between them, so the server library and the checker
//! ask it instead of comparing version strings in several rooms. The rules
//! follow the digest of the specification the project works from (its
//! §1.1 stdio table, §2 lifecycle, §3 JSON-RPC rules, §4 tools and §6
//! methods × revisions).

use std::fmt;
use std::str::FromStr;

/// The keys of `params._meta` (and of a result's `_meta`) that the modern
/// revision defines.
pub mod meta {
    /// The revision a modern request speaks (required on every request).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities, `{}` for none (required on every request).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version (optional).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The log level a request opts in to (optional; deprecated feature).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, in a result's `_meta` (should be sent).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The subscription a notification of a `subscriptions/listen` stream
    /// belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The token progress notifications refer to (every revision).
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// Whether a revision opens sessions with a handshake or is stateless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize` first, then a session.
    Legacy,
    /// 2026-07-28 on: no handshake, every request stands alone.
    Modern,
}

impl Era {
    /// The era's name in reports: `legacy` or `modern`.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One MCP protocol revision.
///
/// The variants are in release order, so revisions compare by date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05: the first revision; the one MCP-CORE answers by default.
    V2024_11_05,
    /// 2025-03-26: batches, `audio` content, tool annotations, completions.
    V2025_03_26,
    /// 2025-06-18: no batches; `structuredContent` and `outputSchema`,
    /// `resource_link` content, tool `title`, elicitation.
    V2025_06_18,
    /// 2025-11-25: tool input errors as `isError` results, icons, tasks.
    V2025_11_25,
    /// 2026-07-28: stateless, `server/discover`, `resultType`, cache hints.
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: &'static [Revision] = &[
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The legacy revisions, oldest first.
    pub const LEGACY: &'static [Revision] = &[
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
    ];

    /// The newest legacy revision, which legacy servers answer when asked
    /// for one they do not know.
    pub const LATEST_LEGACY: Revision = Revision::V2025_11_25;

    /// The newest revision.
    pub const LATEST: Revision = Revision::V2026_07_28;

    /// The revision's date, as the protocol spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// The oldest revision where `rule` holds (a rule that holds from some
    /// revision on, like [`Revision::tool_input_errors_are_results`]).
    pub fn first_where(rule: fn(Revision) -> bool) -> Option<Revision> {
        Revision::ALL
            .iter()
            .copied()
            .find(|revision| rule(*revision))
    }

    /// Whether `text` names a revision where `rule` holds; a revision
    /// mcp-replay does not know holds to no rule.
    pub fn named_where(text: &str, rule: fn(Revision) -> bool) -> bool {
        Revision::parse(text).is_some_and(rule)
    }

    /// The revision named `text`, if it is one of the five.
    pub fn parse(text: &str) -> Option<Revision> {
        Revision::ALL
            .iter()
            .copied()
            .find(|revision| revision.as_str() == text)
    }

    /// The revision's era.
    pub fn era(self) -> Era {
        if self >= Revision::V2026_07_28 {
            Era::Modern
        } else {
            Era::Legacy
        }
    }

    /// Whether the revision is stateless (2026-07-28 on).
    pub fn is_modern(self) -> bool {
        self.era() == Era::Modern
    }

    /// Whether a line may hold a JSON-RPC batch (an array): 2025-03-26 only.
    pub fn batches(self) -> bool {
        self == Revision::V2025_03_26
    }

    /// Whether sessions open with `initialize` (legacy revisions).
    pub fn has_initialize(self) -> bool {
        !self.is_modern()
    }

    /// Whether `ping` exists (legacy revisions; removed in 2026-07-28).
    pub fn has_ping(self) -> bool {
        !self.is_modern()
    }

    /// Whether every request must carry `params._meta` with the protocol
    /// version and the client capabilities (2026-07-28 on).
    pub fn requires_request_meta(self) -> bool {
        self.is_modern()
    }

    /// Whether every result must carry `resultType` (2026-07-28 on).
    pub fn requires_result_type(self) -> bool {
        self.is_modern()
    }

    /// Whether a server may send requests to the client over stdio (legacy
    /// revisions; 2026-07-28 replaces them with input-required results).
    pub fn server_requests(self) -> bool {
        !self.is_modern()
    }

    /// Whether the result of `method` must carry the cache hints `ttlMs`
    /// and `cacheScope` (2026-07-28: the list methods, `resources/read` and
    /// `server/discover`).
    pub fn cacheable(self, method: &str) -> bool {
        self.is_modern()
            && matches!(
                method,
                "tools/list"
                    | "prompts/list"
                    | "resources/list"
                    | "resources/templates/list"
                    | "resources/read"
                    | "server/discover"
            )
    }

    /// The client→server methods this revision defines (requests), as §6
    /// of the digest lists them.
    pub fn client_methods(self) -> &'static [&'static str] {
        // The legacy methods, then the tasks 2025-11-25 added.
        const WITH_TASKS: &[&str] = &[
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "prompts/list",
            "prompts/get",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
            "completion/complete",
            "logging/setLevel",
            "tasks/get",
            "tasks/result",
            "tasks/list",
            "tasks/cancel",
        ];
        const LEGACY: &[&str] = WITH_TASKS.split_at(13).0;
        const TASKS: &[&str] = WITH_TASKS;
        const MODERN: &[&str] = &[
            "server/discover",
            "tools/list",
            "tools/call",
            "prompts/list",
            "prompts/get",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "subscriptions/listen",
            "completion/complete",
        ];
        match self {
            Revision::V2024_11_05 | Revision::V2025_03_26 | Revision::V2025_06_18 => LEGACY,
            Revision::V2025_11_25 => TASKS,
            Revision::V2026_07_28 => MODERN,
        }
    }

    /// The server→client request methods this revision defines: `ping`,
    /// `sampling/createMessage` and `roots/list`, `elicitation/create` from
    /// 2025-06-18, and the task requests of 2025-11-25. None in 2026-07-28,
    /// where a server writes no request and asks for input inside a result
    /// instead.
    pub fn server_request_methods(self) -> &'static [&'static str] {
        match self {
            Revision::V2024_11_05 | Revision::V2025_03_26 => {
                &["ping", "sampling/createMessage", "roots/list"]
            }
            Revision::V2025_06_18 => &[
                "ping",
                "sampling/createMessage",
                "roots/list",
                "elicitation/create",
            ],
            Revision::V2025_11_25 => &[
                "ping",
                "sampling/createMessage",
                "roots/list",
                "elicitation/create",
                "tasks/get",
                "tasks/result",
                "tasks/list",
                "tasks/cancel",
            ],
            Revision::V2026_07_28 => &[],
        }
    }

    /// Whether a result of `method` may ask the client for input instead of
    /// completing (an `input_required` result): 2026-07-28, on
    /// `tools/call`, `prompts/get` and `resources/read`.
    pub fn may_require_input(self, method: &str) -> bool {
        self.is_modern() && matches!(method, "tools/call" | "prompts/get" | "resources/read")
    }

    /// The methods an earlier revision had and this one removed: a modern
    /// server answers them as unknown methods (-32601).
    pub fn removed_methods(self) -> &'static [&'static str] {
        if self.is_modern() {
            &[
                "initialize",
                "ping",
                "logging/setLevel",
                "resources/subscribe",
                "resources/unsubscribe",
            ]
        } else {
            &[]
        }
    }

    /// The content block types a tool result (or prompt message) may carry.
    pub fn content_types(self) -> &'static [&'static str] {
        match self {
            Revision::V2024_11_05 => &["text", "image", "resource"],
            Revision::V2025_03_26 => &["text", "image", "audio", "resource"],
            _ => &["text", "image", "audio", "resource_link", "resource"],
        }
    }

    /// Whether tools may declare an `outputSchema` and answer
    /// `structuredContent` (2025-06-18 on).
    pub fn structured_output(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// Whether tool descriptors may carry `annotations` (2025-03-26 on).
    pub fn tool_annotations(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// Whether tool descriptors (and `Implementation`) may carry a `title`
    /// (2025-06-18 on).
    pub fn titles(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// Whether arguments that break a tool's input schema are answered as
    /// an `isError` result rather than a protocol error (2025-11-25 on,
    /// SEP-1303).
    pub fn tool_input_errors_are_results(self) -> bool {
        self >= Revision::V2025_11_25
    }

    /// Whether servers should return tools in a deterministic order
    /// (2026-07-28 on).
    pub fn deterministic_tool_order(self) -> bool {
        self >= Revision::V2026_07_28
    }

    /// Whether an error response may leave out its `id` when the request's
    /// id could not be read (2025-11-25 on; before, the schema requires an
    /// id, which such an answer cannot have).
    pub fn error_id_may_be_absent(self) -> bool {
        self >= Revision::V2025_11_25
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Revision {
    type Err = String;

    fn from_str(text: &str) -> Result<Revision, String> {
        Revision::parse(text).ok_or_else(|| {
            let known: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
            format!(
                "unknown protocol revision `{text}` (known: {})",
                known.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_holds_from_its_first_revision_and_never_for_an_unknown_one() {
        assert_eq!(
            Revision::first_where(Revision::tool_input_errors_are_results),
            Some(Revision::V2025_11_25)
        );
        assert_eq!(
            Revision::first_where(Revision::deterministic_tool_order),
            Some(Revision::V2026_07_28)
        );
        assert!(Revision::named_where(
            "2026-07-28",
            Revision::tool_input_errors_are_results
        ));
        assert!(!Revision::named_where(
            "2024-11-05",
            Revision::tool_input_errors_are_results
        ));
        assert!(!Revision::named_where(
            "latest",
            Revision::tool_input_errors_are_results
        ));
        assert!(!Revision::named_where("2099-01-01", Revision::batches));
    }

    #[test]
    fn revisions_round_trip_and_compare_by_date() {
        for pair in Revision::ALL.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(pair[0].as_str() < pair[1].as_str());
        }
        for revision in Revision::ALL {
            assert_eq!(revision.as_str().parse::<Revision>(), Ok(*revision));
        }
        assert!("2024-10-07".parse::<Revision>().is_err());
    }

    #[test]
    fn eras_split_at_the_stateless_revision() {
        let legacy: Vec<Revision> = Revision::ALL
            .iter()
            .copied()
            .filter(|revision| revision.era() == Era::Legacy)
            .collect();
        assert_eq!(legacy, Revision::LEGACY);
        assert_eq!(Revision::LATEST_LEGACY, *legacy.last().unwrap());
        assert!(Revision::LATEST.is_modern());
    }

    #[test]
    fn batches_exist_only_in_2025_03_26() {
        let batched: Vec<&str> = Revision::ALL
            .iter()
            .filter(|revision| revision.batches())
            .map(|revision| revision.as_str())
            .collect();
        assert_eq!(batched, ["2025-03-26"]);
    }

    #[test]
    fn modern_methods_drop_the_handshake_and_ping() {
        let modern = Revision::V2026_07_28;
        for removed in modern.removed_methods() {
            assert!(!modern.client_methods().contains(removed), "{removed}");
            assert!(
                Revision::V2025_11_25.client_methods().contains(removed),
                "{removed}"
            );
        }
        assert!(modern.client_methods().contains(&"server/discover"));
        assert!(modern.cacheable("tools/list") && !modern.cacheable("tools/call"));
        assert!(!Revision::V2025_11_25.cacheable("tools/list"));
    }

    #[test]
    fn content_types_grow_with_the_revisions() {
        for pair in Revision::ALL.windows(2) {
            for kind in pair[0].content_types() {
                assert!(pair[1].content_types().contains(kind), "{kind}");
            }
        }
        assert!(!Revision::V2024_11_05.content_types().contains(&"audio"));
        assert!(
            Revision::V2025_06_18
                .content_types()
                .contains(&"resource_link")
        );
    }

    /// The definitions of every revision's official `schema.json`, oldest
    /// first, where the schemas are at hand (`crate::official_schemas`).
    fn official_definitions(test: &str) -> Option<Vec<(Revision, serde_json::Value)>> {
        let schemas = crate::official_schemas::schemas(test, Revision::ALL)?;
        let definitions = Revision::ALL
            .iter()
            .zip(schemas)
            .map(|(revision, mut schema)| {
                let defs = match schema.get_mut("definitions") {
                    Some(defs) => defs.take(),
                    None => schema
                        .get_mut("$defs")
                        .map(serde_json::Value::take)
                        .unwrap_or_default(),
                };
                assert!(defs.is_object(), "{revision}: the schema has definitions");
                (*revision, defs)
            })
            .collect();
        Some(definitions)
    }

    /// The server's requests agree with each official schema's
    /// `ServerRequest` union (which 2026-07-28 no longer has).
    #[test]
    fn server_request_methods_agree_with_the_official_schemas() {
        assert!(Revision::V2026_07_28.may_require_input("tools/call"));
        assert!(!Revision::V2026_07_28.may_require_input("tools/list"));
        assert!(!Revision::V2025_11_25.may_require_input("tools/call"));
        let test = "revision::tests::server_request_methods_agree_with_the_official_schemas";
        let Some(definitions) = official_definitions(test) else {
            return;
        };
        for (revision, defs) in &definitions {
            let mut in_schema: Vec<&str> = defs
                .pointer("/ServerRequest/anyOf")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|member| member.get("$ref")?.as_str()?.rsplit('/').next())
                .filter_map(|name| {
                    defs.get(name)?
                        .pointer("/properties/method/const")?
                        .as_str()
                })
                .collect();
            in_schema.sort_unstable();
            let mut in_table = revision.server_request_methods().to_vec();
            in_table.sort_unstable();
            assert_eq!(in_table, in_schema, "{revision}");
        }
    }

    /// The revision table agrees with the official schemas: a method is a client request of a revision exactly when that
    /// revision's schema defines its request type.
    #[test]
    fn client_methods_agree_with_the_official_schemas() {
        let test = "revision::tests::client_methods_agree_with_the_official_schemas";
        let Some(definitions) = official_definitions(test) else {
            return;
        };
        for (revision, defs) in &definitions {
            let defs = defs.as_object().expect("the definitions are an object");
            let mut in_schema: Vec<String> = defs
                .values()
                .filter_map(|def| def.pointer("/properties/method/const"))
                .filter_map(serde_json::Value::as_str)
                .filter(|method| !method.starts_with("notifications/"))
                .map(str::to_owned)
                .collect();
            in_schema.sort();
            in_schema.dedup();
            // Server→client requests are in the schemas too; keep the
            // client's.
            let server_requests = ["sampling/createMessage", "roots/list", "elicitation/create"];
            in_schema.retain(|method| !server_requests.contains(&method.as_str()));
            let mut in_table: Vec<String> = revision
                .client_methods()
                .iter()
                .map(|method| (*method).to_owned())
                .collect();
            in_table.sort();
            assert_eq!(in_table, in_schema, "{revision}");
        }
    }
}
