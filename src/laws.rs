//! The law catalog: every check mcp-replay makes, with a stable id, the
//! severity it has in each profile, and the contract it cites.
//!
//! `docs/laws.md` is the user-facing version of this table; a test keeps the
//! two in step.

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

use crate::revision::Revision;

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
    /// Every profile, in the order the command line lists them.
    pub const ALL: [Profile; 2] = [Profile::Core, Profile::Spec];

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

/// The side of a session a law judges: the registry's sides, which its
/// requirements bind.
pub use self::registry::Side;

/// How strongly the MCP specification states a duty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strength {
    /// MUST (or MUST NOT): broken, it is an error.
    Must,
    /// SHOULD (or SHOULD NOT): broken, it is a warning.
    Should,
    /// The revisions have no such duty: the law is not applicable there.
    NotApplicable,
}

impl Strength {
    /// The keyword as the specification writes it, or `n/a`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Must => "MUST",
            Strength::Should => "SHOULD",
            Strength::NotApplicable => "n/a",
        }
    }

    /// The severity a broken duty of this strength has, in both profiles:
    /// MCP-CORE binds servers only, so a host law is graded by the
    /// specification alone; `None` where the duty does not apply.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Strength::Must => Some(Severity::Error),
            Strength::Should => Some(Severity::Warning),
            Strength::NotApplicable => None,
        }
    }
}

/// One level of a host law: the strength the specification gives one of
/// its duties on some revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostLevel {
    /// The revisions, oldest first.
    pub revisions: &'static [Revision],
    /// How strongly they state it.
    pub strength: Strength,
    /// The duty, in a few words; empty when the level is the law's whole.
    pub duty: &'static str,
}

impl HostLevel {
    /// The revisions in words: `every revision`, `legacy` (2024-11-05 …
    /// 2025-11-25), or the revisions named one by one.
    pub fn revisions_in_words(&self) -> String {
        if self.revisions == Revision::ALL {
            "every revision".to_owned()
        } else if self.revisions == Revision::LEGACY {
            "legacy".to_owned()
        } else {
            self.revisions
                .iter()
                .map(|revision| revision.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

impl fmt::Display for HostLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            self.revisions_in_words(),
            self.strength.as_str()
        )?;
        if !self.duty.is_empty() {
            write!(f, " ({})", self.duty)?;
        }
        Ok(())
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
    (
        server { $($variant:ident = $id:literal,)* }
        host { $($host_variant:ident = $host_id:literal,)* }
    ) => {
        /// The stable id of a law. Reports name it; users waive it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum LawId {
            $(
                #[doc = concat!("`", $id, "`")]
                $variant,
            )*
            $(
                #[doc = concat!("`", $host_id, "` (a host law)")]
                $host_variant,
            )*
        }

        impl LawId {
            /// Every law id, in catalog order: the server's laws, then the
            /// host's.
            pub const ALL: &'static [LawId] = &[$(LawId::$variant,)* $(LawId::$host_variant,)*];

            /// The id as written in reports and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(LawId::$variant => $id,)*
                    $(LawId::$host_variant => $host_id,)*
                }
            }

            /// The side of a session the law judges.
            pub fn side(self) -> Side {
                match self {
                    $(LawId::$variant => Side::Server,)*
                    $(LawId::$host_variant => Side::Host,)*
                }
            }
        }

        impl FromStr for LawId {
            type Err = String;

            fn from_str(s: &str) -> Result<LawId, String> {
                match s {
                    $($id => Ok(LawId::$variant),)*
                    $($host_id => Ok(LawId::$host_variant),)*
                    other => Err(format!("unknown law `{other}` (`mcp-replay laws` lists them)")),
                }
            }
        }
    };
}

