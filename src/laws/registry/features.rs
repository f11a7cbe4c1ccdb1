//! The server's duties of its features: tools, resources, prompts,
//! completion, logging, pagination and caching; subscriptions and
//! multi round-trip requests (2026-07-28); tasks (2025-11-25); what a
//! server owes when it asks the client for roots, sampling or elicitation;
//! and the transports and authorization stdio does not carry.

use super::Level::{Must, Should};
use super::{R0326, R0618, R1125, R2024, R2026, Requirement, srv};
use crate::laws::Cite::{self, Mcp};
use crate::laws::LawId as L;

/// Why a requirement of authorization is no requirement of stdio.
const AUTHORIZATION: &str =
    "authorization runs over HTTP; a server on stdio takes its credentials from its environment";

/// Why a rule about who the user is cannot be seen.
const IDENTITY: &str =
    "who the user is, and what a server binds to them, is not carried over stdio";

/// Why the security duties of a server cannot be seen.
const INSIDE: &str = "what a server checks, limits or sanitizes inside itself shows only as its effect on inputs a client would not send";

/// The tools capability, in both eras.
const TOOLS_CAPABILITY: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "capabilities"),
    Mcp("2026-07-28", "server/tools", "capabilities"),
];

/// Tool names (2025-11-25 on).
const TOOL_NAMES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "tool-names"),
    Mcp("2026-07-28", "server/tools", "tool-names"),
];

/// The error handling of tools.
const TOOL_ERRORS: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "error-handling"),
    Mcp("2026-07-28", "server/tools", "error-handling"),
];

/// The resources capability, in both eras.
const RESOURCES_CAPABILITY: &[Cite] = &[
    Mcp("2025-11-25", "server/resources", "capabilities"),
    Mcp("2026-07-28", "server/resources", "capabilities"),
];

/// The prompts capability, in both eras.
const PROMPTS_CAPABILITY: &[Cite] = &[
    Mcp("2025-11-25", "server/prompts", "capabilities"),
    Mcp("2026-07-28", "server/prompts", "capabilities"),
];

/// Logging in 2026-07-28.
const LOG_LEVEL: &[Cite] = &[Mcp(
    "2026-07-28",
    "server/utilities/logging",
    "per-request-log-level",
)];

/// Listen streams.
const SUBSCRIPTIONS: &str = "basic/patterns/subscriptions";

/// What a server of multi round-trip requests owes.
const MRTR_SERVER: &[Cite] = &[Mcp(
    "2026-07-28",
    "basic/patterns/mrtr",
    "server-requirements-basic-workflow",
)];

/// The error handling of multi round-trip requests.
const MRTR_ERRORS: &[Cite] = &[Mcp("2026-07-28", "basic/patterns/mrtr", "error-handling")];

/// The tasks page (2025-11-25).
const TASKS: &str = "basic/utilities/tasks";

