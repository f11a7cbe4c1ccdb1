//! The law catalog: every check mcp-replay makes, with a stable id, the
//! severity it has in each profile, and the contract it cites.
//!
//! `docs/laws.md` is the user-facing version of this table; a test keeps the
//! two in step.

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

/// Which contract a run holds a server to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Profile {
    /// MCP-CORE r1 and REQ-C-032 on top of every MUST of the MCP spec: what
    /// servers built on the core library keep.
    #[default]
    Core,
    /// Only what the MCP specification itself requires, for servers in the
    /// wild.
    Spec,
}

impl Profile {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Core => "core",
            Profile::Spec => "spec",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Profile, String> {
        match s {
            "core" => Ok(Profile::Core),
            "spec" => Ok(Profile::Spec),
            other => Err(format!(
                "unknown profile `{other}` (expected `core` or `spec`)"
            )),
        }
    }
}

/// How much a broken law matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Reported; fails the run only with `--deny-warnings`.
    Warning,
    /// Fails the run.
    Error,
}

impl Severity {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One source a law rests on: a section of a contract that a reader can
/// open, from this repository or at a public URL.
///
/// Every citation of the catalog is a list of these, which
/// [`render_cites`] turns into the `cites` of `mcp-replay laws` and of
/// every finding. A test holds each to something that opens: a paragraph of
/// `docs/mcp-core.md`, a section of `docs/req-c-032.md` or of another
/// document of the repository, a page and section of the MCP specification
/// it knows, or a section of JSON-RPC 2.0 (docs/laws.md, "Citations").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cite {
    /// Paragraph `¶` of section `§` of MCP-CORE r1, the core library's
    /// contract: `McpCore(2, 15)` is `MCP-CORE r1 §2¶15`, at
    /// `docs/mcp-core.md#s2p15`.
    McpCore(u8, u8),
    /// A section of REQ-C-032, the contract of protocol commands, by its
    /// heading: `ReqC032("Before serving")` is at
    /// `docs/req-c-032.md#before-serving`.
    ReqC032(&'static str),
    /// A section of a page of the MCP specification, at a revision, by the
    /// anchor of its heading: `Mcp("2025-11-25", "server/tools",
    /// "error-handling")` is
    /// <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling>.
    /// An empty anchor cites the opening of the page.
    Mcp(&'static str, &'static str, &'static str),
    /// A section of JSON-RPC 2.0, by its number: `JsonRpc("5.1")` is
    /// <https://www.jsonrpc.org/specification#error_object>.
    JsonRpc(&'static str),
    /// A section of another document of this repository: its path from the
    /// repository's root, the anchor of the section, and what to call it.
    Doc(&'static str, &'static str, &'static str),
    /// A few words on the source before it: which part of it holds, or how
    /// the law reads it. Not a source of its own.
    Note(&'static str),
}

/// The sections of JSON-RPC 2.0 a citation may name: number, anchor on
/// <https://www.jsonrpc.org/specification>, title.
const JSON_RPC_SECTIONS: &[(&str, &str, &str)] = &[
    ("4", "request_object", "Request object"),
    ("4.1", "notification", "Notification"),
    ("4.2", "parameter_structures", "Parameter Structures"),
    ("5", "response_object", "Response object"),
    ("5.1", "error_object", "Error object"),
    ("6", "batch", "Batch"),
];

impl Cite {
    /// Where the source opens: a URL, or a path of the repository with the
    /// anchor of the section; `None` for a note.
    pub fn target(&self) -> Option<String> {
        match *self {
            Cite::McpCore(section, paragraph) => {
                Some(format!("docs/mcp-core.md#s{section}p{paragraph:02}"))
            }
            Cite::ReqC032(section) => Some(format!("docs/req-c-032.md#{}", slug(section))),
            Cite::Mcp(revision, page, anchor) => {
                let mut url =
                    format!("https://modelcontextprotocol.io/specification/{revision}/{page}");
                if !anchor.is_empty() {
                    url.push('#');
                    url.push_str(anchor);
                }
                Some(url)
            }
            Cite::JsonRpc(section) => {
                let anchor = JSON_RPC_SECTIONS
                    .iter()
                    .find(|(number, _, _)| *number == section)
                    .map_or("", |(_, anchor, _)| *anchor);
                Some(format!("https://www.jsonrpc.org/specification#{anchor}"))
            }
            Cite::Doc(path, anchor, _) => Some(format!("{path}#{anchor}")),
            Cite::Note(_) => None,
        }
    }

    /// What a reader calls the source (`MCP-CORE r1 §2¶15`), or `None` for
    /// a page of the MCP specification, whose URL names itself, and for a
    /// note.
    pub fn name(&self) -> Option<String> {
        match *self {
            Cite::McpCore(section, paragraph) => {
                Some(format!("MCP-CORE r1 §{section}¶{paragraph:02}"))
            }
            Cite::ReqC032(section) => Some(format!("REQ-C-032 \"{section}\"")),
            Cite::JsonRpc(section) => Some(format!("JSON-RPC 2.0 §{section}")),
            Cite::Doc(_, _, name) => Some(name.to_owned()),
            Cite::Mcp(..) | Cite::Note(_) => None,
        }
    }
}

/// The anchor GitHub gives a heading: lowercase, the letters, digits,
/// spaces, `-` and `_` kept, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A list of citations as one line: each source as `name (target)` (a page
/// of the MCP specification as its URL), separated by `; `, a note after
/// its source as ` — note`.
pub fn render_cites(cites: &[Cite]) -> String {
    let mut line = String::new();
    for cite in cites {
        if let Cite::Note(note) = cite {
            line.push_str(" — ");
            line.push_str(note);
            continue;
        }
        if !line.is_empty() {
            line.push_str("; ");
        }
        let target = cite.target().unwrap_or_default();
        match cite.name() {
            Some(name) => {
                line.push_str(&name);
                line.push_str(" (");
                line.push_str(&target);
                line.push(')');
            }
            None => line.push_str(&target),
        }
    }
    line
}

macro_rules! laws {
    ($($variant:ident = $id:literal,)*) => {
        /// The stable id of a law. Reports name it; users waive it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum LawId {
            $(
                #[doc = concat!("`", $id, "`")]
                $variant,
            )*
        }

        impl LawId {
            /// Every law id, in catalog order.
            pub const ALL: &'static [LawId] = &[$(LawId::$variant,)*];

            /// The id as written in reports and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(LawId::$variant => $id,)*
                }
            }
        }

        impl FromStr for LawId {
            type Err = String;

            fn from_str(s: &str) -> Result<LawId, String> {
                match s {
                    $($id => Ok(LawId::$variant),)*
                    other => Err(format!("unknown law `{other}` (`mcp-replay laws` lists them)")),
                }
            }
        }
    };
}

laws! {
    QuietBeforeServing = "quiet-before-serving",
    StdoutIsProtocol = "stdout-is-protocol",
    Schema = "schema",
    NotificationUnanswered = "notification-unanswered",
    RequestAnsweredOnce = "request-answered-once",
    ParseErrorKeepsServing = "parse-error-keeps-serving",
    UnknownMethod = "unknown-method",
    Initialize = "initialize",
    Ping = "ping",
    Discover = "discover",
    CapabilitiesHonest = "capabilities-honest",
    ToolsListSorted = "tools-list-sorted",
    ToolsListValid = "tools-list-valid",
    ListCacheHints = "list-cache-hints",
    InvalidParams = "invalid-params",
    UnknownTool = "unknown-tool",
    ToolErrorIsResult = "tool-error-is-result",
    CancelTolerated = "cancel-tolerated",
    EofExitZero = "eof-exit-zero",
    EofDrains = "eof-drains",
    SigtermExit143 = "sigterm-exit-143",
    TranscriptMatch = "transcript-match",
    HelpDoesNotServe = "help-does-not-serve",
    BadFlagExits2 = "bad-flag-exits-2",
}

impl fmt::Display for LawId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One law of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Law {
    /// The stable id.
    pub id: LawId,
    /// What holds when the law is kept, in one sentence.
    pub summary: &'static str,
    /// Its severity under `--profile core`; `None` when core does not check it.
    pub core: Option<Severity>,
    /// Its severity under `--profile spec`; `None` when spec does not check it.
    pub spec: Option<Severity>,
    /// The contract it cites under `--profile core` (empty when core does
    /// not check it).
    pub core_cites: &'static [Cite],
    /// The contract it cites under `--profile spec` (empty when spec does
    /// not check it).
    pub spec_cites: &'static [Cite],
    /// `false` for ids reserved for checks that come with later releases.
    pub implemented: bool,
}

impl Law {
    /// The severity of the law in `profile`, `None` when the profile does
    /// not check it.
    pub fn severity(&self, profile: Profile) -> Option<Severity> {
        match profile {
            Profile::Core => self.core,
            Profile::Spec => self.spec,
        }
    }

    /// The contract the law cites in `profile`; [`render_cites`] writes it
    /// as a line.
    pub fn cites(&self, profile: Profile) -> &'static [Cite] {
        match profile {
            Profile::Core => self.core_cites,
            Profile::Spec => self.spec_cites,
        }
    }
}

const E: Option<Severity> = Some(Severity::Error);
const W: Option<Severity> = Some(Severity::Warning);

use Cite::{Doc, JsonRpc, Mcp, McpCore, Note, ReqC032};

/// What `schema` cites in both profiles: the schema of each revision is
/// normative, a result has its method's result type, and 2026-07-28 adds
/// `resultType` and forbids requests from the server.
const SCHEMA_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic", "schema"),
    Mcp("2026-07-28", "basic", "schema"),
    Note(
        "each message validates against its revision's schema.json, each result against its method's result type",
    ),
    Mcp("2025-06-18", "server/tools", "output-schema"),
    Mcp("2026-07-28", "basic", "resulttype"),
    Mcp("2026-07-28", "basic/patterns/mrtr", "inputrequiredresult"),
    Mcp(
        "2026-07-28",
        "basic/patterns/mrtr",
        "server-requirements-basic-workflow",
    ),
    Note("a retry with the requestState echoed answered with an error: a warning"),
    Mcp("2026-07-28", "basic/transports/stdio", "receiving-messages"),
];