laws! {
    server {
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
    host {
        HostFirstMessage = "host-first-message",
        HostInitializedSent = "host-initialized-sent",
        HostRequestIds = "host-request-ids",
        HostAnswersServerRequests = "host-answers-server-requests",
        HostCapabilitiesHonest = "host-capabilities-honest",
        HostNotificationsUnanswered = "host-notifications-unanswered",
        HostCancelValid = "host-cancel-valid",
        HostMessagesValid = "host-messages-valid",
        HostShutdownOrder = "host-shutdown-order",
        HostMrtrRetry = "host-mrtr-retry",
        HostProgressTokens = "host-progress-tokens",
        HostEraProbe = "host-era-probe",
    }
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

    /// The side of a session the law judges.
    pub fn side(&self) -> Side {
        self.id.side()
    }

    /// A host law's levels: the strength the MCP specification gives each
    /// of its duties, per revision; empty for a server law, whose profiles
    /// say it all.
    pub fn levels(&self) -> &'static [HostLevel] {
        HOST_LEVELS
            .iter()
            .find(|(id, _)| *id == self.id)
            .map_or(&[], |(_, levels)| levels)
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
    Mcp(
        "2025-11-25",
        "server/utilities/completion",
        "completion-results",
    ),
    Mcp("2025-11-25", "basic", "icons"),
    Note("an icon's src of another scheme than https or data, or sizes not WxH: a warning"),
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

/// What `capabilities-honest` cites under `core`: the specification's
/// capabilities, and the core library's resources, which serve templates.
const CAPABILITIES_HONEST_CITES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "capabilities"),
    Mcp("2025-11-25", "server/utilities/logging", "capabilities"),
    Mcp("2025-11-25", "server/prompts", "capabilities"),
    Mcp("2025-11-25", "server/resources", "capabilities"),
    Mcp("2025-11-25", "server/resources", "subscriptions"),
    Mcp("2025-11-25", "server/utilities/completion", "capabilities"),
    Mcp(
        "2025-11-25",
        "server/utilities/pagination",
        "implementation-guidelines",
    ),
    Mcp(
        "2025-11-25",
        "server/utilities/logging",
        "setting-log-level",
    ),
    Mcp(
        "2026-07-28",
        "server/utilities/logging",
        "per-request-log-level",
    ),
    Note("on 2026-07-28 a log message only to a request that asked for one: an error"),
    Mcp(
        "2026-07-28",
        "basic/patterns/subscriptions",
        "receiving-notifications",
    ),
    Note("list notifications only on a listen stream: an error"),
    Doc(
        "docs/server-library.md",
        "resources",
        "the core library's resources",
    ),
    Note("resources/templates/list served with resources"),
];

/// What `capabilities-honest` cites under `spec`: the templates are
/// optional, so their list is not asked.
const CAPABILITIES_HONEST_SPEC_CITES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "capabilities"),
    Mcp("2025-11-25", "server/utilities/logging", "capabilities"),
    Mcp("2025-11-25", "server/prompts", "capabilities"),
    Mcp("2025-11-25", "server/resources", "capabilities"),
    Mcp("2025-11-25", "server/resources", "resource-templates"),
    Note("templates are optional: resources/templates/list is not asked"),
    Mcp("2025-11-25", "server/resources", "subscriptions"),
    Mcp("2025-11-25", "server/utilities/completion", "capabilities"),
    Mcp(
        "2025-11-25",
        "server/utilities/pagination",
        "implementation-guidelines",
    ),
    Mcp(
        "2025-11-25",
        "server/utilities/logging",
        "setting-log-level",
    ),
    Mcp(
        "2026-07-28",
        "server/utilities/logging",
        "per-request-log-level",
    ),
    Note("on 2026-07-28 a log message only to a request that asked for one: an error"),
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

/// What `tools-list-valid` cites under `spec`: unique names are a SHOULD.
const TOOLS_LIST_VALID_SPEC_CITES: &[Cite] = &[
    Mcp("2025-11-25", "server/tools", "tool-names"),
    Note("names should be unique: a name listed twice is a warning"),
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

/// What `host-first-message` cites in both profiles.
const HOST_FIRST_MESSAGE_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic/lifecycle", "initialization"),
    Note(
        "initialize is the first interaction, a MUST; no request but ping before its answer, a SHOULD NOT: a warning",
    ),
    Mcp(
        "2026-07-28",
        "basic/transports/stdio",
        "backward-compatibility",
    ),
    Note("a request with 2026-07-28 _meta before initialize is a dual-era probe, and exempt"),
];

