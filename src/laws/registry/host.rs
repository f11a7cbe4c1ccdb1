//! The host's duties: what the process that starts a server owes it over
//! stdio, page by page, each mapped to the host law that judges it from
//! the host's lines in a transcript.

use super::Level::{Must, Should};
use super::{R0326, R0618, R1125, R2024, R2026, Requirement, host};
use crate::laws::Cite::{self, JsonRpc, Mcp};
use crate::laws::LawId as L;

/// Why what a host shows its user, or decides inside, cannot be seen.
const UI: &str = "what a host shows its user, and what the user decides, happens outside stdio";

/// Why what a host does with what it received cannot be seen.
const INSIDE: &str =
    "what a host does with a message it received shows in its behaviour, not on stdio";

/// Why a new implementation cannot be told from an old one.
const NEW: &str = "whether an implementation is new is not on the wire";

/// The stdio transport, in the legacy revisions and in 2026-07-28.
const STDIO: &[Cite] = &[
    Mcp("2025-11-25", "basic/transports", "stdio"),
    Mcp("2026-07-28", "basic/transports/stdio", ""),
];

/// The operation phase of a legacy session.
const OPERATION: &[Cite] = &[Mcp("2025-11-25", "basic/lifecycle", "operation")];

/// The operation phase of the revisions that asked it as a SHOULD.
const OPERATION_EARLY: &[Cite] = &[Mcp("2025-03-26", "basic/lifecycle", "operation")];

/// What a client of multi round-trip requests owes.
const MRTR_CLIENT: &[Cite] = &[Mcp(
    "2026-07-28",
    "basic/patterns/mrtr",
    "client-requirements-basic-workflow",
)];

/// Progress in the legacy revisions.
const PROGRESS_FLOW: &[Cite] = &[Mcp(
    "2025-11-25",
    "basic/utilities/progress",
    "progress-flow",
)];