/// What `discover` cites in both profiles.
const DISCOVER_CITES: &[Cite] = &[
    Mcp("2026-07-28", "server/discover", "response"),
    Mcp(
        "2026-07-28",
        "basic/versioning",
        "protocol-version-negotiation",
    ),
    Mcp("2026-07-28", "basic", "meta"),
    Note("clientInfo optional; serverInfo in a result's _meta a SHOULD: a warning"),
    Mcp(
        "2026-07-28",
        "server/utilities/caching",
        "time-to-live-ttl-field",
    ),
    Note("a result stays true for its ttlMs: a warning under spec"),
];

/// What `capabilities-honest` cites in both profiles.
const CAPABILITIES_HONEST_CITES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "capabilities"),
    Mcp("2025-11-25", "server/utilities/logging", "capabilities"),
    Mcp("2025-11-25", "server/prompts", "capabilities"),
    Mcp("2025-11-25", "server/resources", "capabilities"),
    Mcp(
        "2026-07-28",
        "basic/patterns/subscriptions",
        "receiving-notifications",
    ),
    Note("list notifications only on a listen stream: an error"),
];

/// What `tools-list-valid` cites in both profiles.
const TOOLS_LIST_VALID_CITES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "tool-names"),
    Mcp("2025-11-25", "server/tools", "tool"),
    Mcp(
        "2025-11-25",
        "server/utilities/pagination",
        "implementation-guidelines",
    ),
    Mcp(
        "2025-11-25",
        "server/utilities/pagination",
        "error-handling",
    ),
    Note("an invalid cursor gets -32602, a SHOULD: a warning"),
];