/// What `host-initialized-sent` cites in both profiles.
const HOST_INITIALIZED_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic/lifecycle", "initialization"),
    Mcp("2025-11-25", "basic/lifecycle", "version-negotiation"),
    Note("a host that leaves over a version it cannot use sends none"),
];

/// What `host-request-ids` cites in both profiles.
const HOST_REQUEST_IDS_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic", "requests"),
    Note("a string or an integer, never null, never used before in the session"),
    Mcp("2026-07-28", "basic", "requests"),
    Note("never the id of a request still awaiting its answer"),
];

/// What `host-answers-server-requests` cites in both profiles.
const HOST_ANSWERS_CITES: &[Cite] = &[
    JsonRpc("5"),
    Mcp("2025-11-25", "basic", "responses"),
    Mcp(
        "2025-11-25",
        "basic/utilities/ping",
        "behavior-requirements",
    ),
    Mcp("2026-07-28", "basic/transports/stdio", "sending-messages"),
    Note("on 2026-07-28 the client writes no responses"),
];

/// What `host-capabilities-honest` cites in both profiles.
const HOST_CAPABILITIES_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic/lifecycle", "capability-negotiation"),
    Mcp("2025-11-25", "client/roots", "capabilities"),
    Mcp("2025-11-25", "client/sampling", "capabilities"),
    Mcp("2025-11-25", "client/elicitation", "capabilities"),
    Note(
        "a declared capability's request refused as unknown, a SHOULD: a warning (elicitation on 2025-11-25: an error)",
    ),
    Mcp("2025-06-18", "basic/lifecycle", "operation"),
    Note("a capability used undeclared: an error from 2025-06-18, a warning before"),
];

/// What `host-notifications-unanswered` cites in both profiles.
const HOST_NOTIFICATIONS_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic", "notifications"),
    Note("the receiver must not send a response"),
    JsonRpc("4.1"),
];

/// What `host-cancel-valid` cites in both profiles.
const HOST_CANCEL_CITES: &[Cite] = &[
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
    Note("a cancellation that crosses the answer is allowed"),
];

/// What `host-messages-valid` cites in both profiles.
const HOST_MESSAGES_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic/transports", "stdio"),
    Mcp("2025-11-25", "basic", "schema"),
    Mcp("2025-03-26", "basic", "batching"),
    Mcp("2026-07-28", "basic", "meta"),
    Note("every 2026-07-28 request carries its protocol version and client capabilities"),
];

/// What `host-shutdown-order` cites in both profiles.
const HOST_SHUTDOWN_CITES: &[Cite] = &[
    Mcp("2025-11-25", "basic/lifecycle", "stdio"),
    Mcp("2026-07-28", "basic/transports/stdio", "shutdown"),
];

/// What `host-mrtr-retry` cites in both profiles.
const HOST_MRTR_CITES: &[Cite] = &[Mcp(
    "2026-07-28",
    "basic/patterns/mrtr",
    "client-requirements-basic-workflow",
)];

/// What `host-progress-tokens` cites in both profiles.
const HOST_PROGRESS_CITES: &[Cite] = &[
    Mcp(
        "2025-11-25",
        "basic/utilities/progress",
        "behavior-requirements",
    ),
    Mcp(
        "2026-07-28",
        "basic/patterns/progress",
        "behavior-requirements",
    ),
    Note("on 2026-07-28 only the server sends progress"),
];

/// What `host-era-probe` cites in both profiles.
const HOST_ERA_PROBE_CITES: &[Cite] = &[
    Mcp(
        "2026-07-28",
        "basic/transports/stdio",
        "backward-compatibility",
    ),
    Mcp(
        "2026-07-28",
        "basic/versioning",
        "backward-compatibility-with-initialization-based-versions",
    ),
];

