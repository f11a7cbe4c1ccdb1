//! The server's duties of the base protocol: the stdio transport, JSON-RPC
//! messages, `_meta`, statelessness and JSON Schema, the lifecycle, version
//! negotiation and `server/discover`, ping, cancellation and progress.

use super::Level::{Must, Should};
use super::{R0326, R0618, R1125, R2024, R2026, Requirement, srv};
use crate::laws::Cite::{self, JsonRpc, Mcp};
use crate::laws::LawId as L;

/// The stdio transport, in the legacy revisions and in 2026-07-28.
const STDIO: &[Cite] = &[
    Mcp("2025-11-25", "basic/transports", "stdio"),
    Mcp("2026-07-28", "basic/transports/stdio", ""),
];

/// The `_meta` rules of 2026-07-28.
const META: &[Cite] = &[Mcp("2026-07-28", "basic", "meta")];

/// The error codes of 2026-07-28.
const ERROR_CODES: &[Cite] = &[Mcp("2026-07-28", "basic", "error-codes")];

/// Statelessness in 2026-07-28.
const STATELESS: &[Cite] = &[Mcp("2026-07-28", "basic", "statelessness")];

/// Icons, from 2025-11-25 on.
const ICONS: &[Cite] = &[
    Mcp("2025-11-25", "basic", "icons"),
    Mcp("2026-07-28", "basic", "icons"),
];

/// The initialization of a legacy session.
const INITIALIZATION: &[Cite] = &[Mcp("2025-11-25", "basic/lifecycle", "initialization")];

/// Version negotiation at `initialize`.
const NEGOTIATION: &[Cite] = &[Mcp("2025-11-25", "basic/lifecycle", "version-negotiation")];

/// The operation phase of a legacy session.
const OPERATION: &[Cite] = &[Mcp("2025-11-25", "basic/lifecycle", "operation")];

/// The operation phase of the revisions that asked it as a SHOULD.
const OPERATION_EARLY: &[Cite] = &[Mcp("2025-03-26", "basic/lifecycle", "operation")];

/// Cancellation in the legacy revisions.
const CANCELLATION: &[Cite] = &[Mcp(
    "2025-11-25",
    "basic/utilities/cancellation",
    "behavior-requirements",
)];

/// Progress in the legacy revisions.
const PROGRESS_FLOW: &[Cite] = &[Mcp(
    "2025-11-25",
    "basic/utilities/progress",
    "progress-flow",
)];