/// The server's duties of its features, page by page.
pub(super) const SERVER: &[Requirement] = &[
    // Tools.
    srv(
        "srv-tools-capability-declared",
        Must,
        R2024,
        Some(L::Initialize),
        TOOLS_CAPABILITY,
        "a server that offers tools declares the tools capability",
    ),
    srv(
        "srv-tools-list-served",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        &[Mcp("2026-07-28", "server/tools", "capabilities")],
        "a server that declares tools answers tools/list with the tools the client may use",
    )
    .under("tools"),
    srv(
        "srv-tools-list-same-everywhere",
        Must,
        R2026,
        Some(L::Discover),
        &[Mcp("2026-07-28", "server/tools", "capabilities")],
        "the tool list does not differ by connection or by what was asked before",
    )
    .under("tools"),
    srv(
        "srv-tools-list-order",
        Should,
        R2026,
        Some(L::ToolsListSorted),
        &[Mcp("2026-07-28", "server/tools", "capabilities")],
        "the tools come back in the same order while the set is unchanged",
    )
    .under("tools"),
    srv(
        "srv-tools-list-changed",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "list-changed-notification"),
            Mcp("2026-07-28", "server/tools", "list-changed-notification"),
        ],
        "a server that promised listChanged says when its tools change (on 2026-07-28, on the listen streams that asked)",
    )
    .under("tools.listChanged"),
    srv(
        "srv-tools-input-schema-object",
        Must,
        R2024,
        Some(L::ToolsListValid),
        &[
            Mcp("2025-11-25", "server/tools", "tool"),
            Mcp("2026-07-28", "server/tools", "tool"),
        ],
        "each tool's inputSchema is a JSON Schema object with \"type\": \"object\", never null",
    )
    .under("tools"),
    srv(
        "srv-tools-name-unique",
        Should,
        R1125,
        Some(L::ToolsListValid),
        TOOL_NAMES,
        "no two tools of a server share a name",
    )
    .under("tools"),
    srv(
        "srv-tools-name-length",
        Should,
        R1125,
        None,
        TOOL_NAMES,
        "a tool's name is 1 to 128 characters long",
    )
    .under("tools"),
    srv(
        "srv-tools-name-characters",
        Should,
        R1125,
        None,
        TOOL_NAMES,
        "a tool's name uses ASCII letters, digits, `_`, `-` and `.` alone: no spaces, commas or other marks",
    )
    .under("tools"),
    srv(
        "srv-tools-name-case",
        Should,
        R1125,
        None,
        TOOL_NAMES,
        "tool names are told apart case-sensitively",
    )
    .under("tools")
    .unseen("how a peer compares names shows in no message"),
    srv(
        "srv-tools-result-content",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/tools", "tool-result"),
            Mcp("2026-07-28", "server/tools", "tool-result"),
        ],
        "a tools/call result carries content, each block of a type its revision defines",
    )
    .under("tools"),
    srv(
        "srv-tools-output-schema",
        Must,
        R0618,
        Some(L::Schema),
        &[
            Mcp("2025-06-18", "server/tools", "output-schema"),
            Mcp("2025-11-25", "server/tools", "output-schema"),
            Mcp("2026-07-28", "server/tools", "output-schema"),
        ],
        "a tool that declares an outputSchema returns structuredContent that meets it",
    )
    .under("tools"),
    srv(
        "srv-tools-structured-text-copy",
        Should,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "structured-content"),
            Mcp("2026-07-28", "server/tools", "structured-content"),
        ],
        "a tool that returns structuredContent returns the same JSON in a text block too",
    )
    .under("tools"),
    srv(
        "srv-tools-embedded-resources-capability",
        Should,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "embedded-resources"),
            Mcp("2026-07-28", "server/tools", "embedded-resources"),
        ],
        "a server whose tools embed resources declares the resources capability",
    )
    .under("tools"),
    srv(
        "srv-tools-call-unknown-tool-error",
        Should,
        R2024,
        Some(L::UnknownTool),
        TOOL_ERRORS,
        "a call of a tool the server does not have is a JSON-RPC error, not a result",
    )
    .under("tools"),
    srv(
        "srv-tools-call-malformed-error",
        Should,
        R2024,
        Some(L::InvalidParams),
        TOOL_ERRORS,
        "a tools/call without a name, or with arguments that are no object, gets a JSON-RPC error (-32602)",
    )
    .under("tools"),
    srv(
        "srv-tools-invalid-arguments-result",
        Should,
        R1125,
        Some(L::ToolErrorIsResult),
        TOOL_ERRORS,
        "arguments a tool's inputSchema refuses get a result with isError: true that says what is wrong, not a JSON-RPC error",
    )
    .under("tools"),
    srv(
        "srv-tools-failure-result",
        Should,
        R2024,
        Some(L::ToolErrorIsResult),
        TOOL_ERRORS,
        "a tool that fails says so in a result with isError: true",
    )
    .under("tools"),
    srv(
        "srv-tools-security",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "security-considerations"),
            Mcp("2026-07-28", "server/tools", "security-considerations"),
        ],
        "the server validates every tool input, controls access, limits the rate of calls and sanitizes what tools return",
    )
    .under("tools")
    .unseen(INSIDE),
    srv(
        "srv-tools-x-mcp-header",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/tools", "x-mcp-header")],
        "an x-mcp-header mark in an inputSchema names a valid header, unique in the tool, on a primitive parameter reachable without conditions",
    )
    .under("tools"),
    srv(
        "srv-tools-x-mcp-header-secrets",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/tools", "x-mcp-header")],
        "no x-mcp-header mark sits on a secret parameter",
    )
    .under("tools")
    .unseen("which parameters are secret is the server's own knowledge"),
    // Resources.
    srv(
        "srv-resources-capability-declared",
        Must,
        R2024,
        None,
        RESOURCES_CAPABILITY,
        "a server that offers resources declares the resources capability",
    ),
    srv(
        "srv-resources-list-served",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        &[Mcp("2026-07-28", "server/resources", "capabilities")],
        "a server that declares resources answers resources/list with the resources the client may read",
    )
    .under("resources"),
    srv(
        "srv-resources-list-same-everywhere",
        Must,
        R2026,
        Some(L::Discover),
        &[Mcp("2026-07-28", "server/resources", "capabilities")],
        "the resource list does not differ by connection or by what was asked before",
    )
    .under("resources"),
    srv(
        "srv-resources-list-changed",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/resources", "list-changed-notification"),
            Mcp("2026-07-28", "server/resources", "list-changed-notification"),
        ],
        "a server that promised listChanged says when its resources change",
    )
    .under("resources.listChanged"),
    srv(
        "srv-resources-read-contents",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/resources", "reading-resources"),
            Mcp("2025-11-25", "server/resources", "security-considerations"),
        ],
        "resources/read answers contents, each with its URI and either text or base64 binary data",
    )
    .under("resources"),
    srv(
        "srv-resources-uri-scheme",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "server/resources", "custom-uri-schemes"),
            Mcp("2026-07-28", "server/resources", "custom-uri-schemes"),
        ],
        "a URI of a custom scheme keeps to RFC 3986",
    )
    .under("resources"),
    srv(
        "srv-resources-https-fetchable",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/resources", "https"),
            Mcp("2026-07-28", "server/resources", "https"),
        ],
        "an https:// URI names only a resource the client can fetch from the web by itself",
    )
    .under("resources")
    .unseen("what the client can fetch depends on its network, not on the session"),
    srv(
        "srv-resources-read-unknown-error",
        Should,
        R2024,
        Some(L::InvalidParams),
        &[Mcp("2025-11-25", "server/resources", "error-handling")],
        "reading a resource that does not exist gets an error (-32002 by the page's example), not a result",
    )
    .until(R1125)
    .under("resources"),
    srv(
        "srv-resources-read-unknown-32602",
        Must,
        R2026,
        Some(L::InvalidParams),
        &[Mcp("2026-07-28", "server/resources", "error-handling")],
        "reading a resource that does not exist gets error -32602",
    )
    .under("resources"),
    srv(
        "srv-resources-read-unknown-not-empty",
        Must,
        R2026,
        Some(L::InvalidParams),
        &[Mcp("2026-07-28", "server/resources", "error-handling")],
        "a resource that does not exist is never answered with empty contents",
    )
    .under("resources"),
    srv(
        "srv-resources-internal-error",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/resources", "error-handling"),
            Mcp("2026-07-28", "server/resources", "error-handling"),
        ],
        "a failure inside the server while reading gets error -32603",
    )
    .under("resources"),
    srv(
        "srv-resources-security",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/resources", "security-considerations"),
            Mcp("2026-07-28", "server/resources", "security-considerations"),
        ],
        "the server validates every resource URI, checks permissions and keeps file paths from leaving their root",
    )
    .under("resources")
    .unseen(INSIDE),
    srv(
        "srv-resources-listed-readable",
        Should,
        R2024,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2025-11-25", "server/resources", "reading-resources"),
            Mcp("2026-07-28", "server/resources", "reading-resources"),
        ],
        "a resource the server lists can be read",
    )
    .under("resources"),
    srv(
        "srv-resources-subscribe-served",
        Must,
        R2024,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2025-11-25", "server/resources", "capabilities"),
            Mcp("2025-11-25", "server/resources", "subscriptions"),
        ],
        "a server that declares resources.subscribe answers resources/subscribe and resources/unsubscribe",
    )
    .until(R1125)
    .under("resources.subscribe"),
    srv(
        "srv-resources-updated-subscribed",
        Must,
        R0618,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2025-11-25", "server/resources", "subscriptions"),
            Mcp("2025-11-25", "basic/lifecycle", "operation"),
        ],
        "notifications/resources/updated names only a URI the client subscribed to",
    )
    .until(R1125)
    .under("resources.subscribe"),
    // Prompts, and the content blocks the prompts page defines.
    srv(
        "srv-prompts-capability-declared",
        Must,
        R2024,
        None,
        PROMPTS_CAPABILITY,
        "a server that offers prompts declares the prompts capability",
    ),
    srv(
        "srv-prompts-list-served",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        &[Mcp("2026-07-28", "server/prompts", "capabilities")],
        "a server that declares prompts answers prompts/list with the prompts the client may use",
    )
    .under("prompts"),
    srv(
        "srv-prompts-list-same-everywhere",
        Must,
        R2026,
        Some(L::Discover),
        &[Mcp("2026-07-28", "server/prompts", "capabilities")],
        "the prompt list does not differ by connection or by what was asked before",
    )
    .under("prompts"),
    srv(
        "srv-prompts-list-changed",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/prompts", "list-changed-notification"),
            Mcp("2026-07-28", "server/prompts", "list-changed-notification"),
        ],
        "a server that promised listChanged says when its prompts change",
    )
    .under("prompts.listChanged"),
    srv(
        "srv-prompts-get-messages",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/prompts", "getting-a-prompt"),
            Mcp("2026-07-28", "server/prompts", "getting-a-prompt"),
        ],
        "prompts/get answers messages, each with a role and one content block",
    )
    .under("prompts"),
    srv(
        "srv-prompts-image-content",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/prompts", "image-content"),
            Mcp("2026-07-28", "server/prompts", "image-content"),
        ],
        "image content carries base64 data and its MIME type",
    ),
    srv(
        "srv-prompts-audio-content",
        Must,
        R0326,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/prompts", "audio-content"),
            Mcp("2026-07-28", "server/prompts", "audio-content"),
        ],
        "audio content carries base64 data and its MIME type",
    ),
    srv(
        "srv-prompts-embedded-resource",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/prompts", "embedded-resources"),
            Mcp("2026-07-28", "server/prompts", "embedded-resources"),
        ],
        "an embedded resource carries its URI, its MIME type and either text or base64 data",
    ),
    srv(
        "srv-prompts-errors",
        Should,
        R2024,
        Some(L::InvalidParams),
        &[
            Mcp("2025-11-25", "server/prompts", "error-handling"),
            Mcp("2026-07-28", "server/prompts", "error-handling"),
        ],
        "an unknown prompt or a missing required argument gets error -32602, a failure inside the server -32603",
    )
    .under("prompts"),
    srv(
        "srv-prompts-arguments-checked",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/prompts", "implementation-considerations"),
            Mcp("2026-07-28", "server/prompts", "implementation-considerations"),
        ],
        "the server checks a prompt's arguments before it uses them",
    )
    .under("prompts"),
    srv(
        "srv-prompts-security",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/prompts", "security"),
            Mcp("2026-07-28", "server/prompts", "security"),
        ],
        "the server validates prompt inputs and outputs against injection and access it should not give",
    )
    .under("prompts")
    .unseen(INSIDE),
    // Completion.
    srv(
        "srv-completions-capability",
        Must,
        R0326,
        None,
        &[
            Mcp("2025-11-25", "server/utilities/completion", "capabilities"),
            Mcp("2026-07-28", "server/utilities/completion", "capabilities"),
        ],
        "a server that answers completion/complete declares the completions capability",
    ),
    srv(
        "srv-completions-served",
        Must,
        R0326,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2025-11-25", "server/utilities/completion", "capabilities"),
            Mcp("2026-07-28", "server/utilities/completion", "capabilities"),
        ],
        "a server that declares completions answers completion/complete",
    )
    .under("completions"),
    srv(
        "srv-completions-result",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "server/utilities/completion", "completion-results"),
            Mcp("2026-07-28", "server/utilities/completion", "completion-results"),
        ],
        "completion/complete answers at most 100 values, with the total and whether more exist where it knows",
    ),
    srv(
        "srv-completions-errors",
        Should,
        R0326,
        Some(L::InvalidParams),
        &[
            Mcp("2025-11-25", "server/utilities/completion", "error-handling"),
            Mcp("2026-07-28", "server/utilities/completion", "error-handling"),
        ],
        "completion without the capability gets -32601, an unknown prompt or a missing argument -32602, a failure inside the server -32603",
    ),
    srv(
        "srv-completions-quality",
        Should,
        R2024,
        None,
        &[
            Mcp(
                "2025-11-25",
                "server/utilities/completion",
                "implementation-considerations",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/completion",
                "implementation-considerations",
            ),
        ],
        "suggestions come sorted by relevance, matched loosely where that helps, at a limited rate",
    )
    .unseen("relevance and looseness are judgements of quality"),
    srv(
        "srv-completions-security",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/utilities/completion", "security"),
            Mcp("2026-07-28", "server/utilities/completion", "security"),
        ],
        "the server validates completion inputs, limits their rate and gives away nothing sensitive in suggestions",
    )
    .unseen(INSIDE),
    // Logging.
    srv(
        "srv-logging-capability",
        Must,
        R2024,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2025-11-25", "server/utilities/logging", "capabilities"),
            Mcp("2026-07-28", "server/utilities/logging", "capabilities"),
        ],
        "a server that sends log messages declares the logging capability",
    ),
    srv(
        "srv-logging-message",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp(
                "2025-11-25",
                "server/utilities/logging",
                "log-message-notifications",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/logging",
                "log-message-notifications",
            ),
        ],
        "a log message carries one of the eight levels and its data",
    )
    .under("logging"),
    srv(
        "srv-logging-set-level",
        Must,
        R2024,
        Some(L::CapabilitiesHonest),
        &[Mcp(
            "2025-11-25",
            "server/utilities/logging",
            "setting-log-level",
        )],
        "a server that declares logging answers logging/setLevel with an empty result",
    )
    .until(R1125)
    .under("logging"),
    srv(
        "srv-logging-respects-level",
        Should,
        R2024,
        Some(L::CapabilitiesHonest),
        &[Mcp(
            "2025-11-25",
            "server/utilities/logging",
            "setting-log-level",
        )],
        "after logging/setLevel no log message is below the level set",
    )
    .until(R1125)
    .under("logging"),
    srv(
        "srv-logging-invalid-level",
        Should,
        R2024,
        Some(L::InvalidParams),
        &[Mcp("2025-11-25", "server/utilities/logging", "error-handling")],
        "logging/setLevel with a level not among the eight gets error -32602",
    )
    .until(R1125)
    .under("logging"),
    srv(
        "srv-logging-only-when-asked",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        LOG_LEVEL,
        "no log message goes out for a request whose _meta set no log level",
    ),
    srv(
        "srv-logging-request-scoped",
        Must,
        R2026,
        None,
        LOG_LEVEL,
        "a log message belongs to the request that asked for it, never to a listen stream",
    ),
    srv(
        "srv-logging-unknown-level",
        Should,
        R2026,
        Some(L::InvalidParams),
        &[Mcp("2026-07-28", "server/utilities/logging", "error-handling")],
        "a request whose _meta names a log level not among the eight gets error -32602",
    )
    .under("logging"),
    srv(
        "srv-logging-no-secrets",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/utilities/logging", "security"),
            Mcp("2026-07-28", "server/utilities/logging", "security"),
        ],
        "log messages hold no credentials, personal data or details that would help an attack",
    )
    .under("logging")
    .unseen("a secret or a personal datum cannot be told from other data by its shape"),
    srv(
        "srv-logging-practice",
        Should,
        R2024,
        None,
        &[
            Mcp(
                "2025-11-25",
                "server/utilities/logging",
                "implementation-considerations",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/logging",
                "implementation-considerations",
            ),
        ],
        "log messages come at a limited rate, carry useful context and keep steady logger names",
    )
    .under("logging")
    .unseen("rate, usefulness and steadiness are matters of degree"),
    srv(
        "srv-logging-deprecated",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/utilities/logging", "")],
        "a new server does not take up MCP logging, and logs to stderr instead",
    )
    .unseen("whether an implementation is new is not on the wire"),
    // Pagination.
    srv(
        "srv-pagination-stable-cursors",
        Should,
        R2024,
        Some(L::ToolsListValid),
        &[
            Mcp(
                "2025-11-25",
                "server/utilities/pagination",
                "implementation-guidelines",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/pagination",
                "implementation-guidelines",
            ),
        ],
        "the cursors the server gives stay usable, and following them ends the list",
    ),
    srv(
        "srv-pagination-invalid-cursor",
        Should,
        R2024,
        Some(L::ToolsListValid),
        &[
            Mcp("2025-11-25", "server/utilities/pagination", "error-handling"),
            Mcp("2026-07-28", "server/utilities/pagination", "error-handling"),
        ],
        "a cursor the server never gave gets error -32602",
    ),
    // Caching (2026-07-28).
    srv(
        "srv-caching-hints",
        Must,
        R2026,
        Some(L::ListCacheHints),
        &[
            Mcp("2026-07-28", "server/utilities/caching", "cacheable-results"),
            Mcp("2026-07-28", "server/utilities/caching", "cache-scope-field"),
        ],
        "complete results of server/discover, the four lists and resources/read carry ttlMs and a cacheScope of public or private",
    ),
    srv(
        "srv-caching-ttl-non-negative",
        Must,
        R2026,
        Some(L::ListCacheHints),
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "time-to-live-ttl-field",
        )],
        "ttlMs is an integer of 0 or more",
    ),
    srv(
        "srv-caching-scope-every-page",
        Must,
        R2026,
        Some(L::ListCacheHints),
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "interaction-with-pagination",
        )],
        "every page of one list has the same cacheScope",
    ),
    srv(
        "srv-caching-public-shared",
        Must,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "security-considerations",
        )],
        "the server marks public only what any caller may see",
    )
    .unseen("what a result holds for whom is the server's own knowledge"),
    srv(
        "srv-caching-not-access-control",
        Must,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "security-considerations",
        )],
        "the server guards access to its primitives by other means than cacheScope",
    )
    .unseen(INSIDE),
    // Listen streams (2026-07-28).
    srv(
        "srv-subscriptions-listen-served",
        Should,
        R2026,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2026-07-28", SUBSCRIPTIONS, "opening-a-stream"),
            Mcp("2026-07-28", "server/tools", "list-changed-notification"),
        ],
        "a server that promises listChanged accepts subscriptions/listen for those lists",
    ),
    srv(
        "srv-subscriptions-acknowledged-first",
        Must,
        R2026,
        Some(L::RequestAnsweredOnce),
        &[Mcp("2026-07-28", SUBSCRIPTIONS, "acknowledgment")],
        "a stream's first message is notifications/subscriptions/acknowledged, accepting nothing that was not asked for, and no notification of the stream comes before it",
    ),
    srv(
        "srv-subscriptions-asked-kinds",
        Must,
        R2026,
        Some(L::RequestAnsweredOnce),
        &[Mcp("2026-07-28", SUBSCRIPTIONS, "opening-a-stream")],
        "a stream carries only the kinds of notification the client asked for",
    ),
    srv(
        "srv-subscriptions-none-outside",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2026-07-28", SUBSCRIPTIONS, "opening-a-stream"),
            Mcp("2026-07-28", SUBSCRIPTIONS, "receiving-notifications"),
        ],
        "list and resource-update notifications go out only on a stream that asked for them",
    ),
    srv(
        "srv-subscriptions-tagged",
        Must,
        R2026,
        Some(L::CapabilitiesHonest),
        &[
            Mcp("2026-07-28", SUBSCRIPTIONS, "receiving-notifications"),
            Mcp("2026-07-28", "basic", "meta"),
        ],
        "every notification of a stream carries its subscriptionId in _meta",
    ),
    srv(
        "srv-subscriptions-silent-after-cancel",
        Must,
        R2026,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp("2026-07-28", SUBSCRIPTIONS, "cancellation"),
            Mcp("2026-07-28", "basic/transports/stdio", "cancellation"),
        ],
        "once the client cancels a stream, nothing more comes for it",
    ),
    srv(
        "srv-subscriptions-graceful-close",
        Should,
        R2026,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp("2026-07-28", SUBSCRIPTIONS, "cancellation"),
            Mcp("2026-07-28", SUBSCRIPTIONS, "graceful-closure"),
        ],
        "a server that ends a stream itself answers its listen request with an empty complete result first",
    ),
    // Multi round-trip requests (2026-07-28).
    srv(
        "srv-mrtr-supported-requests",
        Must,
        R2026,
        Some(L::Schema),
        &[Mcp("2026-07-28", "basic/patterns/mrtr", "supported-requests")],
        "input_required answers only tools/call, prompts/get and resources/read",
    ),
    srv(
        "srv-mrtr-fields",
        Must,
        R2026,
        Some(L::Schema),
        MRTR_SERVER,
        "an InputRequiredResult carries inputRequests or requestState, or both",
    ),
    srv(
        "srv-mrtr-input-request-kinds",
        Must,
        R2026,
        Some(L::Schema),
        MRTR_SERVER,
        "each input request is an elicitation, a sampling or a roots request",
    ),
    srv(
        "srv-mrtr-declared-kinds",
        Must,
        R2026,
        Some(L::Schema),
        MRTR_SERVER,
        "the server asks only for kinds of input the request's client capabilities declare",
    ),
    srv(
        "srv-mrtr-keys-unique",
        Must,
        R2026,
        None,
        MRTR_SERVER,
        "the keys of inputRequests name each input once within the request",
    ),
    srv(
        "srv-mrtr-state-untrusted",
        Must,
        R2026,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp(
                "2026-07-28",
                "basic/patterns/mrtr",
                "server-requirements-basic-workflow",
            ),
            Mcp("2026-07-28", "basic/patterns/mrtr", "security-considerations"),
        ],
        "a requestState the server never gave is handled as hostile input: answered, never crashed on",
    ),
    srv(
        "srv-mrtr-state-integrity",
        Must,
        R2026,
        None,
        MRTR_SERVER,
        "state that carries authority is protected against tampering, and state that fails the check is refused",
    )
    .unseen("whether state carries authority is the server's own knowledge"),
    srv(
        "srv-mrtr-state-replay",
        Should,
        R2026,
        None,
        MRTR_SERVER,
        "protected state binds the principal, the request and an expiry, each checked on its return",
    )
    .unseen("the contents of protected state are the server's own"),
    srv(
        "srv-mrtr-state-once",
        Must,
        R2026,
        None,
        MRTR_SERVER,
        "state meant for one use is accepted once",
    )
    .unseen("which state is meant for one use is the server's own knowledge"),
    srv(
        "srv-mrtr-no-assumed-retry",
        Must,
        R2026,
        None,
        MRTR_SERVER,
        "the server does not count on the client answering or retrying",
    )
    .unseen("what a server holds for a retry that never comes is inside it"),
    srv(
        "srv-mrtr-responses-parsed",
        Should,
        R2026,
        None,
        MRTR_ERRORS,
        "inputResponses that do not parse get an error",
    ),
    srv(
        "srv-mrtr-protocol-errors",
        Should,
        R2026,
        None,
        MRTR_ERRORS,
        "protocol errors in a retry get a JSON-RPC error with a fitting code",
    ),
    srv(
        "srv-mrtr-extra-ignored",
        Should,
        R2026,
        None,
        MRTR_ERRORS,
        "input responses the server did not ask for are ignored",
    ),
    srv(
        "srv-mrtr-missing-asks-again",
        Should,
        R2026,
        Some(L::Schema),
        MRTR_ERRORS,
        "a retry that lacks input the server needs gets a new InputRequiredResult, not an error",
    ),
    // Tasks (2025-11-25).
    srv(
        "srv-tasks-capability",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "capabilities")],
        "a server that accepts task-augmented requests declares the tasks capability for them",
    )
    .until(R1125),
    srv(
        "srv-tasks-undeclared-served",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-support-and-handling")],
        "a request asking for a task where the server declared no task support is served as usual, the task ignored",
    )
    .until(R1125),
    srv(
        "srv-tasks-tool-forbidden",
        Should,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "tool-level-negotiation")],
        "a task asked for a tool whose taskSupport is absent or forbidden gets error -32601",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-tool-required",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "tool-level-negotiation")],
        "a plain call of a tool whose taskSupport is required gets error -32601",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-create-result",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "result-retrieval")],
        "an accepted task-augmented request is answered with a CreateTaskResult",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-ids",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-id-requirements")],
        "task ids are strings the server makes, unique among its tasks",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-status-lifecycle",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-status-lifecycle")],
        "a task starts working, moves only along the allowed paths, and never leaves completed, failed or cancelled",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-timestamps",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "ttl-and-resource-management")],
        "every task answer carries createdAt and lastUpdatedAt, and tasks/get the ttl in force",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-result",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", TASKS, "result-retrieval"),
            Mcp("2025-11-25", TASKS, "task-execution-errors"),
        ],
        "tasks/result waits for the task to end, then gives exactly what the request would have: its result or its error",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-related-meta",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", TASKS, "associating-task-related-messages"),
            Mcp("2025-11-25", TASKS, "related-task-metadata"),
        ],
        "messages about a task, tasks/result's answer among them, name it in _meta (io.modelcontextprotocol/related-task)",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-listing",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-listing")],
        "tasks/list gives a nextCursor while tasks remain, and lists every task tasks/get would give",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-cancel",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-cancellation")],
        "tasks/cancel of an ended task gets error -32602; a cancelled task is cancelled before the answer, and stays so",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-protocol-errors",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "protocol-errors")],
        "an unknown or invalid task id, or an invalid cursor, gets error -32602",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-progress",
        Must,
        R1125,
        None,
        &[Mcp(
            "2025-11-25",
            "basic/utilities/progress",
            "behavior-requirements",
        )],
        "progress of a task keeps its request's token and stops when the task ends",
    )
    .until(R1125)
    .under("tasks"),
    srv(
        "srv-tasks-isolation",
        Must,
        R1125,
        None,
        &[Mcp("2025-11-25", TASKS, "task-isolation-and-access-control")],
        "tasks are bound to the authorization context they came from, or their ids cannot be guessed",
    )
    .until(R1125)
    .under("tasks")
    .unseen(IDENTITY),
    // What a server owes when it asks the client for roots, sampling or
    // elicitation.
    srv(
        "srv-roots-declared",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "client/roots", "capabilities"),
            Mcp("2025-11-25", "basic/lifecycle", "operation"),
        ],
        "the server asks roots/list only of a client that declared roots",
    )
    .until(R1125),
    srv(
        "srv-roots-respected",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/roots", "implementation-guidelines"),
            Mcp("2026-07-28", "client/roots", "implementation-guidelines"),
        ],
        "the server keeps its work within the roots the client gave",
    )
    .unseen("which paths a server touches is outside stdio"),
    srv(
        "srv-roots-deprecated",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "client/roots", "")],
        "a new server does not take up roots",
    )
    .unseen("whether an implementation is new is not on the wire"),
    srv(
        "srv-sampling-declared",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "capabilities"),
            Mcp("2025-11-25", "basic/lifecycle", "operation"),
        ],
        "the server asks sampling/createMessage only of a client that declared sampling",
    )
    .until(R1125),
    srv(
        "srv-sampling-tools-declared",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "tools-in-sampling"),
            Mcp("2026-07-28", "client/sampling", "tools-in-sampling"),
        ],
        "a sampling request offers tools only to a client that declared sampling.tools",
    ),
    srv(
        "srv-sampling-context",
        Should,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "capabilities"),
            Mcp("2026-07-28", "client/sampling", "capabilities"),
        ],
        "includeContext other than none goes only to a client that declared sampling.context",
    ),
    srv(
        "srv-sampling-tool-results",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "tool-use-and-result-balance"),
            Mcp("2025-11-25", "client/sampling", "tool-result-messages"),
            Mcp("2026-07-28", "client/sampling", "security-considerations"),
        ],
        "after a toolUse stop, the next sampling request answers each tool use with its result, in a user message of tool results alone",
    ),
    srv(
        "srv-sampling-roles",
        Must,
        R2026,
        Some(L::Schema),
        &[Mcp("2026-07-28", "client/sampling", "messages")],
        "each sampling message has the role user or assistant",
    ),
    srv(
        "srv-sampling-deprecated",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "client/sampling", "")],
        "a new server does not take up sampling",
    )
    .unseen("whether an implementation is new is not on the wire"),
    srv(
        "srv-elicitation-declared",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-06-18", "client/elicitation", "capabilities"),
            Mcp("2025-11-25", "client/elicitation", "capabilities"),
        ],
        "the server sends elicitation/create only to a client that declared elicitation",
    )
    .until(R1125),
    srv(
        "srv-elicitation-modes-declared",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "capabilities"),
            Mcp("2026-07-28", "client/elicitation", "capabilities"),
        ],
        "the server uses only the elicitation modes the client declared",
    ),
    srv(
        "srv-elicitation-form-schema",
        Must,
        R0618,
        Some(L::Schema),
        &[
            Mcp("2025-06-18", "client/elicitation", "request-schema"),
            Mcp("2025-11-25", "client/elicitation", "requested-schema"),
            Mcp("2026-07-28", "client/elicitation", "requested-schema"),
        ],
        "a form's requestedSchema is a flat object of primitive properties",
    ),
    srv(
        "srv-elicitation-url-request",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "url-mode-elicitation-requests"),
            Mcp("2026-07-28", "client/elicitation", "url-mode-elicitation-requests"),
        ],
        "a URL-mode request says mode url and carries a message, an elicitationId and a valid URL",
    ),
    srv(
        "srv-elicitation-complete-notification",
        Must,
        R1125,
        None,
        &[Mcp(
            "2025-11-25",
            "client/elicitation",
            "completion-notifications-for-url-mode-elicitation",
        )],
        "notifications/elicitation/complete names the elicitationId of the request it completes",
    )
    .until(R1125),
    srv(
        "srv-elicitation-url-required-error",
        Must,
        R1125,
        None,
        &[Mcp(
            "2025-11-25",
            "client/elicitation",
            "url-elicitation-required-error",
        )],
        "error -32042 lists the URL elicitations to complete, each with its elicitationId",
    )
    .until(R1125),
    srv(
        "srv-elicitation-no-secrets-in-forms",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "user-interaction-model"),
            Mcp("2026-07-28", "client/elicitation", "form-mode-security"),
        ],
        "a form never asks for secrets; URL mode carries what is sensitive",
    )
    .unseen("what counts as sensitive is a judgement of meaning"),
    srv(
        "srv-elicitation-safe-urls",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "safe-url-handling"),
            Mcp("2026-07-28", "client/elicitation", "safe-url-handling"),
        ],
        "a URL sent for elicitation holds no user data or credentials and opens nothing by itself",
    )
    .unseen("what a URL grants is decided where it points, off the wire"),
    srv(
        "srv-elicitation-identity",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "statefulness"),
            Mcp("2025-11-25", "client/elicitation", "phishing"),
        ],
        "elicitation state is bound to the verified user who started it",
    )
    .unseen(IDENTITY),
    srv(
        "srv-elicitation-replies-checked",
        Should,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "form-mode-security"),
            Mcp("2026-07-28", "client/elicitation", "form-mode-security"),
        ],
        "the server checks that what the client sent back meets the requested schema",
    )
    .unseen("what a server does with a reply it takes is inside it"),
    // What stdio does not carry.
    srv(
        "srv-transport-http",
        Must,
        R2024,
        None,
        &[
            Mcp("2026-07-28", "basic/transports/streamable-http", ""),
            Mcp("2025-11-25", "basic/transports", "streamable-http"),
            Mcp("2024-11-05", "basic/transports", "http-with-sse"),
        ],
        "a server on HTTP keeps that transport's rules: its endpoint, headers, status codes, sessions and event streams",
    )
    .unseen("HTTP endpoints, headers and status codes do not exist on stdio"),
    srv(
        "srv-auth-http-only",
        Should,
        R0326,
        None,
        &[
            Mcp("2025-11-25", "basic/authorization", ""),
            Mcp("2026-07-28", "basic", "auth"),
        ],
        "a server on stdio does not follow MCP authorization, and takes its credentials from its environment",
    )
    .unseen(AUTHORIZATION),
];