/// The revisions a host law's level names.
const LEGACY: &[Revision] = Revision::LEGACY;
const ALL: &[Revision] = Revision::ALL;
const MODERN: &[Revision] = &[Revision::V2026_07_28];
const BATCHING: &[Revision] = &[Revision::V2025_03_26];
const BEFORE_2025_06_18: &[Revision] = &[Revision::V2024_11_05, Revision::V2025_03_26];
const FROM_2025_06_18_LEGACY: &[Revision] = &[Revision::V2025_06_18, Revision::V2025_11_25];
const V2025_11_25: &[Revision] = &[Revision::V2025_11_25];

const fn level(
    revisions: &'static [Revision],
    strength: Strength,
    duty: &'static str,
) -> HostLevel {
    HostLevel {
        revisions,
        strength,
        duty,
    }
}

/// The levels of each host law: the strength the specification gives each
/// of its duties, per revision.
const HOST_LEVELS: &[(LawId, &[HostLevel])] = &[
    (
        LawId::HostFirstMessage,
        &[
            level(LEGACY, Strength::Must, "the first message is initialize"),
            level(
                LEGACY,
                Strength::Should,
                "no request but ping before its answer",
            ),
            level(MODERN, Strength::NotApplicable, "no initialize"),
        ],
    ),
    (
        LawId::HostInitializedSent,
        &[
            level(LEGACY, Strength::Must, ""),
            level(MODERN, Strength::NotApplicable, "no initialize"),
        ],
    ),
    (
        LawId::HostRequestIds,
        &[
            level(ALL, Strength::Must, "a string or an integer"),
            level(LEGACY, Strength::Must, "never reused in the session"),
            level(
                MODERN,
                Strength::Must,
                "never the id of a request awaiting its answer",
            ),
        ],
    ),
    (
        LawId::HostAnswersServerRequests,
        &[
            level(
                LEGACY,
                Strength::Must,
                "each server request answered once, ping with {}",
            ),
            level(MODERN, Strength::Must, "no response at all"),
        ],
    ),
    (
        LawId::HostCapabilitiesHonest,
        &[
            level(
                LEGACY,
                Strength::Should,
                "a declared capability's request not refused as unknown",
            ),
            level(
                V2025_11_25,
                Strength::Must,
                "a declared elicitation not refused",
            ),
            level(
                BEFORE_2025_06_18,
                Strength::Should,
                "no undeclared capability used",
            ),
            level(
                FROM_2025_06_18_LEGACY,
                Strength::Must,
                "no undeclared capability used",
            ),
            level(MODERN, Strength::NotApplicable, "no server requests"),
        ],
    ),
    (
        LawId::HostNotificationsUnanswered,
        &[level(ALL, Strength::Must, "")],
    ),
    (
        LawId::HostCancelValid,
        &[
            level(ALL, Strength::Must, "names a request in flight"),
            level(LEGACY, Strength::Must, "never initialize"),
        ],
    ),
    (
        LawId::HostMessagesValid,
        &[
            level(
                ALL,
                Strength::Must,
                "one JSON-RPC message per line, valid for its method",
            ),
            level(
                BATCHING,
                Strength::Must,
                "batches here alone, without initialize",
            ),
            level(MODERN, Strength::Must, "_meta on every request"),
        ],
    ),
    (
        LawId::HostShutdownOrder,
        &[level(ALL, Strength::Should, "")],
    ),
    (
        LawId::HostMrtrRetry,
        &[
            level(LEGACY, Strength::NotApplicable, "no input_required"),
            level(MODERN, Strength::Must, ""),
        ],
    ),
    (
        LawId::HostProgressTokens,
        &[
            level(ALL, Strength::Must, "a token unique among active requests"),
            level(
                LEGACY,
                Strength::Must,
                "progress for an active server request, increasing",
            ),
            level(MODERN, Strength::Must, "no progress from the host"),
        ],
    ),
    (
        LawId::HostEraProbe,
        &[
            level(LEGACY, Strength::NotApplicable, "no era probe"),
            level(MODERN, Strength::Should, ""),
        ],
    ),
];