/// What `transcript-match` cites in both profiles: the recording.
const TRANSCRIPT_CITES: &[Cite] = &[
    Doc(
        "docs/transcript-format.md",
        "lines",
        "the transcript's recorded lines",
    ),
    Doc(
        "docs/transcript-format.md",
        "the-header",
        "its header's ignore rules",
    ),
];

/// The catalog, in the order reports list it.
pub const CATALOG: &[Law] = &[
    Law {
        id: LawId::QuietBeforeServing,
        summary: "nothing on stdout before the client's first message",
        core: E,
        spec: W,
        core_cites: &[ReqC032("Before serving"), McpCore(1, 6)],
        spec_cites: &[
            Mcp("2025-11-25", "basic/transports", "stdio"),
            Mcp("2026-07-28", "basic/transports/stdio", ""),
            Note("the server must not write anything to stdout that is not a valid MCP message"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::StdoutIsProtocol,
        summary: "every stdout line is one complete JSON-RPC 2.0 message",
        core: E,
        spec: E,
        core_cites: &[
            ReqC032("While serving"),
            Mcp("2025-11-25", "basic/transports", "stdio"),
            Mcp("2026-07-28", "basic/transports/stdio", ""),
        ],
        spec_cites: &[
            Mcp("2025-11-25", "basic/transports", "stdio"),
            Mcp("2026-07-28", "basic/transports/stdio", ""),
            Note("one JSON-RPC message per line, UTF-8, nothing else on stdout"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::Schema,
        summary: "every server message validates against the negotiated revision's schema",
        core: E,
        spec: E,
        core_cites: SCHEMA_CITES,
        spec_cites: SCHEMA_CITES,
        implemented: true,
    },
    Law {
        id: LawId::NotificationUnanswered,
        summary: "no response to any notification, known, unknown or malformed",
        core: E,
        spec: E,
        core_cites: &[McpCore(1, 9), JsonRpc("4.1")],
        spec_cites: &[
            Mcp("2025-11-25", "basic", "notifications"),
            Note("the receiver must not send a response"),
            JsonRpc("4.1"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::RequestAnsweredOnce,
        summary: "every request gets exactly one response with its id, of the same JSON type; a batch one array, a listen request its stream",
        core: E,
        spec: E,
        core_cites: &[
            McpCore(1, 9),
            JsonRpc("5"),
            JsonRpc("6"),
            Mcp("2025-03-26", "basic", "batching"),
            Mcp(
                "2026-07-28",
                "basic/patterns/subscriptions",
                "acknowledgment",
            ),
            Mcp("2026-07-28", "basic/patterns/subscriptions", "cancellation"),
            Mcp(
                "2026-07-28",
                "basic/patterns/subscriptions",
                "graceful-closure",
            ),
            Note("a stream open at end of input closed with its result, a SHOULD: a warning"),
        ],
        spec_cites: &[
            Mcp("2025-11-25", "basic", "responses"),
            JsonRpc("5"),
            JsonRpc("6"),
            Note("a batch is answered with one array, a SHOULD: a warning"),
            Mcp("2025-03-26", "basic", "batching"),
            Note(
                "the SDKs drop batches: a batch left unanswered is no finding under spec, a warning under core",
            ),
            Mcp(
                "2026-07-28",
                "basic/patterns/subscriptions",
                "acknowledgment",
            ),
            Mcp("2026-07-28", "basic/patterns/subscriptions", "cancellation"),
            Mcp(
                "2026-07-28",
                "basic/patterns/subscriptions",
                "graceful-closure",
            ),
            Note("a stream open at end of input closed with its result, a SHOULD: a warning"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::ParseErrorKeepsServing,
        summary: "a malformed line does not end the loop; core also requires a -32700 reply",
        core: E,
        spec: E,
        core_cites: &[
            McpCore(1, 10),
            ReqC032("Acceptance criteria"),
            Note(
                "a malformed request is answered with a protocol error and the server keeps running",
            ),
        ],
        spec_cites: &[
            JsonRpc("5.1"),
            Note("robustness; silence, -32700 or -32600 accepted as SDK practice"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::UnknownMethod,
        summary: "an unknown method gets error -32601",
        core: E,
        spec: E,
        core_cites: &[McpCore(2, 15)],
        spec_cites: &[JsonRpc("5.1"), Note("method not found")],
        implemented: true,
    },
    Law {
        id: LawId::Initialize,
        summary: "initialize answers protocolVersion, serverInfo{name,version} and capabilities, tools declared when served",
        core: E,
        spec: E,
        core_cites: &[McpCore(2, 15)],
        spec_cites: &[
            Mcp("2025-11-25", "basic/lifecycle", "initialization"),
            Mcp("2025-11-25", "basic/lifecycle", "version-negotiation"),
            Mcp("2025-11-25", "server/tools", "capabilities"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::Ping,
        summary: "ping answers {}",
        core: E,
        spec: E,
        core_cites: &[McpCore(2, 15)],
        spec_cites: &[Mcp(
            "2025-11-25",
            "basic/utilities/ping",
            "behavior-requirements",
        )],
        implemented: true,
    },
    Law {
        id: LawId::Discover,
        summary: "on 2026-07-28, server/discover answers the versions, capabilities and cache hints",
        core: E,
        spec: E,
        core_cites: DISCOVER_CITES,
        spec_cites: DISCOVER_CITES,
        implemented: true,
    },
    Law {
        id: LawId::CapabilitiesHonest,
        summary: "methods of an advertised capability are served, listed resources read; no log notifications without logging",
        core: W,
        spec: W,
        core_cites: CAPABILITIES_HONEST_CITES,
        spec_cites: CAPABILITIES_HONEST_CITES,
        implemented: true,
    },
    Law {
        id: LawId::ToolsListSorted,
        summary: "tools/list is sorted by name and stable between two calls",
        core: E,
        spec: W,
        core_cites: &[McpCore(2, 15)],
        spec_cites: &[
            Mcp("2026-07-28", "server/tools", "capabilities"),
            Note("deterministic order; stability only"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::ToolsListValid,
        summary: "tool names are unique, each inputSchema is an object schema, pagination ends",
        core: E,
        spec: E,
        core_cites: TOOLS_LIST_VALID_CITES,
        spec_cites: TOOLS_LIST_VALID_CITES,
        implemented: true,
    },
    Law {
        id: LawId::ListCacheHints,
        summary: "on 2026-07-28, list results carry ttlMs and cacheScope",
        core: E,
        spec: E,
        core_cites: &[
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "time-to-live-ttl-field",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "cache-scope-field",
            ),
        ],
        spec_cites: &[
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "time-to-live-ttl-field",
            ),
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "cache-scope-field",
            ),
        ],
        implemented: true,
    },
    Law {
        id: LawId::InvalidParams,
        summary: "tools/call without a name, or with non-object arguments, gets error -32602; reading an unknown resource is an error",
        core: E,
        spec: E,
        core_cites: &[
            McpCore(2, 15),
            Mcp("2026-07-28", "server/resources", "error-handling"),
            Note("an unknown resource: -32602 on 2026-07-28, an error before"),
        ],
        spec_cites: &[
            Mcp("2025-11-25", "server/tools", "error-handling"),
            Note("malformed requests are protocol errors"),
            Mcp("2025-11-25", "server/resources", "error-handling"),
            Mcp("2026-07-28", "server/resources", "error-handling"),
            Note(
                "an unknown resource: -32002 by example before 2026-07-28 (a warning), -32602 on it",
            ),
        ],
        implemented: true,
    },
    Law {
        id: LawId::UnknownTool,
        summary: "tools/call of an unknown tool is a JSON-RPC error (core: -32601), not a result",
        core: E,
        spec: E,
        core_cites: &[McpCore(2, 15)],
        spec_cites: &[
            Mcp("2025-11-25", "server/tools", "error-handling"),
            Note("unknown tools are protocol errors"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::ToolErrorIsResult,
        summary: "a failing tool answers a result with isError: true, never a JSON-RPC error",
        core: E,
        spec: W,
        core_cites: &[McpCore(3, 19)],
        spec_cites: &[
            Mcp("2025-11-25", "server/tools", "error-handling"),
            Note("input validation errors are tool execution errors, SEP-1303"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::CancelTolerated,
        summary: "notifications/cancelled for an unknown id is absorbed: no reply, no crash",
        core: E,
        spec: W,
        core_cites: &[McpCore(1, 9)],
        spec_cites: &[
            Mcp(
                "2025-11-25",
                "basic/utilities/cancellation",
                "error-handling",
            ),
            Note("invalid cancellations should be ignored"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::EofExitZero,
        summary: "closing stdin ends the process with status 0 within the grace period",
        core: E,
        spec: W,
        core_cites: &[ReqC032("Exit codes"), McpCore(1, 10)],
        spec_cites: &[Mcp("2026-07-28", "basic/transports/stdio", "shutdown")],
        implemented: true,
    },
    Law {
        id: LawId::EofDrains,
        summary: "requests sent before stdin closed are all answered before the process exits",
        core: E,
        spec: W,
        core_cites: &[McpCore(1, 9), McpCore(1, 10), JsonRpc("5")],
        spec_cites: &[JsonRpc("5"), Note("every request is answered")],
        implemented: true,
    },
    Law {
        id: LawId::SigtermExit143,
        summary: "SIGTERM while serving ends the process with 143 within the grace period",
        core: E,
        spec: W,
        core_cites: &[ReqC032("Exit codes")],
        spec_cites: &[
            Mcp("2025-11-25", "basic/lifecycle", "stdio"),
            Note("the client may send SIGTERM"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::TranscriptMatch,
        summary: "each replayed response equals the recorded one after the ignore rules",
        core: E,
        spec: E,
        core_cites: TRANSCRIPT_CITES,
        spec_cites: TRANSCRIPT_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HelpDoesNotServe,
        summary: "<cmd> --help prints to stdout, exits 0 and never reads stdin",
        core: E,
        spec: None,
        core_cites: &[
            ReqC032("Before serving"),
            ReqC032("Acceptance criteria"),
            Note("`<cmd> --help` prints help to stdout, exits 0, and does not read stdin"),
        ],
        spec_cites: &[],
        implemented: true,
    },
    Law {
        id: LawId::BadFlagExits2,
        summary: "an invalid flag exits 2 with stdout empty and never serves",
        core: E,
        spec: None,
        core_cites: &[
            ReqC032("Before serving"),
            ReqC032("Acceptance criteria"),
            Note("an invalid flag exits 2 with stdout empty"),
        ],
        spec_cites: &[],
        implemented: true,
    },
];

/// The catalog entry of `id`.
pub fn law(id: LawId) -> &'static Law {
    CATALOG
        .iter()
        .find(|law| law.id == id)
        .expect("every law id has a catalog entry")
}

/// How `mcp-replay laws` prints the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogFormat {
    /// Aligned text for people: one block per law.
    Human,
    /// JSON Lines: one object per law.
    Json,
}

/// Writes the catalog: every law with its severity per profile, whether it
/// is implemented or reserved, and its citations.
///
/// # Errors
///
/// When `out` cannot be written to.
pub fn render_catalog(out: &mut impl Write, format: CatalogFormat) -> io::Result<()> {
    render_catalog_to(out, format)
}

fn render_catalog_to(out: &mut dyn Write, format: CatalogFormat) -> io::Result<()> {
    let severity = |s: Option<Severity>| s.map_or("-", Severity::as_str);
    match format {
        CatalogFormat::Json => {
            #[derive(serde::Serialize)]
            struct Graded<'a> {
                severity: &'a str,
                cites: String,
            }
            #[derive(serde::Serialize)]
            struct Line<'a> {
                id: &'a str,
                summary: &'a str,
                implemented: bool,
                core: Option<Graded<'a>>,
                spec: Option<Graded<'a>>,
            }
            for law in CATALOG {
                let graded = |severity: Option<Severity>, cites: &[Cite]| {
                    severity.map(|severity| Graded {
                        severity: severity.as_str(),
                        cites: render_cites(cites),
                    })
                };
                let line = Line {
                    id: law.id.as_str(),
                    summary: law.summary,
                    implemented: law.implemented,
                    core: graded(law.core, law.core_cites),
                    spec: graded(law.spec, law.spec_cites),
                };
                serde_json::to_writer(&mut *out, &line)?;
                writeln!(out)?;
            }
        }
        CatalogFormat::Human => {
            let width = CATALOG
                .iter()
                .map(|law| law.id.as_str().len())
                .max()
                .unwrap_or(0);
            // The citations line up under the summary.
            let indent = " ".repeat(width + 22);
            writeln!(
                out,
                "{:width$}  {:8}  {:8}  what holds",
                "law", "core", "spec"
            )?;
            for law in CATALOG {
                let reserved = if law.implemented { "" } else { "(reserved) " };
                writeln!(
                    out,
                    "{:width$}  {:8}  {:8}  {reserved}{}",
                    law.id.as_str(),
                    severity(law.core),
                    severity(law.spec),
                    law.summary
                )?;
                if law.core.is_some() {
                    writeln!(out, "{indent}core cites {}", render_cites(law.core_cites))?;
                }
                if law.spec.is_some() {
                    writeln!(out, "{indent}spec cites {}", render_cites(law.spec_cites))?;
                }
            }
            let implemented = CATALOG.iter().filter(|law| law.implemented).count();
            writeln!(
                out,
                "{} laws: {implemented} implemented, {} reserved for later releases",
                CATALOG.len(),
                CATALOG.len() - implemented
            )?;
            writeln!(
                out,
                "docs/laws.md explains each; `mcp-replay check --waive ID` waives one"
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod citations;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_and_ids_agree() {
        assert_eq!(CATALOG.len(), LawId::ALL.len());
        for (law, id) in CATALOG.iter().zip(LawId::ALL) {
            assert_eq!(law.id, *id);
            assert_eq!(id.as_str().parse::<LawId>().unwrap(), *id);
        }
    }

    /// One law's section of docs/laws.md.
    #[derive(Debug, PartialEq)]
    struct Documented {
        id: String,
        reserved: bool,
        core: Option<(Severity, String)>,
        spec: Option<(Severity, String)>,
        waive: String,
    }

    /// Reads the catalog sections of docs/laws.md: `### `id`` headings
    /// (` (reserved)` for reserved ids), each with `- Core:`, `- Spec:` and
    /// `- Waive:` lines.
    fn documented(text: &str) -> Vec<Documented> {
        let mut laws: Vec<Documented> = Vec::new();
        for line in text.lines() {
            if line.starts_with("## ") {
                // A new top-level section ends the current law.
                continue;
            }
            if let Some(heading) = line.strip_prefix("### `") {
                let (id, rest) = heading
                    .split_once('`')
                    .expect("a heading ends its id with a backtick");
                laws.push(Documented {
                    id: id.to_owned(),
                    reserved: rest.trim() == "(reserved)",
                    core: None,
                    spec: None,
                    waive: String::new(),
                });
                continue;
            }
            let Some(law) = laws.last_mut() else {
                continue;
            };
            let graded = |text: &str| {
                if text == "not checked" {
                    return None;
                }
                let (severity, cites) = text
                    .split_once(" — ")
                    .unwrap_or_else(|| panic!("`{text}`: expected `<severity> — <cites>`"));
                let severity = match severity {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    other => panic!("unknown severity `{other}`"),
                };
                Some((severity, cites.to_owned()))
            };
            if let Some(text) = line.strip_prefix("- Core: ") {
                law.core = graded(text);
            } else if let Some(text) = line.strip_prefix("- Spec: ") {
                law.spec = graded(text);
            } else if let Some(text) = line.strip_prefix("- Waive: ") {
                law.waive = text.to_owned();
            }
        }
        laws
    }

    #[test]
    fn docs_describe_exactly_the_laws_in_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/laws.md");
        let text = std::fs::read_to_string(path).expect("docs/laws.md is readable");
        let docs = documented(&text);
        let in_docs: Vec<&str> = docs.iter().map(|law| law.id.as_str()).collect();
        let in_code: Vec<&str> = CATALOG.iter().map(|law| law.id.as_str()).collect();
        for id in &in_code {
            assert!(
                in_docs.contains(id),
                "law `{id}` is in the code but not in docs/laws.md"
            );
        }
        for id in &in_docs {
            assert!(
                in_code.contains(id),
                "law `{id}` is in docs/laws.md but not in the code"
            );
        }
        assert_eq!(
            in_docs, in_code,
            "docs/laws.md lists the laws in another order"
        );
        for (doc, law) in docs.iter().zip(CATALOG) {
            let expected = Documented {
                id: law.id.as_str().to_owned(),
                reserved: !law.implemented,
                core: law
                    .core
                    .map(|severity| (severity, citations::markdown(law.core_cites))),
                spec: law
                    .spec
                    .map(|severity| (severity, citations::markdown(law.spec_cites))),
                waive: format!("`--waive {}`", law.id),
            };
            assert_eq!(doc, &expected, "docs/laws.md disagrees with the catalog");
        }
    }

    #[test]
    fn docs_sections_are_read_as_written() {
        let text = "## The catalog\n\n### `ping`\n\n- Core: error — A\n- Spec: not checked\n- Waive: `--waive ping`\n\n### `schema` (reserved)\n\n- Spec: warning — B; C\n";
        let docs = documented(text);
        assert_eq!(
            docs,
            [
                Documented {
                    id: "ping".into(),
                    reserved: false,
                    core: Some((Severity::Error, "A".into())),
                    spec: None,
                    waive: "`--waive ping`".into(),
                },
                Documented {
                    id: "schema".into(),
                    reserved: true,
                    core: None,
                    spec: Some((Severity::Warning, "B; C".into())),
                    waive: String::new(),
                },
            ]
        );
    }

    #[test]
    fn the_catalog_renders_every_law() {
        let mut human = Vec::new();
        render_catalog(&mut human, CatalogFormat::Human).unwrap();
        let human = String::from_utf8(human).unwrap();
        for law in CATALOG {
            let line = human
                .lines()
                .find(|line| line.split_whitespace().next() == Some(law.id.as_str()))
                .unwrap_or_else(|| panic!("no line for {}", law.id));
            assert_eq!(line.contains("(reserved)"), !law.implemented, "{line}");
        }
        assert!(human.contains("24 laws: 24 implemented, 0 reserved"));

        let mut json = Vec::new();
        render_catalog(&mut json, CatalogFormat::Json).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), CATALOG.len());
        assert_eq!(
            lines[0],
            serde_json::json!({
                "id": "quiet-before-serving",
                "summary": "nothing on stdout before the client's first message",
                "implemented": true,
                "core": {"severity": "error", "cites": "REQ-C-032 \"Before serving\" (docs/req-c-032.md#before-serving); MCP-CORE r1 §1¶06 (docs/mcp-core.md#s1p06)"},
                "spec": {"severity": "warning", "cites": "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio; https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio — the server must not write anything to stdout that is not a valid MCP message"},
            })
        );
        assert_eq!(lines[23]["spec"], serde_json::Value::Null);
    }

    #[test]
    fn unknown_law_is_named() {
        assert_eq!(
            "no-such-law".parse::<LawId>().unwrap_err(),
            "unknown law `no-such-law` (`mcp-replay laws` lists them)"
        );
    }
}