/// The host's duties, page by page.
pub(super) const HOST: &[Requirement] = &[
    // The stdio transport.
    host(
        "host-stdio-only-messages-on-stdin",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        STDIO,
        "the host writes nothing on the server's stdin but MCP messages",
    ),
    host(
        "host-stdio-one-message-per-line",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        STDIO,
        "each message the host writes sits on a line of its own, with no newline inside it",
    ),
    host(
        "host-stdio-utf8",
        Must,
        R0326,
        Some(L::HostMessagesValid),
        &[
            Mcp("2025-11-25", "basic/transports", ""),
            Mcp("2026-07-28", "basic/transports", "messages"),
        ],
        "what the host writes is UTF-8",
    ),
    host(
        "host-stdio-stderr-not-errors",
        Should,
        R1125,
        None,
        STDIO,
        "the host does not take the server's stderr output for a sign of error",
    )
    .unseen(INSIDE),
    host(
        "host-stdio-no-responses",
        Must,
        R2026,
        Some(L::HostAnswersServerRequests),
        &[Mcp("2026-07-28", "basic/transports/stdio", "sending-messages")],
        "the host writes no JSON-RPC response",
    ),
    host(
        "host-stdio-shutdown-order",
        Should,
        R2024,
        Some(L::HostShutdownOrder),
        &[
            Mcp("2025-11-25", "basic/lifecycle", "stdio"),
            Mcp("2026-07-28", "basic/transports/stdio", "shutdown"),
        ],
        "the host ends a session by closing the server's stdin and waiting, then SIGTERM, then SIGKILL",
    ),
    host(
        "host-stdio-restart",
        Should,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "basic/transports/stdio",
            "unexpected-termination",
        )],
        "the host starts a server that ended unexpectedly again",
    )
    .unseen("a server started again is a new process, outside the session recorded"),
    host(
        "host-stdio-cancel-notification",
        Must,
        R2026,
        Some(L::HostCancelValid),
        &[Mcp("2026-07-28", "basic/transports/stdio", "cancellation")],
        "the host cancels a request with notifications/cancelled naming its id",
    ),
    host(
        "host-stdio-discover-first",
        Should,
        R2026,
        None,
        &[
            Mcp("2026-07-28", "basic/transports/stdio", "backward-compatibility"),
            Mcp("2026-07-28", "server/discover", "when-to-call"),
        ],
        "a host that speaks both eras sends server/discover first",
    ),
    host(
        "host-stdio-fallback-any-code",
        Must,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "basic/transports/stdio",
            "backward-compatibility",
        )],
        "the host's fall back to initialize does not hang on one particular error code",
    )
    .unseen("one session shows one answer; which answers lead a host back to initialize takes several"),
    host(
        "host-era-stays-modern",
        Should,
        R2026,
        Some(L::HostEraProbe),
        &[
            Mcp("2026-07-28", "basic/versioning", "compatibility-matrix"),
            Mcp(
                "2026-07-28",
                "basic/transports/stdio",
                "backward-compatibility",
            ),
        ],
        "after a modern answer the host does not fall back to initialize on that process",
    ),
    host(
        "host-version-retry",
        Should,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "basic/versioning",
            "protocol-version-negotiation",
        )],
        "after error -32022 the host retries with a version from the list it got, or gives up",
    ),
    host(
        "host-version-discovery-kept",
        Should,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "basic/versioning",
            "backward-compatibility-with-initialization-based-versions",
        )],
        "the host keeps what it learned of a server's era for the life of the process",
    ),
    // JSON-RPC messages.
    host(
        "host-jsonrpc-2-0",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        &[
            Mcp("2025-11-25", "basic", "messages"),
            Mcp("2026-07-28", "basic", "messages"),
        ],
        "every message the host writes is a JSON-RPC 2.0 message, valid for its method",
    ),
    host(
        "host-request-id-type",
        Must,
        R2024,
        Some(L::HostRequestIds),
        &[
            Mcp("2025-11-25", "basic", "requests"),
            Mcp("2026-07-28", "basic", "requests"),
        ],
        "each request the host sends has a string or integer id, never null",
    ),
    host(
        "host-request-id-unique",
        Must,
        R2024,
        Some(L::HostRequestIds),
        &[Mcp("2025-11-25", "basic", "requests")],
        "the host never uses a request id twice in a session",
    )
    .until(R1125),
    host(
        "host-request-id-not-pending",
        Must,
        R2026,
        Some(L::HostRequestIds),
        &[Mcp("2026-07-28", "basic", "requests")],
        "the host never gives a request the id of one still awaiting its answer",
    ),
    host(
        "host-notification-no-id",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        &[
            Mcp("2025-11-25", "basic", "notifications"),
            Mcp("2026-07-28", "basic", "notifications"),
        ],
        "a notification the host sends has no id",
    ),
    host(
        "host-notification-never-answered",
        Must,
        R2024,
        Some(L::HostNotificationsUnanswered),
        &[Mcp("2025-11-25", "basic", "notifications"), JsonRpc("4.1")],
        "no response of the host goes to a notification",
    ),
    host(
        "host-answers-server-requests",
        Must,
        R2024,
        Some(L::HostAnswersServerRequests),
        &[Mcp("2025-11-25", "basic", "result-responses"), JsonRpc("5")],
        "each request of the server gets one response with its id, and no response names an id the server never sent",
    )
    .until(R1125),
    host(
        "host-response-shape",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        &[
            Mcp("2025-11-25", "basic", "result-responses"),
            Mcp("2025-11-25", "basic", "error-responses"),
        ],
        "a response of the host carries a result or an error, never both, an error with an integer code and a message",
    )
    .until(R1125),
    host(
        "host-ping-empty-result",
        Must,
        R2024,
        Some(L::HostAnswersServerRequests),
        &[Mcp(
            "2025-11-25",
            "basic/utilities/ping",
            "behavior-requirements",
        )],
        "the host answers the server's ping promptly with an empty result",
    )
    .until(R1125),
    host(
        "host-result-type-unknown",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "resulttype")],
        "the host takes a result of a resultType it does not know for invalid",
    )
    .unseen(INSIDE),
    host(
        "host-result-type-absent",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "resulttype")],
        "the host reads a result without resultType, from an older server, as complete",
    )
    .unseen(INSIDE),
    host(
        "host-error-32002-accepted",
        Should,
        R2026,
        None,
        &[
            Mcp("2026-07-28", "basic", "error-codes"),
            Mcp("2026-07-28", "server/resources", "error-handling"),
        ],
        "the host still reads -32002 from an older server as a resource not found",
    )
    .unseen(INSIDE),
    // `_meta` and statelessness (2026-07-28).
    host(
        "host-meta-required",
        Must,
        R2026,
        Some(L::HostMessagesValid),
        &[Mcp("2026-07-28", "basic", "meta")],
        "every request carries the protocol version and the client's capabilities in _meta",
    ),
    host(
        "host-meta-client-info",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "meta")],
        "every request names the client in _meta (io.modelcontextprotocol/clientInfo)",
    ),
    host(
        "host-meta-key-names",
        Must,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "basic", "meta"),
            Mcp("2026-07-28", "basic", "meta"),
        ],
        "the _meta keys the host writes have a well-formed prefix and name",
    ),
    host(
        "host-meta-trace-context",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "meta")],
        "trace context in _meta, where the host writes it, follows the W3C Trace Context and Baggage formats",
    ),
    host(
        "host-meta-info-not-trusted",
        Should,
        R2026,
        None,
        &[
            Mcp("2026-07-28", "server/discover", "discoverresult"),
            Mcp("2026-07-28", "basic", "meta"),
        ],
        "the host neither changes its behaviour nor bases security on the serverInfo it is told",
    )
    .unseen(INSIDE),
    host(
        "host-stateless-lifetime",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "statelessness")],
        "the host does not tie a server process's life to one conversation",
    )
    .unseen("a process's life against a conversation's is the host's design, which one session does not show"),
    host(
        "host-stateless-explicit-handles",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "statelessness")],
        "state that spans requests is named by an identifier the host passes with each request",
    )
    .unseen("which state a host means to keep across requests is its own knowledge"),
    // JSON Schema and icons.
    host(
        "host-json-schema-dialects",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic", "implementation-requirements"),
            Mcp("2026-07-28", "basic", "implementation-requirements"),
        ],
        "the host reads a schema without $schema as 2020-12, and reports a dialect it does not support",
    )
    .unseen(INSIDE),
    host(
        "host-json-schema-no-remote-ref",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "ref-resolution")],
        "the host fetches no $ref that points to the network, unless told to, and then only from hosts it allows",
    )
    .unseen("a fetch over the network happens outside stdio"),
    host(
        "host-json-schema-bounded",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic", "composition-keyword-resource-use")],
        "the host bounds the work of validating against a schema, and refuses one whose external $ref cannot be resolved",
    )
    .unseen(INSIDE),
    host(
        "host-icons-formats",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic", "icons"),
            Mcp("2026-07-28", "basic", "icons"),
        ],
        "a host that shows icons supports PNG and JPEG, and SVG and WebP where it can",
    )
    .unseen(UI),
    host(
        "host-icons-safe",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic", "icons"),
            Mcp("2026-07-28", "basic", "icons"),
        ],
        "the host refuses icon URIs of dangerous schemes and guards against hostile images",
    )
    .unseen(UI),
    // The lifecycle of a legacy session.
    host(
        "host-init-first",
        Must,
        R2024,
        Some(L::HostFirstMessage),
        &[Mcp("2025-11-25", "basic/lifecycle", "initialization")],
        "initialize is the first message the host sends",
    )
    .until(R1125),
    host(
        "host-init-params",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        &[Mcp("2025-11-25", "basic/lifecycle", "initialization")],
        "initialize carries the version asked, the client's capabilities and its name and version",
    )
    .until(R1125),
    host(
        "host-init-supported-version",
        Must,
        R2024,
        None,
        &[Mcp("2025-11-25", "basic/lifecycle", "version-negotiation")],
        "the host asks for a version it supports, its newest",
    )
    .until(R1125)
    .unseen("which versions a host supports is not on the wire"),
    host(
        "host-init-initialized",
        Must,
        R2024,
        Some(L::HostInitializedSent),
        &[Mcp("2025-11-25", "basic/lifecycle", "initialization")],
        "after a successful initialize the host sends notifications/initialized, never before",
    )
    .until(R1125),
    host(
        "host-init-no-early-requests",
        Should,
        R2024,
        Some(L::HostFirstMessage),
        &[Mcp("2025-11-25", "basic/lifecycle", "initialization")],
        "until initialize is answered the host sends no request but ping",
    )
    .until(R1125),
    host(
        "host-init-unusable-version",
        Should,
        R2024,
        None,
        &[Mcp("2025-11-25", "basic/lifecycle", "version-negotiation")],
        "a host that cannot use the version answered ends the session",
    )
    .until(R1125)
    .unseen("which versions a host can use is its own knowledge"),
    host(
        "host-lifecycle-keeps-version",
        Must,
        R0618,
        Some(L::HostMessagesValid),
        OPERATION,
        "the host keeps to the protocol version agreed at initialization",
    )
    .until(R1125),
    host(
        "host-lifecycle-keeps-version-2024",
        Should,
        R2024,
        Some(L::HostMessagesValid),
        OPERATION_EARLY,
        "the host keeps to the protocol version agreed at initialization",
    )
    .until(R0326),
    host(
        "host-lifecycle-keeps-capabilities",
        Must,
        R0618,
        Some(L::HostCapabilitiesHonest),
        OPERATION,
        "the host uses only the capabilities agreed at initialization, its own and the server's",
    )
    .until(R1125),
    host(
        "host-lifecycle-keeps-capabilities-2024",
        Should,
        R2024,
        Some(L::HostCapabilitiesHonest),
        OPERATION_EARLY,
        "the host uses only the capabilities agreed at initialization, its own and the server's",
    )
    .until(R0326),
    host(
        "host-lifecycle-timeouts",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "basic/lifecycle", "timeouts"),
            Mcp("2026-07-28", "basic/patterns/cancellation", "timeouts"),
        ],
        "the host bounds every wait for an answer, cancels a request it gives up on, and keeps a hard limit while progress comes",
    )
    .unseen("a timeout is the sender's own clock: a cancellation shows, not why it was sent"),
    // Cancellation.
    host(
        "host-cancel-in-flight",
        Must,
        R2024,
        Some(L::HostCancelValid),
        &[
            Mcp(
                "2025-11-25",
                "basic/utilities/cancellation",
                "behavior-requirements",
            ),
            Mcp(
                "2026-07-28",
                "basic/patterns/cancellation",
                "behavior-requirements",
            ),
        ],
        "a cancellation names a request the host sent that is still in flight",
    ),
    host(
        "host-cancel-not-initialize",
        Must,
        R2024,
        Some(L::HostCancelValid),
        &[Mcp(
            "2025-11-25",
            "basic/utilities/cancellation",
            "behavior-requirements",
        )],
        "the host never cancels initialize",
    )
    .until(R1125),
    host(
        "host-cancel-tasks",
        Must,
        R1125,
        None,
        &[Mcp(
            "2025-11-25",
            "basic/utilities/cancellation",
            "behavior-requirements",
        )],
        "a task-augmented request is cancelled with tasks/cancel, not with notifications/cancelled",
    )
    .until(R1125),
    host(
        "host-cancel-race",
        Must,
        R2024,
        None,
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
        "the host copes with an answer that crosses its cancellation, and ignores an answer to a request it cancelled",
    )
    .unseen(INSIDE),
    host(
        "host-cancel-invalid-ignored",
        Should,
        R2024,
        Some(L::HostNotificationsUnanswered),
        &[Mcp(
            "2025-11-25",
            "basic/utilities/cancellation",
            "error-handling",
        )],
        "a cancellation of an unknown or finished request of the host is ignored, never answered",
    )
    .until(R1125),
    // Progress.
    host(
        "host-progress-token-type",
        Must,
        R2024,
        Some(L::HostMessagesValid),
        PROGRESS_FLOW,
        "a progress token the host gives is a string or an integer",
    ),
    host(
        "host-progress-token-unique",
        Must,
        R2024,
        Some(L::HostProgressTokens),
        &[
            Mcp("2025-11-25", "basic/utilities/progress", "progress-flow"),
            Mcp("2026-07-28", "basic/patterns/progress", "progress-flow"),
        ],
        "a progress token the host gives is not in use by another of its active requests",
    ),
    host(
        "host-progress-known-token",
        Must,
        R2024,
        Some(L::HostProgressTokens),
        &[Mcp(
            "2025-11-25",
            "basic/utilities/progress",
            "behavior-requirements",
        )],
        "progress the host sends names the token of a server request still in flight, and stops with its answer",
    )
    .until(R1125),
    host(
        "host-progress-increases",
        Must,
        R2024,
        Some(L::HostProgressTokens),
        PROGRESS_FLOW,
        "each progress value the host sends for one token is greater than the last",
    )
    .until(R1125),
    // Pagination and caching.
    host(
        "host-pagination-cursor-opaque",
        Must,
        R2024,
        None,
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
        "the host sends back only cursors the server gave, unchanged",
    ),
    host(
        "host-pagination-no-assumptions",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/utilities/pagination", "pagination-model"),
            Mcp("2026-07-28", "server/utilities/pagination", "pagination-model"),
        ],
        "the host assumes no page size, and takes only a missing nextCursor for the end",
    )
    .unseen(INSIDE),
    host(
        "host-caching-key",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/utilities/caching", "cache-key")],
        "a cached answer stands only for the same method and params, and never for a result of a retried request",
    )
    .unseen("what a host serves from its cache never reaches the server"),
    host(
        "host-caching-freshness",
        Should,
        R2026,
        None,
        &[
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "time-to-live-ttl-field",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "interaction-with-pagination",
            ),
        ],
        "the host keeps a result fresh for its ttlMs (a missing or negative one as 0), and fetches an expired page again by its cursor",
    )
    .unseen("what a host serves from its cache never reaches the server"),
    host(
        "host-caching-no-polling",
        Should,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "server/utilities/caching",
            "freshness-calculation",
        )],
        "the host does not poll on each ttlMs, and polls, if it must, with jitter and backoff",
    ),
    // Listen streams and multi round-trip requests (2026-07-28).
    host(
        "host-subscriptions-correlated",
        Must,
        R2026,
        None,
        &[
            Mcp(
                "2026-07-28",
                "basic/patterns/subscriptions",
                "receiving-notifications",
            ),
            Mcp("2026-07-28", "basic/transports/stdio", "receiving-messages"),
        ],
        "the host tells a stream's notifications apart by their subscriptionId, and checks the acknowledgement against what it asked",
    )
    .unseen(INSIDE),
    host(
        "host-subscriptions-reopened",
        Must,
        R2026,
        None,
        &[Mcp(
            "2026-07-28",
            "basic/patterns/subscriptions",
            "graceful-closure",
        )],
        "a host that starts a server again sends its subscriptions/listen again",
    )
    .unseen("a server started again is a new process, outside the session recorded"),
    host(
        "host-mrtr-inputs",
        Must,
        R2026,
        Some(L::HostMrtrRetry),
        MRTR_CLIENT,
        "a retry answers every input the server asked for",
    ),
    host(
        "host-mrtr-state-echoed",
        Must,
        R2026,
        Some(L::HostMrtrRetry),
        MRTR_CLIENT,
        "a retry gives back the requestState exactly as it came",
    ),
    host(
        "host-mrtr-no-invented-state",
        Must,
        R2026,
        None,
        MRTR_CLIENT,
        "a retry carries no requestState where the server gave none",
    ),
    host(
        "host-mrtr-new-id",
        Must,
        R2026,
        Some(L::HostMrtrRetry),
        &[
            Mcp(
                "2026-07-28",
                "basic/patterns/mrtr",
                "client-requirements-basic-workflow",
            ),
            Mcp("2026-07-28", "server/tools", "input-required-tool-results"),
        ],
        "a retry goes under a new request id",
    ),
    host(
        "host-mrtr-own-request",
        Must,
        R2026,
        None,
        MRTR_CLIENT,
        "inputRequests and requestState serve only the retry of the request they answered",
    ),
    host(
        "host-mrtr-state-opaque",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "basic/patterns/mrtr", "inputrequiredresult")],
        "the host does not read into requestState",
    )
    .unseen("a host that reads the state and changes nothing leaves no trace"),
    // Roots, sampling and elicitation: the host's features.
    host(
        "host-roots-capability",
        Must,
        R2024,
        Some(L::HostCapabilitiesHonest),
        &[
            Mcp("2025-11-25", "client/roots", "capabilities"),
            Mcp("2026-07-28", "client/roots", "capabilities"),
        ],
        "a host that offers roots declares the roots capability",
    ),
    host(
        "host-roots-list-changed",
        Must,
        R2024,
        None,
        &[Mcp("2025-11-25", "client/roots", "root-list-changes")],
        "a host that promised listChanged tells the server when its roots change",
    )
    .until(R1125)
    .under("roots.listChanged")
    .unseen("when a host's roots change is its own knowledge"),
    host(
        "host-roots-file-uris",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/roots", "root"),
            Mcp("2026-07-28", "client/roots", "root"),
        ],
        "every root's uri is a file:// URI",
    )
    .under("roots"),
    host(
        "host-roots-errors",
        Should,
        R2024,
        None,
        &[Mcp("2025-11-25", "client/roots", "error-handling")],
        "a roots/list the host cannot serve gets a JSON-RPC error, -32601 without the capability",
    )
    .until(R1125),
    host(
        "host-roots-security",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/roots", "security-considerations"),
            Mcp("2026-07-28", "client/roots", "security-considerations"),
        ],
        "the host exposes only roots the user allowed, each checked against path traversal",
    )
    .under("roots")
    .unseen(UI),
    host(
        "host-roots-deprecated",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "client/roots", "")],
        "a new host does not take up roots",
    )
    .unseen(NEW),
    host(
        "host-sampling-capability",
        Must,
        R2024,
        Some(L::HostCapabilitiesHonest),
        &[
            Mcp("2025-11-25", "client/sampling", "capabilities"),
            Mcp("2026-07-28", "client/sampling", "capabilities"),
        ],
        "a host that offers sampling declares the sampling capability",
    ),
    host(
        "host-sampling-tools-capability",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "tools-in-sampling"),
            Mcp("2026-07-28", "client/sampling", "tools-in-sampling"),
        ],
        "a host that takes sampling requests with tools declares sampling.tools",
    ),
    host(
        "host-sampling-errors",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "error-handling"),
            Mcp("2026-07-28", "client/sampling", "error-handling"),
        ],
        "a sampling request the host refuses or cannot serve gets an error",
    )
    .under("sampling"),
    host(
        "host-sampling-max-tokens",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "client/sampling", "sampling-parameters")],
        "the host keeps a sampled answer within maxTokens",
    )
    .under("sampling")
    .unseen("a model's count of tokens is not on the wire"),
    host(
        "host-sampling-user-control",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "user-interaction-model"),
            Mcp("2025-11-25", "client/sampling", "security-considerations"),
        ],
        "a person can see, change and refuse sampling requests, and the host limits their rate",
    )
    .under("sampling")
    .unseen(UI),
    host(
        "host-sampling-sensitive",
        Must,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "client/sampling", "security-considerations"),
            Mcp("2026-07-28", "client/sampling", "security-considerations"),
        ],
        "the host handles the data of sampling with care for what it holds",
    )
    .under("sampling")
    .unseen(INSIDE),
    host(
        "host-sampling-deprecated",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "client/sampling", "")],
        "a new host does not take up sampling",
    )
    .unseen(NEW),
    host(
        "host-elicitation-capability",
        Must,
        R0618,
        Some(L::HostCapabilitiesHonest),
        &[
            Mcp("2025-06-18", "client/elicitation", "capabilities"),
            Mcp("2025-11-25", "client/elicitation", "capabilities"),
            Mcp("2026-07-28", "client/elicitation", "capabilities"),
        ],
        "a host that offers elicitation declares the elicitation capability",
    ),
    host(
        "host-elicitation-modes",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "capabilities"),
            Mcp("2026-07-28", "client/elicitation", "capabilities"),
        ],
        "a host that declares elicitation supports form mode, URL mode or both",
    )
    .under("elicitation"),
    host(
        "host-elicitation-no-mode-form",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "elicitation-requests"),
            Mcp("2026-07-28", "client/elicitation", "elicitation-requests"),
        ],
        "a request without a mode is taken as a form",
    )
    .under("elicitation")
    .unseen(UI),
    host(
        "host-elicitation-response",
        Must,
        R0618,
        Some(L::HostMessagesValid),
        &[
            Mcp("2025-06-18", "client/elicitation", "response-actions"),
            Mcp("2025-11-25", "client/elicitation", "response-actions"),
            Mcp("2026-07-28", "client/elicitation", "response-actions"),
        ],
        "the host answers accept, decline or cancel, with content only on accept",
    )
    .under("elicitation"),
    host(
        "host-elicitation-content-checked",
        Should,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "form-mode-security"),
            Mcp("2026-07-28", "client/elicitation", "form-mode-security"),
        ],
        "content the host accepts meets the requested schema",
    )
    .under("elicitation"),
    host(
        "host-elicitation-errors",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "error-handling"),
            Mcp("2026-07-28", "client/elicitation", "error-handling"),
        ],
        "an elicitation the host cannot serve gets a standard JSON-RPC error",
    )
    .under("elicitation"),
    host(
        "host-elicitation-complete-unknown",
        Must,
        R1125,
        Some(L::HostNotificationsUnanswered),
        &[Mcp(
            "2025-11-25",
            "client/elicitation",
            "completion-notifications-for-url-mode-elicitation",
        )],
        "a completion notice for an unknown or finished elicitation is ignored, never answered",
    )
    .until(R1125)
    .under("elicitation"),
    host(
        "host-elicitation-url-safety",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "client/elicitation", "safe-url-handling"),
            Mcp("2026-07-28", "client/elicitation", "safe-url-handling"),
        ],
        "the host opens an elicitation URL only with the user's consent, shows it whole, and never fetches it first",
    )
    .under("elicitation")
    .unseen(UI),
    host(
        "host-elicitation-user-control",
        Should,
        R0618,
        None,
        &[
            Mcp("2025-06-18", "client/elicitation", "security-considerations"),
            Mcp("2025-11-25", "client/elicitation", "security-considerations"),
        ],
        "the user sees which server asks, and may refuse at any time",
    )
    .under("elicitation")
    .unseen(UI),
    // Tools and tasks, as a host uses them.
    host(
        "host-tools-annotations-untrusted",
        Must,
        R0326,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "tool"),
            Mcp("2026-07-28", "server/tools", "tool"),
        ],
        "the host trusts no tool annotation of a server it does not trust",
    )
    .unseen(INSIDE),
    host(
        "host-tools-user-control",
        Should,
        R2024,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "user-interaction-model"),
            Mcp("2025-11-25", "server/tools", "security-considerations"),
        ],
        "a person can see which tools are offered and called, and refuse a call",
    )
    .unseen(UI),
    host(
        "host-tools-results-checked",
        Should,
        R0618,
        None,
        &[
            Mcp("2025-11-25", "server/tools", "output-schema"),
            Mcp("2025-11-25", "server/tools", "error-handling"),
        ],
        "the host checks structured results against the tool's outputSchema and shows tool errors to the model",
    )
    .unseen(INSIDE),
    host(
        "host-tools-name-collisions",
        Should,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/tools", "tool-names")],
        "a host that gathers tools of several servers tells same-named tools apart, not by serverInfo",
    )
    .unseen(INSIDE),
    host(
        "host-tools-x-mcp-header",
        Must,
        R2026,
        None,
        &[Mcp("2026-07-28", "server/tools", "x-mcp-header")],
        "a host on Streamable HTTP refuses tools whose x-mcp-header marks break the rules",
    )
    .unseen("the header rules bind clients over HTTP; a client on stdio may ignore the marks"),
    host(
        "host-tasks-declared",
        Must,
        R1125,
        None,
        &[
            Mcp("2025-11-25", "basic/utilities/tasks", "capability-negotiation"),
            Mcp("2025-11-25", "basic/utilities/tasks", "tool-level-negotiation"),
        ],
        "the host asks for a task only where the server declared task support, and for a tool only as its taskSupport allows",
    )
    .until(R1125),
    host(
        "host-tasks-required",
        Must,
        R1125,
        None,
        &[Mcp(
            "2025-11-25",
            "basic/utilities/tasks",
            "tool-level-negotiation",
        )],
        "a tool whose taskSupport is required is called as a task",
    )
    .until(R1125),
    host(
        "host-completions-pace",
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
        "the host debounces completion requests, caches their results and copes with partial ones",
    )
    .unseen("pace and caching are matters of degree"),
    // What stdio does not carry.
    host(
        "host-auth-http-only",
        Should,
        R0326,
        None,
        &[
            Mcp("2025-11-25", "basic/authorization", ""),
            Mcp("2026-07-28", "basic", "auth"),
        ],
        "a host on stdio does not follow MCP authorization, and passes credentials through the server's environment",
    )
    .unseen("authorization runs over HTTP; a server on stdio takes its credentials from its environment"),
];