/// The catalog, in the order reports list it: the server's laws, then the
/// host's.
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
        summary: "every request gets exactly one response with its id, of the same JSON type; a batch one array, a listen request its stream; progress only while its request is in flight, increasing",
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
            Mcp(
                "2025-11-25",
                "basic/utilities/progress",
                "behavior-requirements",
            ),
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
            Mcp(
                "2025-11-25",
                "basic/utilities/progress",
                "behavior-requirements",
            ),
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
        summary: "methods of an advertised capability are served, lists to their last page, listed resources read; log notifications only with logging and as the client asked; list changes and resource updates only as declared",
        core: W,
        spec: W,
        core_cites: CAPABILITIES_HONEST_CITES,
        spec_cites: CAPABILITIES_HONEST_SPEC_CITES,
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
        spec_cites: TOOLS_LIST_VALID_SPEC_CITES,
        implemented: true,
    },
    Law {
        id: LawId::ListCacheHints,
        summary: "on 2026-07-28, every cacheable result carries ttlMs and cacheScope, one scope across a list's pages",
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
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "interaction-with-pagination",
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
            Mcp(
                "2026-07-28",
                "server/utilities/caching",
                "interaction-with-pagination",
            ),
        ],
        implemented: true,
    },
    Law {
        id: LawId::InvalidParams,
        summary: "tools/call without a name, or with non-object arguments, gets error -32602; reading an unknown resource is an error; an unknown prompt, completion reference, log level or cursor gets -32602",
        core: E,
        spec: E,
        core_cites: &[
            McpCore(2, 15),
            Mcp("2026-07-28", "server/resources", "error-handling"),
            Note("an unknown resource: -32602 on 2026-07-28, an error before"),
            Mcp("2025-11-25", "server/prompts", "error-handling"),
            Mcp(
                "2025-11-25",
                "server/utilities/completion",
                "error-handling",
            ),
            Mcp("2025-11-25", "server/utilities/logging", "error-handling"),
            Mcp("2026-07-28", "server/utilities/logging", "error-handling"),
            Mcp(
                "2025-11-25",
                "server/utilities/pagination",
                "error-handling",
            ),
            Note(
                "an unknown prompt, completion reference, log level or cursor, or a missing prompt argument, gets -32602, a SHOULD: a warning",
            ),
        ],
        spec_cites: &[
            Mcp("2025-11-25", "server/tools", "error-handling"),
            Note("malformed requests are protocol errors"),
            Mcp("2025-11-25", "server/resources", "error-handling"),
            Mcp("2026-07-28", "server/resources", "error-handling"),
            Note(
                "an unknown resource: -32002 by example before 2026-07-28 (a warning), -32602 on it",
            ),
            Mcp("2025-11-25", "server/prompts", "error-handling"),
            Mcp(
                "2025-11-25",
                "server/utilities/completion",
                "error-handling",
            ),
            Mcp("2025-11-25", "server/utilities/logging", "error-handling"),
            Mcp("2026-07-28", "server/utilities/logging", "error-handling"),
            Mcp(
                "2025-11-25",
                "server/utilities/pagination",
                "error-handling",
            ),
            Note(
                "an unknown prompt, completion reference, log level or cursor, or a missing prompt argument, gets -32602, a SHOULD: a warning",
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
        summary: "closing stdin with nothing pending ends the process within the grace period (core: with status 0)",
        core: E,
        spec: W,
        core_cites: &[ReqC032("Exit codes"), McpCore(1, 10)],
        spec_cites: &[
            Mcp("2026-07-28", "basic/transports/stdio", "shutdown"),
            Note("the server should exit promptly; no status is named, so any status holds"),
        ],
        implemented: true,
    },
    Law {
        id: LawId::EofDrains,
        summary: "requests pending when stdin closes are all answered before the process exits",
        core: E,
        spec: W,
        core_cites: &[McpCore(1, 9), McpCore(1, 10), JsonRpc("5")],
        spec_cites: &[JsonRpc("5"), Note("every request is answered")],
        implemented: true,
    },
    Law {
        id: LawId::SigtermExit143,
        summary: "SIGTERM while serving ends the process within the grace period (core: with 143)",
        core: E,
        spec: W,
        core_cites: &[ReqC032("Exit codes")],
        spec_cites: &[
            Mcp("2025-11-25", "basic/lifecycle", "stdio"),
            Note(
                "the client may send SIGTERM, then SIGKILL; no status is named, so any status holds",
            ),
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
    Law {
        id: LawId::HostFirstMessage,
        summary: "the host's first message is initialize, and it sends no request but ping before the answer",
        core: E,
        spec: E,
        core_cites: HOST_FIRST_MESSAGE_CITES,
        spec_cites: HOST_FIRST_MESSAGE_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostInitializedSent,
        summary: "notifications/initialized follows a successful initialize answer, never precedes it",
        core: E,
        spec: E,
        core_cites: HOST_INITIALIZED_CITES,
        spec_cites: HOST_INITIALIZED_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostRequestIds,
        summary: "the host's request ids are strings or integers, never reused (2026-07-28: never one still awaiting its answer)",
        core: E,
        spec: E,
        core_cites: HOST_REQUEST_IDS_CITES,
        spec_cites: HOST_REQUEST_IDS_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostAnswersServerRequests,
        summary: "each server request gets exactly one response with its id, ping an empty result; 2026-07-28: no response at all",
        core: E,
        spec: E,
        core_cites: HOST_ANSWERS_CITES,
        spec_cites: HOST_ANSWERS_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostCapabilitiesHonest,
        summary: "a request for a capability the host declared is not refused as unknown; nothing undeclared is used",
        core: E,
        spec: E,
        core_cites: HOST_CAPABILITIES_CITES,
        spec_cites: HOST_CAPABILITIES_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostNotificationsUnanswered,
        summary: "the host sends no response to a notification",
        core: E,
        spec: E,
        core_cites: HOST_NOTIFICATIONS_CITES,
        spec_cites: HOST_NOTIFICATIONS_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostCancelValid,
        summary: "notifications/cancelled names a request the host sent that is still in flight, never initialize",
        core: E,
        spec: E,
        core_cites: HOST_CANCEL_CITES,
        spec_cites: HOST_CANCEL_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostMessagesValid,
        summary: "every host line is one JSON-RPC message valid for its method and revision",
        core: E,
        spec: E,
        core_cites: HOST_MESSAGES_CITES,
        spec_cites: HOST_MESSAGES_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostShutdownOrder,
        summary: "the host ends the session by closing the server's stdin, waits, then SIGTERM, then SIGKILL",
        core: W,
        spec: W,
        core_cites: HOST_SHUTDOWN_CITES,
        spec_cites: HOST_SHUTDOWN_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostMrtrRetry,
        summary: "2026-07-28: a retry after input_required echoes requestState, answers every input request, under a fresh id",
        core: E,
        spec: E,
        core_cites: HOST_MRTR_CITES,
        spec_cites: HOST_MRTR_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostProgressTokens,
        summary: "the host's progress tokens are unique among its active requests; its progress names an active server request and increases",
        core: E,
        spec: E,
        core_cites: HOST_PROGRESS_CITES,
        spec_cites: HOST_PROGRESS_CITES,
        implemented: true,
    },
    Law {
        id: LawId::HostEraProbe,
        summary: "after a modern answer the host does not fall back to initialize on that process",
        core: W,
        spec: W,
        core_cites: HOST_ERA_PROBE_CITES,
        spec_cites: HOST_ERA_PROBE_CITES,
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
    /// Aligned text for people: one block per law, then the requirements
    /// by side and page, one line each.
    Human,
    /// JSON Lines: one object per law, then one per requirement.
    Json,
}

/// Writes the catalog: every law with its severity per profile, whether it
/// is implemented or reserved, and its citations; then the requirement
/// registry ([`registry::REGISTRY`]), each requirement with its level, its
/// revisions and the law that judges it. As JSON Lines, each line says
/// which it is: `"type": "law"` or `"type": "requirement"`.
///
/// # Errors
///
/// When `out` cannot be written to.
pub fn render_catalog(out: &mut impl Write, format: CatalogFormat) -> io::Result<()> {
    render_laws_to(out, format)?;
    match format {
        CatalogFormat::Json => registry::render_json(out),
        CatalogFormat::Human => registry::render_human(out),
    }
}

/// Writes the laws of the catalog alone, as [`render_catalog`] writes them
/// before the requirements.
///
/// # Errors
///
/// When `out` cannot be written to.
pub fn render_laws(out: &mut impl Write, format: CatalogFormat) -> io::Result<()> {
    render_laws_to(out, format)
}

fn render_laws_to(out: &mut dyn Write, format: CatalogFormat) -> io::Result<()> {
    let severity = |s: Option<Severity>| s.map_or("-", Severity::as_str);
    match format {
        CatalogFormat::Json => {
            #[derive(serde::Serialize)]
            struct Graded<'a> {
                severity: &'a str,
                cites: String,
            }
            #[derive(serde::Serialize)]
            struct Leveled {
                revisions: Vec<&'static str>,
                strength: &'static str,
                #[serde(skip_serializing_if = "str::is_empty")]
                duty: &'static str,
            }
            #[derive(serde::Serialize)]
            struct Line<'a> {
                #[serde(rename = "type")]
                kind: &'a str,
                id: &'a str,
                side: &'a str,
                summary: &'a str,
                implemented: bool,
                core: Option<Graded<'a>>,
                spec: Option<Graded<'a>>,
                #[serde(skip_serializing_if = "Vec::is_empty")]
                levels: Vec<Leveled>,
            }
            for law in CATALOG {
                let graded = |severity: Option<Severity>, cites: &[Cite]| {
                    severity.map(|severity| Graded {
                        severity: severity.as_str(),
                        cites: render_cites(cites),
                    })
                };
                let line = Line {
                    kind: "law",
                    id: law.id.as_str(),
                    side: law.side().as_str(),
                    summary: law.summary,
                    implemented: law.implemented,
                    core: graded(law.core, law.core_cites),
                    spec: graded(law.spec, law.spec_cites),
                    levels: law
                        .levels()
                        .iter()
                        .map(|level| Leveled {
                            revisions: level.revisions.iter().map(|r| r.as_str()).collect(),
                            strength: level.strength.as_str(),
                            duty: level.duty,
                        })
                        .collect(),
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
            let indent = " ".repeat(width + 30);
            writeln!(
                out,
                "{:width$}  {:6}  {:8}  {:8}  what holds",
                "law", "side", "core", "spec"
            )?;
            for law in CATALOG {
                let reserved = if law.implemented { "" } else { "(reserved) " };
                writeln!(
                    out,
                    "{:width$}  {:6}  {:8}  {:8}  {reserved}{}",
                    law.id.as_str(),
                    law.side().as_str(),
                    severity(law.core),
                    severity(law.spec),
                    law.summary
                )?;
                let levels = law.levels();
                if !levels.is_empty() {
                    let levels: Vec<String> = levels.iter().map(ToString::to_string).collect();
                    writeln!(out, "{indent}levels {}", levels.join("; "))?;
                }
                if law.core.is_some() {
                    writeln!(out, "{indent}core cites {}", render_cites(law.core_cites))?;
                }
                if law.spec.is_some() {
                    writeln!(out, "{indent}spec cites {}", render_cites(law.spec_cites))?;
                }
            }
            let implemented = CATALOG.iter().filter(|law| law.implemented).count();
            let hosts = CATALOG
                .iter()
                .filter(|law| law.side() == Side::Host)
                .count();
            writeln!(
                out,
                "{} laws ({} of servers, {hosts} of hosts): {implemented} implemented, {} reserved for later releases",
                CATALOG.len(),
                CATALOG.len() - hosts,
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
pub mod registry;

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
        /// A host law's `- Levels:` line; empty for a server law.
        levels: String,
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
                    levels: String::new(),
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
            } else if let Some(text) = line.strip_prefix("- Levels: ") {
                law.levels = text.to_owned();
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
                levels: law
                    .levels()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
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
                    levels: String::new(),
                },
                Documented {
                    id: "schema".into(),
                    reserved: true,
                    core: None,
                    spec: Some((Severity::Warning, "B; C".into())),
                    waive: String::new(),
                    levels: String::new(),
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
        assert!(human.contains("36 laws (24 of servers, 12 of hosts): 36 implemented, 0 reserved"));

        let mut json = Vec::new();
        render_catalog(&mut json, CatalogFormat::Json).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        // The laws first, each line saying it is one, then the requirements.
        assert_eq!(lines.len(), CATALOG.len() + registry::REGISTRY.len());
        let kinds: Vec<&str> = lines
            .iter()
            .map(|line| line["type"].as_str().unwrap())
            .collect();
        assert!(kinds[..CATALOG.len()].iter().all(|kind| *kind == "law"));
        assert!(
            kinds[CATALOG.len()..]
                .iter()
                .all(|kind| *kind == "requirement")
        );
        assert_eq!(
            lines[0],
            serde_json::json!({
                "type": "law",
                "id": "quiet-before-serving",
                "side": "server",
                "summary": "nothing on stdout before the client's first message",
                "implemented": true,
                "core": {"severity": "error", "cites": "REQ-C-032 \"Before serving\" (docs/req-c-032.md#before-serving); MCP-CORE r1 §1¶06 (docs/mcp-core.md#s1p06)"},
                "spec": {"severity": "warning", "cites": "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio; https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio — the server must not write anything to stdout that is not a valid MCP message"},
            })
        );
        assert_eq!(lines[23]["spec"], serde_json::Value::Null);
    }

    #[test]
    fn host_laws_judge_the_host_with_levels_per_revision() {
        let hosts: Vec<&Law> = CATALOG
            .iter()
            .filter(|law| law.side() == Side::Host)
            .collect();
        assert_eq!(hosts.len(), 12);
        // The server's laws come first, then the host's.
        let first_host = CATALOG
            .iter()
            .position(|law| law.side() == Side::Host)
            .unwrap();
        assert!(
            CATALOG[first_host..]
                .iter()
                .all(|law| law.side() == Side::Host)
        );
        for law in CATALOG {
            match law.side() {
                Side::Server => assert!(law.levels().is_empty(), "{}", law.id),
                Side::Host => {
                    assert!(!law.levels().is_empty(), "{}", law.id);
                    assert!(law.id.as_str().starts_with("host-"), "{}", law.id);
                    // MCP-CORE binds servers only: both profiles grade a
                    // host law alike, and cite the same.
                    assert_eq!(law.core, law.spec, "{}", law.id);
                    assert_eq!(law.core_cites, law.spec_cites, "{}", law.id);
                    // The catalog's severity is that of the law's strongest
                    // duty: an error when some revision makes one a MUST.
                    let strongest = law
                        .levels()
                        .iter()
                        .filter_map(|level| level.strength.severity())
                        .max();
                    assert_eq!(law.spec, strongest, "{}", law.id);
                }
            }
        }
        let first = law(LawId::HostFirstMessage).levels();
        assert_eq!(
            first[0].to_string(),
            "legacy MUST (the first message is initialize)"
        );
        assert_eq!(first[2].to_string(), "2026-07-28 n/a (no initialize)");
        assert_eq!(
            law(LawId::HostShutdownOrder).levels()[0].to_string(),
            "every revision SHOULD"
        );

        let mut json = Vec::new();
        render_catalog(&mut json, CatalogFormat::Json).unwrap();
        let line: serde_json::Value = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .find(|line| line["id"] == "host-era-probe")
            .unwrap();
        assert_eq!(line["side"], "host");
        assert_eq!(
            line["levels"],
            serde_json::json!([
                {"revisions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"], "strength": "n/a", "duty": "no era probe"},
                {"revisions": ["2026-07-28"], "strength": "SHOULD"},
            ])
        );
    }

    #[test]
    fn unknown_law_is_named() {
        assert_eq!(
            "no-such-law".parse::<LawId>().unwrap_err(),
            "unknown law `no-such-law` (`mcp-replay laws` lists them)"
        );
    }
}