/// The server's duties of the base protocol, page by page.
pub(super) const SERVER: &[Requirement] = &[
    // The stdio transport.
    srv(
        "srv-stdio-only-messages-on-stdout",
        Must,
        R2024,
        Some(L::StdoutIsProtocol),
        STDIO,
        "the server writes nothing on stdout but MCP messages",
    ),
    srv(
        "srv-stdio-one-message-per-line",
        Must,
        R2024,
        Some(L::StdoutIsProtocol),
        STDIO,
        "each message the server writes sits on a line of its own, ended by a newline, with no newline inside it",
    ),
    srv(
        "srv-stdio-utf8",
        Must,
        R0326,
        Some(L::StdoutIsProtocol),
        &[
            Mcp("2025-11-25", "basic/transports", ""),
            Mcp("2026-07-28", "basic/transports", "messages"),
        ],
        "what the server writes is UTF-8",
    ),
    srv(
        "srv-stdio-answers-before-exit",
        Must,
        R2024,
        Some(L::EofDrains),
        &[
            Mcp("2026-07-28", "basic/transports/stdio", "shutdown"),
            JsonRpc("5"),
        ],
        "a request read before end of input is answered before the server exits",
    ),
    srv(
        "srv-stdio-exit-on-eof",
        Should,
        R2026,
        Some(L::EofExitZero),
        &[Mcp("2026-07-28", "basic/transports/stdio", "shutdown")],
        "the server exits soon after its stdin reaches end of input",
    ),
    srv(
        "srv-stdio-cancelled-silent",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/transports/stdio", "cancellation")],
        "once the client cancels a request, the server writes nothing more about it",
    ),
    srv(
        "srv-stdio-cancelled-stops",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/transports/stdio", "cancellation")],
        "the server stops the work of a cancelled request soon",
    )
    .unseen("whether work stops is inside the server; only its silence shows, a requirement of its own"),
    // JSON-RPC messages.
    srv(
        "srv-jsonrpc-2-0",
        Must,
        R2024,
        Some(L::StdoutIsProtocol),
        &[
            Mcp("2025-11-25", "basic", "messages"),
            Mcp("2026-07-28", "basic", "messages"),
            Mcp("2024-11-05", "basic/messages", ""),
        ],
        "every message is a JSON-RPC 2.0 message, with \"jsonrpc\": \"2.0\"",
    ),
    srv(
        "srv-schema-valid-messages",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "schema"),
            Mcp("2026-07-28", "basic", "schema"),
            Mcp("2024-11-05", "basic", "schema"),
        ],
        "every message the server writes is valid against its revision's schema, a result against its method's result type",
    ),
    srv(
        "srv-stdio-no-requests",
        Must,
        R2026,
        Some(L::Schema),
        &[
            Mcp("2026-07-28", "basic/transports/stdio", "receiving-messages"),
            Mcp("2026-07-28", "basic/patterns", ""),
            Mcp("2026-07-28", "basic/patterns/mrtr", ""),
        ],
        "the server writes no JSON-RPC request; it asks the client for input inside a result instead",
    ),
    srv(
        "srv-response-same-id",
        Must,
        R2024,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp("2025-11-25", "basic", "responses"),
            Mcp("2026-07-28", "basic", "result-responses"),
            JsonRpc("5"),
        ],
        "every request gets one response, carrying its id with the same JSON type",
    ),
    srv(
        "srv-response-result-or-error",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "result-responses"),
            Mcp("2024-11-05", "basic/messages", "responses"),
            JsonRpc("5"),
        ],
        "a response carries a result or an error, never both and never neither",
    ),
    srv(
        "srv-result-object",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "result-responses"),
            Mcp("2026-07-28", "basic", "result-responses"),
        ],
        "a result is a JSON object",
    ),
    srv(
        "srv-error-code-and-message",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "error-responses"),
            Mcp("2026-07-28", "basic", "error-responses"),
            JsonRpc("5.1"),
        ],
        "an error carries an integer code and a string message",
    ),
    srv(
        "srv-error-response-id",
        Must,
        R2024,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp("2025-11-25", "basic", "error-responses"),
            Mcp("2026-07-28", "basic", "error-responses"),
        ],
        "an error carries the id of the request it answers, and goes without one only when that id could not be read",
    ),
    srv(
        "srv-jsonrpc-unreadable-line",
        Must,
        R2024,
        Some(L::ParseErrorKeepsServing),
        &[
            Mcp("2025-11-25", "basic", "error-responses"),
            JsonRpc("5"),
            JsonRpc("5.1"),
        ],
        "a line that is not JSON gets error -32700, and JSON that is no request -32600, each with a null id; serving goes on",
    ),
    srv(
        "srv-unknown-method-32601",
        Should,
        R2024,
        Some(L::UnknownMethod),
        &[Mcp("2026-07-28", "basic", "error-codes"), JsonRpc("5.1")],
        "a method the server does not have (on 2026-07-28 the removed ping, logging/setLevel and resources/subscribe too) gets error -32601",
    ),
    srv(
        "srv-request-id-type",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "requests"),
            Mcp("2024-11-05", "basic/messages", "requests"),
        ],
        "a request the server sends has a string or integer id, never null",
    )
    .until(R1125),
    srv(
        "srv-request-id-unique",
        Must,
        R2024,
        None,
        &[Mcp("2025-11-25", "basic", "requests")],
        "the server never uses one of its request ids twice in a session",
    )
    .until(R1125),
    srv(
        "srv-notification-no-id",
        Must,
        R2024,
        Some(L::Schema),
        &[
            Mcp("2025-11-25", "basic", "notifications"),
            Mcp("2026-07-28", "basic", "notifications"),
        ],
        "a notification the server sends has no id",
    ),
    srv(
        "srv-notification-never-answered",
        Must,
        R2024,
        Some(L::NotificationUnanswered),
        &[
            Mcp("2025-11-25", "basic", "notifications"),
            Mcp("2026-07-28", "basic", "notifications"),
            JsonRpc("4.1"),
        ],
        "no response goes to a notification, known, unknown or malformed",
    ),
    srv(
        "srv-batch-received",
        Must,
        R0326,
        Some(L::RequestAnsweredOnce),
        &[Mcp("2025-03-26", "basic", "batching")],
        "the server takes a batch of requests and notifications on one line and answers each of its requests",
    )
    .until(R0326),
    srv(
        "srv-batch-answered-as-batch",
        Should,
        R0326,
        Some(L::RequestAnsweredOnce),
        &[Mcp("2025-03-26", "basic", "batching"), JsonRpc("6")],
        "the answers to a batch come back together, in one array",
    )
    .until(R0326),
    // Version negotiation and `server/discover`.
    srv(
        "srv-discover-answers",
        Must,
        R2026,
        Some(L::Discover),
        &[
            Mcp("2026-07-28", "server/discover", "response"),
            Mcp(
                "2026-07-28",
                "basic/versioning",
                "protocol-version-negotiation",
            ),
        ],
        "server/discover answers the versions the server supports and its capabilities",
    ),
    srv(
        "srv-discover-server-info",
        Should,
        R2026,
        Some(L::Discover),
        &[Mcp("2026-07-28", "server/discover", "discoverresult")],
        "the DiscoverResult names the server software in _meta",
    ),
    srv(
        "srv-discover-stable-within-ttl",
        Should,
        R2026,
        Some(L::Discover),
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "time-to-live-ttl-field",
        )],
        "a second server/discover within the first one's ttlMs names the same versions and capabilities",
    ),
    srv(
        "srv-version-unsupported-32022",
        Must,
        R2026,
        Some(L::Discover),
        &[Mcp(
            "2026-07-28",
            "basic/versioning",
            "protocol-version-negotiation",
        )],
        "a request for a version the server does not serve gets error -32022, listing the versions it serves and echoing the one asked",
    ),
    srv(
        "srv-version-extension-names",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/versioning", "extension-negotiation")],
        "the extensions the server declares are named by the _meta key rules, prefix included",
    ),
    srv(
        "srv-version-extension-fallback",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/versioning", "extension-negotiation")],
        "an extension the client did not declare goes unused: the server falls back to the core protocol or refuses the request",
    ),
    srv(
        "srv-version-extension-documented",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/versioning", "extension-negotiation")],
        "an extension documents how it falls back",
    )
    .unseen("documentation is outside the protocol"),
    // Results and error codes of 2026-07-28.
    srv(
        "srv-result-type",
        Must,
        R2026,
        Some(L::Schema),
        &[
            Mcp("2026-07-28", "basic", "result-responses"),
            Mcp("2026-07-28", "basic", "resulttype"),
        ],
        "every result names its kind in resultType",
    ),
    srv(
        "srv-result-type-known",
        Must,
        R2026,
        Some(L::Schema),
        &[Mcp("2026-07-28", "basic", "resulttype")],
        "a resultType is one the client can know: complete, input_required where a request may ask for input, or one of an extension both sides declared",
    ),
    srv(
        "srv-error-codes-defined",
        Must,
        R2026,
        None,
        ERROR_CODES,
        "a code from -32020 to -32099 is one the revision defines, used for what it means",
    ),
    srv(
        "srv-error-codes-withdrawn",
        Must,
        R2026,
        None,
        ERROR_CODES,
        "the server never answers -32002 or -32042, codes the revision withdrew",
    ),
    srv(
        "srv-error-codes-legacy-range",
        Should,
        R2026,
        None,
        ERROR_CODES,
        "a new server keeps off the codes -32000 to -32019",
    )
    .unseen("whether an implementation is new is not on the wire"),
    srv(
        "srv-error-codes-application",
        Should,
        R2026,
        None,
        ERROR_CODES,
        "codes for the server's own purposes lie outside -32768 to -32000",
    ),
    // `_meta`.
    srv(
        "srv-meta-key-names",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "basic", "meta"),
            Mcp("2026-07-28", "basic", "meta"),
        ],
        "the _meta keys the server writes have a well-formed prefix and name",
    ),
    srv(
        "srv-meta-reserved-values",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "basic", "meta"),
            Mcp("2026-07-28", "basic", "meta"),
        ],
        "the server assumes nothing about the values under the keys MCP reserves",
    )
    .unseen("what a server makes of a value is inside it"),
    srv(
        "srv-meta-required-fields",
        Must,
        R2026,
        Some(L::Discover),
        META,
        "a request without the protocol version or the client's capabilities in its _meta gets error -32602",
    ),
    srv(
        "srv-meta-client-info-optional",
        Must,
        R2026,
        Some(L::Discover),
        META,
        "a request without clientInfo in its _meta, the one key a client may leave out, is served all the same",
    ),
    srv(
        "srv-meta-declared-capabilities",
        Must,
        R2026,
        None,
        META,
        "the server counts on no client capability the request did not declare",
    ),
    srv(
        "srv-meta-missing-capability-32021",
        Must,
        R2026,
        None,
        META,
        "a request that needs a client capability it did not declare gets error -32021, naming the capabilities required",
    ),
    srv(
        "srv-meta-server-info",
        Should,
        R2026,
        Some(L::Discover),
        META,
        "every result names the server in _meta (io.modelcontextprotocol/serverInfo)",
    ),
    srv(
        "srv-meta-trace-context",
        Must,
        R2026,
        None,
        META,
        "trace context in _meta, where the server writes it, follows the W3C Trace Context and Baggage formats",
    ),
    // Statelessness.
    srv(
        "srv-stateless-no-prior-context",
        Must,
        R2026,
        Some(L::Discover),
        STATELESS,
        "no request leans on an earlier one on the same connection: version, capabilities and identity come with each request",
    ),
    srv(
        "srv-stateless-any-process",
        Should,
        R2026,
        Some(L::Discover),
        STATELESS,
        "the server never needs related requests to come over the same connection or process",
    ),
    srv(
        "srv-stateless-many-conversations",
        Should,
        R2026,
        None,
        STATELESS,
        "the server is ready for requests of many tasks or conversations at once",
    )
    .unseen("how many conversations a server is ready for shows in no single session"),
    // JSON Schema.
    srv(
        "srv-json-schema-valid",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic", "schema-validation"),
            Mcp("2026-07-28", "basic", "schema-validation"),
        ],
        "the schemas the server publishes are valid in their dialect, 2020-12 where $schema names none",
    ),
    srv(
        "srv-json-schema-dialects",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic", "implementation-requirements"),
            Mcp("2026-07-28", "basic", "implementation-requirements"),
        ],
        "the server reads a schema without $schema as 2020-12, and answers an error for a dialect it does not support",
    )
    .unseen("a server reads schemas a client never sends it: how it reads its own shows only in how it validates"),
    srv(
        "srv-json-schema-documented",
        Should,
        R1125,
        None,
        &[Mcp("2025-11-25", "basic", "implementation-requirements")],
        "the server documents the schema dialects it supports",
    )
    .unseen("documentation is outside the protocol"),
    srv(
        "srv-json-schema-no-remote-ref",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "ref-resolution")],
        "the server fetches no $ref that points to the network, unless told to, and then only from hosts it allows",
    )
    .unseen("a fetch over the network happens outside stdio"),
    srv(
        "srv-json-schema-unresolved-ref",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "ref-resolution")],
        "a schema whose external $ref cannot be resolved is refused, not taken to allow anything",
    )
    .unseen("the schemas a server validates against are its own; which of them it refuses shows nowhere"),
    srv(
        "srv-json-schema-bounded",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "composition-keyword-resource-use")],
        "the server bounds the work of validating against a schema (depth, subschemas, time)",
    )
    .unseen("the bounds a validator keeps are inside it"),
    // Icons (2025-11-25 on).
    srv(
        "srv-icons-src-uri",
        Must,
        R1125,
        Some(L::Schema),
        ICONS,
        "an icon's src is a URI: an https address or a data: URI",
    ),
    srv(
        "srv-icons-sizes",
        Should,
        R1125,
        Some(L::Schema),
        ICONS,
        "each of an icon's sizes is WxH (48x48) or any",
    ),
    // The lifecycle of a legacy session.
    srv(
        "srv-init-result",
        Must,
        R2024,
        Some(L::Initialize),
        INITIALIZATION,
        "initialize is answered with the protocol version, the server's capabilities and its name and version",
    )
    .until(R1125),
    srv(
        "srv-init-same-version",
        Must,
        R2024,
        Some(L::Initialize),
        NEGOTIATION,
        "a requested version the server supports comes back unchanged",
    )
    .until(R1125),
    srv(
        "srv-init-other-version",
        Must,
        R2024,
        Some(L::Initialize),
        NEGOTIATION,
        "a requested version the server does not support gets another, one it supports, never the one asked",
    )
    .until(R1125),
    srv(
        "srv-init-latest-version",
        Should,
        R2024,
        None,
        NEGOTIATION,
        "that other version is the newest the server supports",
    )
    .until(R1125),
    srv(
        "srv-init-no-early-requests",
        Should,
        R2024,
        None,
        INITIALIZATION,
        "until the initialized notification the server sends no request but ping",
    )
    .until(R1125),
    srv(
        "srv-lifecycle-keeps-version",
        Must,
        R0618,
        Some(L::Schema),
        OPERATION,
        "the server keeps to the protocol version agreed at initialization",
    )
    .until(R1125),
    srv(
        "srv-lifecycle-keeps-version-2024",
        Should,
        R2024,
        Some(L::Schema),
        OPERATION_EARLY,
        "the server keeps to the protocol version agreed at initialization",
    )
    .until(R0326),
    srv(
        "srv-lifecycle-keeps-capabilities",
        Must,
        R0618,
        Some(L::CapabilitiesHonest),
        OPERATION,
        "the server uses only the capabilities agreed at initialization, its own and the client's",
    )
    .until(R1125),
    srv(
        "srv-lifecycle-keeps-capabilities-2024",
        Should,
        R2024,
        Some(L::CapabilitiesHonest),
        OPERATION_EARLY,
        "the server uses only the capabilities agreed at initialization, its own and the client's",
    )
    .until(R0326),
    srv(
        "srv-lifecycle-timeouts",
        Should,
        R2024,
        None,
        &[Mcp("2025-11-25", "basic/lifecycle", "timeouts")],
        "the server bounds how long it waits for the answers to its own requests, and cancels those it gives up on",
    )
    .until(R1125)
    .unseen("a timeout is the sender's own clock: a cancellation shows, not why it was sent"),
    srv(
        "srv-init-modern-only-names-versions",
        Should,
        R2026,
        Some(L::Initialize),
        &[Mcp(
            "2026-07-28",
            "basic/versioning",
            "backward-compatibility-with-initialization-based-versions",
        )],
        "a server that speaks only the stateless revisions names the versions it serves in its error to initialize",
    ),
    // Ping.
    srv(
        "srv-ping-empty-result",
        Must,
        R2024,
        Some(L::Ping),
        &[Mcp(
            "2025-11-25",
            "basic/utilities/ping",
            "behavior-requirements",
        )],
        "ping is answered promptly with an empty result",
    )
    .until(R1125),
    // Cancellation.
    srv(
        "srv-cancel-only-in-flight",
        Must,
        R2024,
        None,
        CANCELLATION,
        "a cancellation the server sends names one of its own requests, still in flight",
    )
    .until(R1125),
    srv(
        "srv-cancel-no-answer",
        Should,
        R2024,
        None,
        CANCELLATION,
        "a request the client cancelled gets no response",
    )
    .until(R1125),
    srv(
        "srv-cancel-stops",
        Should,
        R2024,
        None,
        CANCELLATION,
        "the server stops the work of a cancelled request and frees what it held",
    )
    .until(R1125)
    .unseen("whether work stops is inside the server"),
    srv(
        "srv-cancel-invalid-ignored",
        Should,
        R2024,
        Some(L::CancelTolerated),
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/cancellation",
                "error-handling",
            ),
            Mcp("2026-07-28", "basic/patterns/cancellation", "error-handling"),
        ],
        "a cancellation of an unknown or finished request is ignored: no answer, no crash",
    ),
    srv(
        "srv-cancel-race",
        Must,
        R2024,
        Some(L::CancelTolerated),
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/cancellation",
                "timing-considerations",
            ),
            Mcp(
                "2026-07-28",
                "basic/patterns/cancellation",
                "timing-considerations",
            ),
        ],
        "a cancellation that crosses its request's answer does no harm",
    ),
    srv(
        "srv-cancel-logged",
        Should,
        R2024,
        None,
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/cancellation",
                "implementation-notes",
            ),
            Mcp(
                "2026-07-28",
                "basic/patterns/cancellation",
                "implementation-notes",
            ),
        ],
        "the server logs why requests were cancelled",
    )
    .unseen("a server's own log is outside the protocol"),
    srv(
        "srv-cancel-listen-only",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/patterns/cancellation", "")],
        "the server sends notifications/cancelled only to end a subscriptions/listen stream, naming that request",
    ),
    // Progress.
    srv(
        "srv-progress-token-type",
        Must,
        R2024,
        Some(L::Schema),
        PROGRESS_FLOW,
        "a progress token, in the server's requests and its progress notifications, is a string or an integer",
    ),
    srv(
        "srv-progress-token-unique",
        Must,
        R2024,
        None,
        PROGRESS_FLOW,
        "a progress token the server gives is not in use by another of its active requests",
    )
    .until(R1125),
    srv(
        "srv-progress-known-token",
        Must,
        R2024,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/progress",
                "behavior-requirements",
            ),
            Mcp("2026-07-28", "basic/patterns/progress", "behavior-requirements"),
        ],
        "progress names only a token the client gave with a request still in flight",
    ),
    srv(
        "srv-progress-increases",
        Must,
        R2024,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp("2025-11-25", "basic/utilities/progress", "progress-flow"),
            Mcp("2026-07-28", "basic/patterns/progress", "progress-flow"),
        ],
        "each progress value for one token is greater than the last",
    ),
    srv(
        "srv-progress-stops",
        Must,
        R2024,
        Some(L::RequestAnsweredOnce),
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/progress",
                "implementation-notes",
            ),
            Mcp("2026-07-28", "basic/patterns/progress", "implementation-notes"),
        ],
        "no progress for a request follows its answer",
    ),
    srv(
        "srv-progress-message",
        Should,
        R0326,
        None,
        &[
            Mcp("2025-11-25", "basic/utilities/progress", "progress-flow"),
            Mcp("2026-07-28", "basic/patterns/progress", "progress-flow"),
        ],
        "a progress message says, in words a person reads, how the work goes",
    )
    .unseen("whether words help a reader is a judgement of meaning"),
];
