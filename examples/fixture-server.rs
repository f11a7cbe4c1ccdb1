//! For mcp-replay's tests only: a tiny MCP stdio server steered by flags.
//!
//! Without flags it is a clean server that keeps every law of the core
//! profile on revision 2024-11-05. Each `--break <law-id>` makes it misbehave
//! in exactly the one way that breaks that law; the stress flags keep it
//! correct while making the checker's life hard; `--like <sdk>` makes it
//! behave as an official SDK does over stdio (correct under the MCP spec, but
//! not under MCP-CORE).
//!
//! It is one hand-written loop, not the crate's serve loop, so that it can
//! misbehave freely.
#![allow(clippy::print_stderr)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Parser, ValueEnum};
use mcp_replay::laws::LawId;
use mcp_replay::{ErrorCode, Frame, PROTOCOL_2024_11_05, RequestId, Response, method};
use serde_json::{Map, Value, json};

/// For mcp-replay's tests only: an MCP stdio server that breaks laws on request.
///
/// Without flags it is a clean MCP-CORE server (revision 2024-11-05) with the
/// tools `add`, `echo` and `fail`. An example of the crate, not installed:
/// from a clone, `cargo build --example fixture-server` builds it, so the
/// checker can be tried on a server known to be correct, or known to be wrong.
#[derive(Debug, Parser)]
#[command(name = "fixture-server", version)]
struct Flags {
    /// Break one law of the catalog, by id (repeatable).
    #[arg(long = "break", value_name = "LAW-ID", value_parser = parse_break)]
    breaks: Vec<Break>,
    /// Append this text to every answer of `echo` (to change recorded answers).
    #[arg(long, value_name = "TEXT", default_value = "")]
    echo_suffix: String,
    /// Write this many bytes to stderr at start, before serving.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    stderr_flood: usize,
    /// Wait this long before reading stdin.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    slow_start: u64,
    /// Wait this long before exiting, at end of input or on SIGTERM, as a
    /// server on a loaded machine takes its time to stop.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    slow_exit: u64,
    /// Make every answer of `echo` this many bytes longer.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pad: usize,
    /// Hold up to N requests that arrive back to back and answer them in
    /// reverse order.
    #[arg(long, value_name = "N", default_value_t = 0)]
    out_of_order: usize,
    /// Send `notifications/tools/list_changed` before every answer.
    #[arg(long)]
    unsolicited: bool,
    /// Send `notifications/tools/list_changed` at start, before reading
    /// stdin, as a valid message (breaks only the core profile's
    /// `quiet-before-serving`).
    #[arg(long)]
    announce: bool,
    /// Declare no tools capability while serving tools (breaks `initialize`).
    #[arg(long)]
    undeclared_tools: bool,
    /// Serve `tools/list` in pages of N tools.
    #[arg(long, value_name = "N")]
    page_size: Option<usize>,
    /// With `--page-size`: answer a cursor the server never issued with
    /// the first page, not error -32602 (a warning of `tools-list-valid`).
    #[arg(long)]
    lax_cursor: bool,
    /// Refuse `initialize` for any revision but 2024-11-05 with error -32602
    /// and `data {supported, requested}`, as an example in the specification
    /// does.
    #[arg(long)]
    refuse_unknown_revision: bool,
    /// Behave like an official SDK over stdio.
    #[arg(long, value_name = "SDK")]
    like: Option<Like>,
    /// Write a text line on stdout after this many milliseconds without
    /// input, as a server that says "waiting for a client" does (breaks
    /// `quiet-before-serving` and `stdout-is-protocol`, but only for a client
    /// that waits that long before its first message).
    #[arg(long, value_name = "MS")]
    idle_banner: Option<u64>,
    /// Serve revision 2026-07-28 too, statelessly, beside 2024-11-05: a
    /// request whose `_meta` names a protocol version is answered as the
    /// modern revision asks (`server/discover`, `resultType`, cache hints,
    /// -32022 for a version it does not serve, -32602 for missing `_meta`
    /// keys, -32601 for the removed methods). `--break discover` and
    /// `--break list-cache-hints` imply it.
    #[arg(long)]
    modern: bool,
    /// Serve revision 2026-07-28 alone: every request is stateless and
    /// needs its `_meta`, and `initialize` is refused with an error that
    /// names the supported versions, as the revision asks of a modern-only
    /// server.
    #[arg(long)]
    modern_only: bool,
    /// Serve revision 2026-07-28 beside 2024-11-05 (as `--modern`), with
    /// one flaw in its modern answers.
    #[arg(long, value_name = "FLAW")]
    modern_flaw: Option<Flaw>,
    /// With a 2026-07-28 mode: promise `tools.listChanged` in the
    /// `DiscoverResult` and serve `subscriptions/listen` streams (the
    /// acknowledgement, then one tagged `notifications/tools/list_changed`;
    /// silence once cancelled; the closing result at end of input).
    #[arg(long)]
    listen: bool,
    /// With `--listen`: one flaw in the streams.
    #[arg(long, value_name = "FLAW")]
    listen_flaw: Option<ListenFlaw>,
    /// With a 2026-07-28 mode: a `tools/call` that would succeed answers
    /// an `InputRequiredResult` first, as MODE says.
    #[arg(long, value_name = "MODE")]
    input_required: Option<InputRequired>,
    /// Answer `initialize` for 2025-03-26 with 2025-03-26, and take JSON-RPC
    /// batches on such a session, as that revision asks: one array of
    /// answers, none for notifications.
    #[arg(long)]
    batches: bool,
    /// With `--batches`: one flaw in how a batch is answered.
    #[arg(long, value_name = "FLAW")]
    batch_flaw: Option<BatchFlaw>,
    /// Declare and serve prompts (`greet`) and resources (`fixture://readme`,
    /// no templates) beside the tools, in either era.
    #[arg(long)]
    prompts_resources: bool,
    /// With `--prompts-resources`: one flaw in what they answer.
    #[arg(long, value_name = "FLAW")]
    content_flaw: Option<ContentFlaw>,
    /// List every tool without its annotations, as most servers do: none
    /// says it changes nothing.
    #[arg(long)]
    no_annotations: bool,
    /// Serve two tools whose answers change by themselves: `now` (the
    /// current time, as JSON in its text) and `token` (a fresh random token).
    #[arg(long)]
    volatile: bool,
    /// Answer a malformed line's parse error only after the answer to the
    /// request that follows it: out of order, as JSON-RPC allows.
    #[arg(long)]
    late_parse_error: bool,
    /// Append `start` to FILE at start and `answering` before the first
    /// line written to stdout, to show how a client staggers its servers.
    #[arg(long, value_name = "FILE")]
    start_log: Option<std::path::PathBuf>,
    /// Serve revision 2026-07-28 beside 2024-11-05, each request in the
    /// era its own form names, on one process as the spec allows: a request
    /// whose `_meta` names a protocol version (or `server/discover`) is
    /// modern, one without is legacy, where `ping` answers `{}` before
    /// `initialize` and any other method but `initialize` gets -32602, as
    /// the Python SDK's dual-era loop answers a request before the
    /// handshake.
    #[arg(long)]
    modern_per_request: bool,
    /// Handle each line this many milliseconds after it arrives (a slow
    /// handler), and end the process at end of input at once, dropping the
    /// lines not handled yet, as the Python SDK cancels its work in flight
    /// when its read loop ends: requests sent right before stdin closes
    /// are lost, those sent with stdin open are answered.
    #[arg(long, value_name = "MS")]
    eof_cancels: Option<u64>,
    /// Leave every request before `initialize` unanswered, `ping` and
    /// `server/discover` included, as older Python SDK servers do: a client
    /// that asks `server/discover` first hears nothing, and falls back to
    /// `initialize` on the same process.
    #[arg(long)]
    deaf_before_initialize: bool,
    /// One way to get the eras, the first message of a process, or a
    /// modern result wrong (implies `--modern`).
    #[arg(long, value_name = "FLAW")]
    era_flaw: Option<EraFlaw>,
    /// Write [`HOSTILE`] wherever a server's words reach a report: on
    /// stderr at start, as the name and description of one more tool
    /// (listed without an inputSchema, which `tools-list-valid` quotes), as
    /// the message of an error answering `ping`, after every answer of
    /// `echo`; and a call of the tool `crash` writes it on stderr and exits
    /// 1 (breaks `ping`, `tools-list-valid` and `transcript-match`, all of
    /// which quote it).
    #[arg(long)]
    hostile: bool,
    /// The tool `add` declares an `outputSchema` of this kind, one of
    /// those a lenient validator gets wrong or one per JSON Schema keyword
    /// (`--output-schema list` names them), and answers structured content
    /// that meets it; serves 2026-07-28 too (as `--modern`), whose session
    /// calls `add`.
    #[arg(long, value_name = "CASE", value_parser = output_schema::parse)]
    output_schema: Option<&'static output_schema::Case>,
    /// With `--output-schema`: answer structured content that breaks the
    /// schema, at the case's keyword.
    #[arg(long, requires = "output_schema")]
    output_invalid: bool,
    /// Exit with status 1 at this request, as older Python SDK servers end
    /// at a `tools/call` without a name or an unknown method (repeatable).
    #[arg(long, value_name = "REQUEST")]
    crash_on: Vec<Fatal>,
    /// Answer nothing from this request on, as a server whose loop died
    /// while its process runs on (repeatable).
    #[arg(long, value_name = "REQUEST")]
    hang_on: Vec<Fatal>,
    /// Declare and serve `completions`: `completion/complete` of a prompt's
    /// argument or a template's variable (with `--prompts-resources`).
    #[arg(long)]
    completions: bool,
    /// With `--completions`: one flaw in what completion answers.
    #[arg(long, value_name = "FLAW")]
    completion_flaw: Option<CompletionFlaw>,
    /// Declare and serve `logging`: `logging/setLevel` on the legacy
    /// revisions, and log messages before each `tools/call` answer (at
    /// `info` and `error`, those at or above the level set; on 2026-07-28
    /// only to a request whose `_meta` asks for a level).
    #[arg(long)]
    logging: bool,
    /// With `--logging`: one flaw in the logging.
    #[arg(long, value_name = "FLAW")]
    logging_flaw: Option<LoggingFlaw>,
    /// Declare `resources.subscribe` and serve `resources/subscribe` and
    /// `resources/unsubscribe` on the legacy revisions, with an update of
    /// the resource right after its subscription (with
    /// `--prompts-resources`).
    #[arg(long)]
    subscribe: bool,
    /// With `--subscribe`: one flaw in the subscriptions.
    #[arg(long, value_name = "FLAW")]
    subscribe_flaw: Option<SubscribeFlaw>,
    /// Give the tools, prompts and resources an icon each.
    #[arg(long)]
    icons: bool,
    /// With `--icons`: one flaw in the icons.
    #[arg(long, value_name = "FLAW")]
    icon_flaw: Option<IconFlaw>,
    /// Report progress on a `tools/call` that carries a progress token, as
    /// MODE says.
    #[arg(long, value_name = "MODE")]
    progress_mode: Option<ProgressMode>,
    /// Serve the tools without annotations: none says it changes nothing,
    /// so the probes call none for real unless named with `--tool`.
    #[arg(long)]
    unannotated: bool,
    /// Answer every request, but never exit at end of input (as
    /// `mcp-server-sqlite` 2025.4.25 does): breaks `eof-exit-zero` alone.
    #[arg(long)]
    linger_at_eof: bool,
    /// The tools of `mcp-replay fuzz`'s tests (`--fuzz-tools`, `--fuzz-bug`).
    #[command(flatten)]
    fuzz: fuzz_tools::FuzzFlags,
    /// What a server that asks too much of its client does
    /// (`--hostile-schema`, `--flood-listen`, `--huge-state`).
    #[command(flatten)]
    excess: excess::ExcessFlags,
}

/// What `--hostile` writes: escape sequences that clear a terminal, set
/// its title and ring its bell (ESC, CSI, OSC, BEL, a C1 CSI), a
/// right-to-left override, zero-width characters, and GitHub Actions
/// workflow commands, at the start of a line and in the older form
/// anywhere in one.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;owned\u{7}\u{9b}31m\u{202e}evil\u{200b}\u{2028}::add-mask::hostile ##[error]old form\n::error file=src/lib.rs,line=1::all laws held\r\n  ::stop-commands::hostile";
/// One way to get completion wrong (`--completion-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CompletionFlaw {
    /// `completion/complete` is not served, though declared (breaks
    /// `capabilities-honest`).
    NotServed,
    /// 101 values (breaks `schema`: at most 100).
    TooMany,
    /// A completion of an unknown prompt answers values, not -32602 (a
    /// warning of `invalid-params`).
    UnknownRefResult,
}

/// One way to get logging wrong (`--logging-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LoggingFlaw {
    /// `logging/setLevel` is not served, though logging is declared
    /// (breaks `capabilities-honest`).
    NoSetLevel,
    /// A level no revision has is accepted, by `logging/setLevel` and in a
    /// 2026-07-28 request's `_meta` (a warning of `invalid-params`).
    AnyLevel,
    /// Log messages below the level set are sent all the same (a warning
    /// of `capabilities-honest`).
    IgnoresLevel,
    /// On 2026-07-28, log messages go to requests that asked for none
    /// (breaks `capabilities-honest`).
    Unasked,
}

/// One way to get subscriptions wrong (`--subscribe-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SubscribeFlaw {
    /// `resources/subscribe` is not served, though declared (breaks
    /// `capabilities-honest`).
    NotServed,
    /// The update after a subscription names another resource (a warning
    /// of `capabilities-honest`).
    OtherUri,
}

/// One way to get icons wrong (`--icon-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum IconFlaw {
    /// An icon's `src` is a relative path, no URI (breaks `schema`).
    NotAUri,
    /// An icon's `src` is an `ftp:` URI (a warning of `schema`).
    OddScheme,
    /// An icon's `sizes` says `big` (a warning of `schema`).
    BadSizes,
}

/// The log levels, from the least severe.
const LOG_LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// How a `tools/call` with a progress token reports progress
/// (`--progress-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProgressMode {
    /// 1 of 2, then 2 of 2, before the answer.
    Steady,
    /// As `steady`, then once more after the answer (breaks
    /// `request-answered-once`: progress stops once answered).
    AfterAnswer,
    /// 2 of 2, then 1 of 2 (breaks `request-answered-once`: progress
    /// increases).
    Decreasing,
    /// Progress for a token no request carried (breaks
    /// `request-answered-once`).
    UnknownToken,
}

/// A request a server ends at, or stops answering at (`--crash-on`,
/// `--hang-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Fatal {
    /// A request for a method the server does not serve (on the legacy
    /// era; `server/discover` is one for a legacy server).
    UnknownMethod,
    /// A `tools/call` without a tool name.
    NamelessCall,
}

/// One way to get the eras or the first message of a process wrong
/// (`--era-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EraFlaw {
    /// A successful modern `tools/call` result has no `content` (breaks
    /// `schema`: a complete result is a `CallToolResult`).
    CallWithoutContent,
    /// A successful modern `tools/call` result carries a content block of
    /// a type no revision has (breaks `schema`).
    UnknownContentType,
    /// The first request of a process, if it is a `ping`, is answered
    /// `{}` as a legacy ping, whatever its `_meta` (as rmcp 3.11 does;
    /// breaks `discover`: a 2026-07-28 request must not depend on what
    /// came before it).
    FirstPingLegacy,
    /// The first `tools/list` of a process carries no cache hints (breaks
    /// `discover`, `list-cache-hints` and `schema`).
    FirstListWithoutHints,
    /// Exit with status 1 when the first message of the process is
    /// `notifications/cancelled` (as rmcp 3.11 does; breaks
    /// `cancel-tolerated`).
    CancelFirstExits,
    /// Refuse `initialize` with -32022 naming 2026-07-28, and serve no
    /// `server/discover` (breaks `discover`: a modern server must have it).
    NoDiscover,
}

/// The official SDKs whose stdio behaviour can be imitated
/// (see spec/SDK-NOTES.md §3 of the project's reference material).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Like {
    /// No reply to a non-JSON line, -32600 without id to JSON that is not
    /// JSON-RPC, -32601 for a malformed tools/call, unknown tool -32602,
    /// death by SIGTERM.
    Rmcp,
    /// Silence on malformed lines, unknown tool as an isError result, death
    /// by SIGTERM.
    PythonSdk,
    /// As the Python SDK v1: like `python-sdk`, and an unknown method is
    /// refused with -32602 "Invalid request parameters".
    PythonSdkV1,
    /// As the TypeScript SDK v1: silence on malformed lines, -32603 for a
    /// malformed tools/call, unknown tool as an isError result, death by
    /// SIGTERM.
    TypescriptSdk,
}

/// One way to get revision 2026-07-28 wrong (`--modern-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Flaw {
    /// `tools/list` results carry no `resultType` (breaks `schema`).
    NoResultType,
    /// `tools/list` results carry `ttlMs: -1` and `cacheScope: "everyone"`
    /// (breaks `list-cache-hints`).
    BadCacheHints,
    /// A version the server does not serve gets the draft-era -32004, not
    /// -32022 (breaks `discover`).
    DraftVersionError,
    /// Requests missing `_meta` keys are served instead of refused with
    /// -32602 (breaks `discover`).
    MetaOptional,
    /// A `roots/list` request goes to stdout before each `tools/list`
    /// answer, which 2026-07-28 forbids on stdio (breaks `schema`).
    ServerRequest,
    /// `ping` on a modern request is answered, though 2026-07-28 removed it
    /// (breaks `unknown-method`).
    AnswersPing,
    /// The `DiscoverResult` declares `capabilities.tools` as `true`, not
    /// an object (breaks `schema`).
    WrongShape,
    /// `tools/call` works only after a `tools/list` on the same process
    /// (breaks `discover`: 2026-07-28 is stateless).
    Stateful,
    /// `tools/list` and `tools/call` are refused until a `server/discover`
    /// has been answered on the same process (breaks `discover`: 2026-07-28
    /// is stateless).
    NeedsDiscover,
    /// With `--modern-only`: `initialize` is refused with a bare -32601
    /// that names no version (breaks `initialize`, which asks a modern-only
    /// server to name the versions it serves).
    UnnamedVersions,
    /// `tools/list` serves the tools out of name order, in another order
    /// each time (breaks `tools-list-sorted`, in 2026-07-28 only: a
    /// dual-era server keeps it in its legacy conversation).
    UnsortedTools,
    /// Arguments that break a tool's inputSchema get error -32602, not an
    /// `isError` result (breaks `tool-error-is-result`, in 2026-07-28 only: a
    /// dual-era server keeps it in its legacy conversation).
    InvalidArgumentsError,
    /// A call of an unknown tool gets an `isError` result, not a JSON-RPC
    /// error (breaks `unknown-tool`, in 2026-07-28 only: a
    /// dual-era server keeps it in its legacy conversation).
    UnknownToolResult,
    /// `server/discover` promises a TTL of a minute and names another
    /// `supportedVersions` list each time (breaks `discover`: a result
    /// cached for its TTL must stay true).
    UnstableDiscover,
    /// A modern request without `clientInfo` in its `_meta` is refused
    /// with -32602, though the key is optional (breaks `discover`).
    RequiresClientInfo,
    /// Results carry no `_meta` `io.modelcontextprotocol/serverInfo`, which
    /// the revision says a server SHOULD send (a warning of `discover`).
    NoServerInfo,
    /// -32022 lists in `data.supported` a version the `DiscoverResult`
    /// does not name (a warning of `discover`: a client retries from it).
    MismatchedSupported,
}

/// One way to get a `subscriptions/listen` stream wrong (`--listen-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListenFlaw {
    /// The stream's notification comes without the acknowledgement first
    /// (breaks `request-answered-once`).
    NoAck,
    /// The stream's notification lacks its subscription id (breaks
    /// `request-answered-once`).
    Untagged,
    /// A notification of the stream follows its cancellation, after the
    /// answer to the next request (breaks `request-answered-once`).
    AfterCancel,
    /// `notifications/tools/list_changed` before each modern `tools/list`
    /// answer, outside any stream (breaks `capabilities-honest`).
    Unsolicited,
    /// A stream still open at end of input is left without its closing
    /// result (a warning of `request-answered-once`: the spec says should).
    NoClose,
}

/// How a modern `tools/call` that would succeed asks for input first
/// (`--input-required`): an `InputRequiredResult`, then the result once
/// retried with the `requestState` it gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum InputRequired {
    /// As the spec asks: `requestState` alone (the client declared no
    /// capability), the result on a retry that echoes it, and error -32602
    /// for a state it never issued.
    State,
    /// Neither `inputRequests` nor `requestState` (breaks `schema`).
    Bare,
    /// Asks for an elicitation the client did not declare (breaks
    /// `schema`).
    Asks,
    /// Answers the retry with its own state with an error (a warning of
    /// `schema`).
    RetryError,
    /// Exits at a `requestState` it never issued (breaks
    /// `request-answered-once`: it trusts what the client sends).
    ForgedExits,
    /// Every `tools/call`, whatever its arguments and state, is answered
    /// with an `InputRequiredResult`: no call ever reaches a tool.
    Always,
}

/// The `requestState` the fixture issues.
const FIXTURE_STATE: &str = "fixture-state-1";

/// The `_meta` key of a listen stream's notifications.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One way to answer a batch wrong (`--batch-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BatchFlaw {
    /// Each answer on a line of its own, not one array (breaks
    /// `request-answered-once`; a warning under spec).
    OneByOne,
    /// An error response with id null for each notification of the batch
    /// (breaks `notification-unanswered`).
    AnswersNotifications,
}

/// One way to get prompts or resources wrong (`--content-flaw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ContentFlaw {
    /// `prompts/get` is not served, though prompts are declared (breaks
    /// `capabilities-honest`).
    NoPromptGet,
    /// `resources/templates/list` is not served, though resources are
    /// declared (breaks `capabilities-honest`).
    NoTemplates,
    /// A listed resource cannot be read (breaks `capabilities-honest`).
    Unreadable,
    /// `resources/read` of an unknown URI answers empty `contents` instead
    /// of an error (breaks `invalid-params`).
    UnknownUriResult,
    /// `prompts/get` of an unknown prompt answers a result, not -32602 (a
    /// warning of `invalid-params`).
    UnknownPromptResult,
    /// `prompts/get` without a required argument answers a result, not
    /// -32602 (a warning of `invalid-params`).
    MissingArgumentResult,
    /// `resources/list` always has a next page (breaks
    /// `capabilities-honest`: a client cannot list it to its end).
    EndlessPages,
    /// On 2026-07-28, the pages after a list's first are `private`, the
    /// first `public` (breaks `list-cache-hints`).
    MixedScope,
    /// On 2026-07-28, `resources/read` carries no cache hints (breaks
    /// `list-cache-hints`).
    ReadWithoutHints,
}

/// One misbehaviour per law id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// A banner on stdout at start.
    QuietBeforeServing,
    /// A plain log line on stdout after the initialize result.
    StdoutIsProtocol,
    /// An error response (id null) to every notification but cancellations.
    NotificationUnanswered,
    /// A string id that holds a number is echoed as a number.
    RequestAnsweredOnce,
    /// A malformed line ends the process with status 1.
    ParseErrorKeepsServing,
    /// Unknown methods get an empty result instead of error -32601.
    UnknownMethod,
    /// `serverInfo` has no `version`.
    Initialize,
    /// `ping` answers `{"pong":true}`.
    Ping,
    /// `ping` answers `{"_meta":5}`: empty but for a `_meta` that is no
    /// object, which only the schema forbids.
    Schema,
    /// Serves 2026-07-28 with the draft-era -32004 for a version it does not
    /// serve, and no `_meta` required.
    Discover,
    /// Serves 2026-07-28 with `tools/list` lacking its `cacheScope`.
    ListCacheHints,
    /// A log notification without the `logging` capability.
    CapabilitiesHonest,
    /// `tools/list` is rotated, differently on every call.
    ToolsListSorted,
    /// The `fail` tool's inputSchema is `{}`.
    ToolsListValid,
    /// Malformed `tools/call` params get -32603 instead of -32602.
    InvalidParams,
    /// An unknown tool is an isError result.
    UnknownTool,
    /// Arguments that violate the inputSchema get -32602.
    ToolErrorIsResult,
    /// A cancellation is answered with an error (as Python SDK v1 does).
    CancelTolerated,
    /// End of input exits with status 3.
    EofExitZero,
    /// Requests that arrive back to back are answered only when more input
    /// comes, and dropped at end of input.
    EofDrains,
    /// SIGTERM exits with status 0.
    SigtermExit143,
}

/// A `notifications/tools/list_changed` line, tagged with the listen
/// stream `stream` when there is one.
fn list_changed(stream: Option<&RequestId>) -> String {
    let mut notification =
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    if let Some(stream) = stream {
        notification["params"]["_meta"] = json!({SUBSCRIPTION_ID: stream.to_value()});
    }
    notification.to_string()
}

fn parse_break(text: &str) -> Result<Break, String> {
    let law: LawId = text.parse()?;
    Ok(match law {
        LawId::QuietBeforeServing => Break::QuietBeforeServing,
        LawId::StdoutIsProtocol => Break::StdoutIsProtocol,
        LawId::NotificationUnanswered => Break::NotificationUnanswered,
        LawId::RequestAnsweredOnce => Break::RequestAnsweredOnce,
        LawId::ParseErrorKeepsServing => Break::ParseErrorKeepsServing,
        LawId::UnknownMethod => Break::UnknownMethod,
        LawId::Initialize => Break::Initialize,
        LawId::Ping => Break::Ping,
        LawId::Schema => Break::Schema,
        LawId::Discover => Break::Discover,
        LawId::ListCacheHints => Break::ListCacheHints,
        LawId::CapabilitiesHonest => Break::CapabilitiesHonest,
        LawId::ToolsListSorted => Break::ToolsListSorted,
        LawId::ToolsListValid => Break::ToolsListValid,
        LawId::InvalidParams => Break::InvalidParams,
        LawId::UnknownTool => Break::UnknownTool,
        LawId::ToolErrorIsResult => Break::ToolErrorIsResult,
        LawId::CancelTolerated => Break::CancelTolerated,
        LawId::EofExitZero => Break::EofExitZero,
        LawId::EofDrains => Break::EofDrains,
        LawId::SigtermExit143 => Break::SigtermExit143,
        LawId::TranscriptMatch => {
            return Err("use --echo-suffix to change recorded answers".to_owned());
        }
        other => return Err(format!("law `{other}` is reserved and has no probe yet")),
    })
}

/// The revisions the SDK-like modes know, oldest first.
const SDK_REVISIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn main() -> ExitCode {
    let flags = Flags::parse();
    if let Some(case) = flags.output_schema
        && case.name == "list"
    {
        // The list is this run's whole output, as `--help` is.
        #[allow(clippy::print_stdout)]
        for case in output_schema::CASES {
            println!("{} {}", case.name, case.keyword);
        }
        return ExitCode::SUCCESS;
    }
    if let Err(err) = prepare(&flags) {
        eprintln!("fixture-server: cannot start: {err}");
        return ExitCode::from(1);
    }
    let spoken_to = Arc::new(AtomicBool::new(false));
    if let Some(ms) = flags.idle_banner
        && let Err(err) = idle_banner(Duration::from_millis(ms), Arc::clone(&spoken_to))
    {
        eprintln!("fixture-server: cannot start: {err}");
        return ExitCode::from(1);
    }
    let fixture_modern_only = flags.modern_only;
    let mut fixture = Fixture {
        flags,
        tools_list_calls: 0,
        held: Vec::new(),
        late: None,
        spoken_to,
        stateless: fixture_modern_only,
        listed: false,
        discovered: 0,
        batching: false,
        collected: None,
        listening: None,
        cancelled: None,
        flood: None,
        out: io::stdout().lock(),
        wrote: false,
        fuzz: fuzz_tools::State::default(),
        era: EraState::default(),
        hung: false,
        log_floor: std::cell::Cell::new(None),
    };
    let served = match fixture.flags.eof_cancels {
        Some(ms) => fixture.serve_cancelling(Duration::from_millis(ms)),
        None => fixture.serve(BufReader::new(io::stdin().lock())),
    };
    // A fixed wait is the point: a server slow to stop.
    std::thread::sleep(Duration::from_millis(fixture.flags.slow_exit));
    match served {
        // A dead stdout is a closed channel: there is nobody left to tell.
        Ok(code) | Err(Stop::Exit(code)) => ExitCode::from(code),
        Err(Stop::Io(err)) => {
            eprintln!("fixture-server: {err}");
            ExitCode::from(1)
        }
    }
}

/// Everything that happens before serving: signals, the stderr flood, the
/// banner and the slow start.
fn prepare(flags: &Flags) -> io::Result<()> {
    // The SDKs install no handler: SIGTERM's default action ends them.
    if flags.like.is_none() {
        let code = if flags.breaks.contains(&Break::SigtermExit143) {
            0
        } else {
            143
        };
        let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGTERM])?;
        let slow_exit = Duration::from_millis(flags.slow_exit);
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                // A fixed wait is the point: a server slow to stop.
                std::thread::sleep(slow_exit);
                std::process::exit(code);
            }
        });
    }
    if flags.hostile {
        eprintln!("{HOSTILE}");
    }
    let mut left = flags.stderr_flood;
    let chunk = [b'e'; 64 * 1024];
    let mut stderr = io::stderr().lock();
    while left > 0 {
        let n = left.min(chunk.len());
        stderr.write_all(&chunk[..n])?;
        left -= n;
    }
    drop(stderr);
    if flags.breaks.contains(&Break::QuietBeforeServing) {
        let mut out = io::stdout().lock();
        out.write_all(b"fixture-server 0.1 starting\n")?;
        out.flush()?;
    }
    if flags.announce {
        let mut out = io::stdout().lock();
        out.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n")?;
        out.flush()?;
    }
    log_start(flags, "start")?;
    if flags.slow_start > 0 {
        // The one place a fixed wait is the point: a server that takes its
        // time to start.
        std::thread::sleep(Duration::from_millis(flags.slow_start));
    }
    Ok(())
}

/// Writes a text line on stdout once `after` has passed, unless input came
/// before that.
///
/// The line goes straight to fd 1, through a handle of its own: the serve
/// loop holds the lock of Rust's stdout for the whole session.
fn idle_banner(after: Duration, spoken_to: Arc<AtomicBool>) -> io::Result<()> {
    use std::os::fd::AsFd;
    let mut out = std::fs::File::from(io::stdout().as_fd().try_clone_to_owned()?);
    std::thread::spawn(move || {
        // A timer is the point here: the banner of a server that waits.
        std::thread::sleep(after);
        if !spoken_to.load(Ordering::SeqCst) {
            let _ = out.write_all("fixture-server: waiting for a client…\n".as_bytes());
        }
    });
    Ok(())
}

/// Appends `event` to the `--start-log` file, if there is one.
fn log_start(flags: &Flags, event: &str) -> io::Result<()> {
    if let Some(path) = &flags.start_log {
        // One append of a whole line, so lines of servers writing at once
        // never mix.
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?
            .write_all(format!("{event}\n").as_bytes())?;
    }
    Ok(())
}

/// Why the loop stopped early.
enum Stop {
    Io(io::Error),
    Exit(u8),
}

impl From<io::Error> for Stop {
    fn from(err: io::Error) -> Stop {
        Stop::Io(err)
    }
}

/// An error answer: its code, message and data.
type Refusal = (ErrorCode, String, Option<Value>);

/// A request read but not answered yet.
struct Held {
    id: RequestId,
    method: String,
    params: Option<Value>,
    /// The request was the first message of the process.
    first: bool,
}

/// What the `--era-flaw` and `--modern-per-request` modes remember.
#[derive(Debug, Default)]
struct EraState {
    /// A message has come.
    spoken_to: bool,
    /// `initialize` was answered with a result.
    initialized: bool,
    /// How many modern `tools/list` requests came, answered or refused.
    lists: usize,
}

struct Fixture {
    flags: Flags,
    tools_list_calls: usize,
    held: Vec<Held>,
    /// A parse error held back until the next answer (`--late-parse-error`).
    late: Option<String>,
    /// Set once the first line arrives (`--idle-banner`).
    spoken_to: Arc<AtomicBool>,
    /// Set once a modern request came (`--modern`): the process serves
    /// 2026-07-28 from then on.
    stateless: bool,
    /// Set once a modern `tools/list` was answered (`--modern-flaw stateful`).
    listed: bool,
    /// How many `server/discover` requests were answered
    /// (`--modern-flaw unstable-discover`).
    discovered: usize,
    /// Set once `initialize` answered 2025-03-26 (`--batches`): arrays are
    /// batches.
    batching: bool,
    /// The answers to the batch being handled, to go out as one array.
    collected: Option<Vec<String>>,
    /// The id of the open `subscriptions/listen` stream (`--listen`).
    listening: Option<RequestId>,
    /// A stream cancelled, whose notification follows the next answer
    /// (`--listen-flaw after-cancel`).
    cancelled: Option<RequestId>,
    /// The thread that floods the open stream (`--flood-listen`).
    flood: Option<excess::Flood>,
    out: io::StdoutLock<'static>,
    /// Whether a line has been written to stdout yet.
    wrote: bool,
    /// What the fuzz tools left to do (`--fuzz-bug`).
    fuzz: fuzz_tools::State,
    /// What the era modes remember.
    era: EraState,
    /// Set once a request the server hangs at came (`--hang-on`): nothing
    /// is answered any more.
    hung: bool,
    /// The level `logging/setLevel` set, as an index of [`LOG_LEVELS`].
    log_floor: std::cell::Cell<Option<usize>>,
}

impl Fixture {
    fn broken(&self, law: Break) -> bool {
        self.flags.breaks.contains(&law)
    }

    fn serve(&mut self, mut input: BufReader<impl Read>) -> Result<u8, Stop> {
        let mut line = Vec::new();
        loop {
            // An empty buffer means the next read waits for new input: what
            // follows arrived in a chunk of its own.
            let new_chunk = input.buffer().is_empty();
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            self.spoken_to.store(true, Ordering::SeqCst);
            if new_chunk && self.broken(Break::EofDrains) {
                self.answer_held(false)?;
            }
            let more = !input.buffer().is_empty();
            self.handle(trim_line(&line), more)?;
        }
        if !self.broken(Break::EofDrains) {
            self.answer_held(self.flags.out_of_order > 0)?;
        }
        if let Some(late) = self.late.take() {
            self.write(&late)?;
        }
        if let Some(flood) = self.flood.take() {
            flood.stop();
        }
        // A stream still open is closed with its result.
        if let Some(stream) = self.listening.take()
            && self.flags.listen_flaw != Some(ListenFlaw::NoClose)
        {
            let result =
                json!({"resultType": "complete", "_meta": {SUBSCRIPTION_ID: stream.to_value()}});
            self.write(&Response::ok(stream, result).to_line())?;
        }
        if self.flags.linger_at_eof {
            // The misbehaviour: a server that never exits on its own.
            loop {
                std::thread::park();
            }
        }
        Ok(if self.broken(Break::EofExitZero) {
            3
        } else {
            0
        })
    }

    /// `--eof-cancels`: a reader thread passes each line on as it arrives,
    /// and this loop handles it `delay` later; end of input ends the loop at
    /// once, whatever is still waiting.
    fn serve_cancelling(&mut self, delay: Duration) -> Result<u8, Stop> {
        use std::sync::mpsc::{self, RecvTimeoutError};
        use std::time::Instant;
        let (lines, read) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            loop {
                let mut line = Vec::new();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) if lines.send(line).is_err() => return,
                    Ok(_) => {}
                }
            }
        });
        let mut waiting: std::collections::VecDeque<(Instant, Vec<u8>)> =
            std::collections::VecDeque::new();
        loop {
            let next = match waiting.front() {
                Some((due, _)) => read.recv_timeout(due.saturating_duration_since(Instant::now())),
                None => read.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Ok(line) => {
                    self.spoken_to.store(true, Ordering::SeqCst);
                    waiting.push_back((Instant::now() + delay, line));
                }
                // End of input: what is in flight is dropped.
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
                Err(RecvTimeoutError::Timeout) => {}
            }
            while waiting
                .front()
                .is_some_and(|(due, _)| *due <= Instant::now())
            {
                if let Some((_, line)) = waiting.pop_front() {
                    self.handle(trim_line(&line), false)?;
                }
            }
        }
    }

    /// Handles one line; `more` says whether more input is already buffered
    /// behind it.
    fn handle(&mut self, line: &[u8], more: bool) -> Result<(), Stop> {
        let first = !std::mem::replace(&mut self.era.spoken_to, true);
        if self.batching
            && let Ok(Value::Array(members)) = serde_json::from_slice::<Value>(line)
        {
            return self.batch(members);
        }
        match Frame::parse(line) {
            // `--fuzz-bug stops-answering`: nothing is answered any more.
            Frame::Request { .. } if self.fuzz.deaf() || self.hung => Ok(()),
            Frame::Notification { method, .. }
                if first
                    && method == method::CANCELLED
                    && self.era_flawed(EraFlaw::CancelFirstExits) =>
            {
                eprintln!("fixture-server: expected a request first");
                Err(Stop::Exit(1))
            }
            Frame::Request { id, method, .. }
                if method == method::PING && self.flags.excess.huge_line.is_some() =>
            {
                let mib = self.flags.excess.huge_line.unwrap_or(0);
                self.write(&excess::huge_line(&id, mib))
            }
            Frame::Request { id, method, params } => {
                let held = Held {
                    id,
                    method,
                    params,
                    first,
                };
                if self.broken(Break::EofDrains) {
                    if more || !self.held.is_empty() {
                        self.held.push(held);
                        return Ok(());
                    }
                } else if self.flags.out_of_order > 0 {
                    self.held.push(held);
                    if !more || self.held.len() >= self.flags.out_of_order {
                        self.answer_held(true)?;
                    }
                    return Ok(());
                }
                self.answer(held)
            }
            Frame::Notification { method, params } => self.notification(&method, params),
            // A null id: the SDKs answer nothing (they read a notification,
            // or drop a line that fits none of their types); the core
            // library answers -32600 with id null.
            Frame::NullId { method, params } if self.flags.like.is_some() => {
                self.notification(&method, params)
            }
            Frame::NullId { .. } => self.write(
                &Response::error(None, ErrorCode::INVALID_REQUEST, "invalid request: null id")
                    .to_line(),
            ),
            Frame::Malformed { reason, .. } => self.malformed(line, &reason),
            // The fixture sends no requests, so a response answers nothing.
            Frame::Response { .. } => Ok(()),
        }
    }

    /// A JSON-RPC batch (`--batches`): each member handled in turn, and
    /// the answers written as one array (or as `--batch-flaw` says).
    fn batch(&mut self, members: Vec<Value>) -> Result<(), Stop> {
        self.collected = Some(Vec::new());
        for member in members {
            let notification = member.get("id").is_none();
            self.handle(member.to_string().as_bytes(), false)?;
            if notification && self.flags.batch_flaw == Some(BatchFlaw::AnswersNotifications) {
                self.write(
                    &Response::error(
                        None,
                        ErrorCode::INVALID_REQUEST,
                        "a notification in a batch",
                    )
                    .to_line(),
                )?;
            }
        }
        let answers = self.collected.take().unwrap_or_default();
        if answers.is_empty() {
            return Ok(());
        }
        if self.flags.batch_flaw == Some(BatchFlaw::OneByOne) {
            for answer in answers {
                self.write(&answer)?;
            }
            return Ok(());
        }
        self.write(&format!("[{}]", answers.join(",")))
    }

    fn answer_held(&mut self, reverse: bool) -> Result<(), Stop> {
        let mut held = std::mem::take(&mut self.held);
        if reverse {
            held.reverse();
        }
        for request in held {
            self.answer(request)?;
        }
        Ok(())
    }

    fn write(&mut self, line: &str) -> Result<(), Stop> {
        if let Some(collected) = &mut self.collected {
            collected.push(line.to_owned());
            return Ok(());
        }
        // A fuzz bug's stray line goes out before the answer it belongs to.
        for noise in self.fuzz.take_noise() {
            self.out.write_all(noise.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        if !self.wrote {
            // Before the line goes out, so that nothing its reader does
            // next can be logged before it.
            self.wrote = true;
            log_start(&self.flags, "answering")?;
        }
        // A flooding stream writes from a thread of its own: a line goes
        // out whole, between two of its lines.
        let flood = self.flood.as_ref();
        let _turn = flood.map(excess::Flood::turn);
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()?;
        self.fuzz.answered();
        Ok(())
    }

    fn malformed(&mut self, line: &[u8], reason: &str) -> Result<(), Stop> {
        eprintln!("fixture-server: malformed line: {reason}");
        if self.broken(Break::ParseErrorKeepsServing) {
            return Err(Stop::Exit(1));
        }
        match self.flags.like {
            Some(Like::Rmcp) if serde_json::from_slice::<Value>(line).is_ok() => self
                .write(r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#),
            Some(_) => Ok(()),
            None => {
                let answer = Response::error(
                    None,
                    ErrorCode::PARSE_ERROR,
                    format!("parse error: {reason}"),
                )
                .to_line();
                if self.flags.late_parse_error {
                    self.late = Some(answer);
                    return Ok(());
                }
                self.write(&answer)
            }
        }
    }

    fn notification(&mut self, name: &str, params: Option<Value>) -> Result<(), Stop> {
        if name == method::CANCELLED
            && let Some(stream) = self.listening.clone()
            && params.as_ref().and_then(|p| p.get("requestId")) == Some(&stream.to_value())
        {
            self.listening = None;
            if let Some(flood) = self.flood.take() {
                flood.stop();
            }
            if self.flags.listen_flaw == Some(ListenFlaw::AfterCancel) {
                self.cancelled = Some(stream);
            }
            return Ok(());
        }
        if name == method::CANCELLED {
            if self.broken(Break::CancelTolerated) {
                let id = params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value);
                let response = Response::error(id, ErrorCode(0), "Request cancelled");
                return self.write(&response.to_line());
            }
        } else if self.broken(Break::NotificationUnanswered) {
            let response = Response::error(
                None,
                ErrorCode::METHOD_NOT_FOUND,
                format!("no handler for {name}"),
            );
            return self.write(&response.to_line());
        }
        Ok(())
    }

    /// Whether the fixture serves 2026-07-28 too.
    fn modern(&self) -> bool {
        self.flags.modern
            || self.flags.output_schema.is_some()
            || self.flags.modern_only
            || self.flags.modern_flaw.is_some()
            || self.flags.modern_per_request
            || self.flags.era_flaw.is_some()
            || self.broken(Break::Discover)
            || self.broken(Break::ListCacheHints)
    }

    fn flawed(&self, flaw: Flaw) -> bool {
        self.flags.modern_flaw == Some(flaw)
    }

    /// A request the server ends at (`--crash-on`: the process exits with
    /// status 1) or hangs at (`--hang-on`: returns `true`, and nothing is
    /// answered from now on).
    fn fatal(&mut self, at: Fatal) -> bool {
        if self.flags.crash_on.contains(&at) {
            eprintln!("fixture-server: crashed at {at:?}");
            std::process::exit(1);
        }
        if self.flags.hang_on.contains(&at) {
            eprintln!("fixture-server: hung at {at:?}");
            self.hung = true;
        }
        self.hung
    }

    fn era_flawed(&self, flaw: EraFlaw) -> bool {
        self.flags.era_flaw == Some(flaw)
    }

    /// The answer to a request that names a protocol version in its
    /// `_meta` (or is `server/discover`), as 2026-07-28 asks; `None` for a
    /// legacy request.
    fn modern_answer(
        &mut self,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Result<Value, Refusal>> {
        let meta = params.and_then(|p| p.get("_meta"));
        let version = meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str);
        // The client's first move picks the era: once a modern request has
        // come, every later one is modern too, and one without `_meta` is
        // malformed rather than legacy.
        // `--modern-per-request`: each request names its own era.
        let sticky = self.stateless && !self.flags.modern_per_request;
        if version.is_none() && method != "server/discover" && !sticky {
            return None;
        }
        self.stateless = true;
        if method == method::TOOLS_LIST {
            self.era.lists += 1;
        }
        if method == "server/discover" && self.era_flawed(EraFlaw::NoDiscover) {
            return Some(Err((
                ErrorCode::METHOD_NOT_FOUND,
                "method not found: server/discover".to_owned(),
                None,
            )));
        }
        if method == method::INITIALIZE && self.flags.modern_only {
            // The revision leaves the code open (to a modern server
            // `initialize` is unknown and lacks its `_meta`), and asks that
            // the error name the versions served.
            if self.flawed(Flaw::UnnamedVersions) {
                return Some(Err((
                    ErrorCode::METHOD_NOT_FOUND,
                    "method not found: initialize".to_owned(),
                    None,
                )));
            }
            return Some(Err((
                ErrorCode::METHOD_NOT_FOUND,
                "initialize is not served: this server speaks 2026-07-28 only".to_owned(),
                Some(json!({"supported": ["2026-07-28"]})),
            )));
        }
        if self.flawed(Flaw::RequiresClientInfo)
            && version.is_some()
            && meta
                .and_then(|m| m.get("io.modelcontextprotocol/clientInfo"))
                .is_none()
        {
            return Some(Err((
                ErrorCode::INVALID_PARAMS,
                "params._meta is missing `io.modelcontextprotocol/clientInfo`".to_owned(),
                None,
            )));
        }
        let lax = self.broken(Break::Discover) || self.flawed(Flaw::MetaOptional);
        let capabilities = meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
        if !lax && (version.is_none() || capabilities.is_none()) {
            let missing = if version.is_none() {
                "io.modelcontextprotocol/protocolVersion"
            } else {
                "io.modelcontextprotocol/clientCapabilities"
            };
            return Some(Err((
                ErrorCode::INVALID_PARAMS,
                format!("params._meta is missing `{missing}`"),
                None,
            )));
        }
        let log_level = meta.and_then(|m| m.get("io.modelcontextprotocol/logLevel"));
        if self.flags.logging
            && self.flags.logging_flaw != Some(LoggingFlaw::AnyLevel)
            && let Some(level) = log_level
            && !level
                .as_str()
                .is_some_and(|level| LOG_LEVELS.contains(&level))
        {
            return Some(Err((
                ErrorCode::INVALID_PARAMS,
                format!("params._meta `io.modelcontextprotocol/logLevel` {level} is no log level"),
                None,
            )));
        }
        if let Some(version) = version
            && version != "2026-07-28"
        {
            let code = if self.broken(Break::Discover) || self.flawed(Flaw::DraftVersionError) {
                ErrorCode(-32004)
            } else {
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            };
            let supported = if self.flawed(Flaw::MismatchedSupported) {
                json!(["2026-07-28", "2027-01-01"])
            } else {
                json!(["2026-07-28"])
            };
            let data = json!({"supported": supported, "requested": version});
            return Some(Err((
                code,
                "Unsupported protocol version".to_owned(),
                Some(data),
            )));
        }
        let hints = |mut result: Value, scope: bool| {
            result["resultType"] = json!("complete");
            result["ttlMs"] = json!(0);
            if scope {
                result["cacheScope"] = json!("public");
            }
            result
        };
        if method == "server/discover" {
            self.discovered += 1;
        }
        let versions = if self.flawed(Flaw::UnstableDiscover) && self.discovered % 2 == 0 {
            json!(["2026-07-28", "2025-11-25"])
        } else {
            json!(["2026-07-28"])
        };
        let tools_capability = if self.flawed(Flaw::WrongShape) {
            json!(true)
        } else if self.flags.listen {
            json!({"listChanged": true})
        } else {
            json!({})
        };
        if let Some(outcome) = self.content(method, params, true) {
            return Some(outcome.map_err(|(code, message)| (code, message, None)));
        }
        Some(match method {
            method::TOOLS_LIST | method::TOOLS_CALL
                if self.flawed(Flaw::NeedsDiscover) && self.discovered == 0 =>
            {
                Err((
                    ErrorCode::INVALID_REQUEST,
                    "send server/discover first".to_owned(),
                    None,
                ))
            }
            "server/discover" => {
                let mut capabilities = json!({"tools": tools_capability});
                if self.flags.prompts_resources {
                    capabilities["prompts"] = json!({});
                    capabilities["resources"] = json!({});
                }
                self.family_capabilities(&mut capabilities, true);
                let mut result = hints(
                    json!({"supportedVersions": versions, "capabilities": capabilities}),
                    true,
                );
                if self.flawed(Flaw::UnstableDiscover) {
                    result["ttlMs"] = json!(60_000);
                }
                Ok(result)
            }
            method::TOOLS_LIST => {
                let mut tools = self.tools();
                if self.flawed(Flaw::UnsortedTools) {
                    tools.rotate_left(1 + self.tools_list_calls % 2);
                    self.tools_list_calls += 1;
                }
                let mut result = hints(
                    json!({ "tools": tools }),
                    !self.broken(Break::ListCacheHints),
                );
                if self.flawed(Flaw::NoResultType)
                    && let Some(object) = result.as_object_mut()
                {
                    object.remove("resultType");
                }
                if self.flawed(Flaw::BadCacheHints) {
                    result["ttlMs"] = json!(-1);
                    result["cacheScope"] = json!("everyone");
                }
                if self.era.lists == 1
                    && self.era_flawed(EraFlaw::FirstListWithoutHints)
                    && let Some(object) = result.as_object_mut()
                {
                    object.remove("ttlMs");
                    object.remove("cacheScope");
                }
                self.listed = true;
                Ok(result)
            }
            method::PING if self.flawed(Flaw::AnswersPing) => Ok(json!({"resultType": "complete"})),
            method::TOOLS_CALL if self.flags.input_required == Some(InputRequired::Always) => {
                Ok(json!({"resultType": "input_required", "requestState": FIXTURE_STATE}))
            }
            method::TOOLS_CALL if self.flawed(Flaw::Stateful) && !self.listed => Err((
                ErrorCode::INVALID_REQUEST,
                "call tools/list first".to_owned(),
                None,
            )),
            method::TOOLS_CALL => {
                let answer = if self.flawed(Flaw::UnknownToolResult) && !self.knows(params) {
                    let name = params
                        .and_then(|p| p.get("name"))
                        .map_or(json!(null), Clone::clone);
                    Ok(tool_result(&format!("Unknown tool: {name}"), true))
                } else {
                    self.tools_call(params.cloned())
                };
                match answer {
                    Ok(result)
                        if self.flawed(Flaw::InvalidArgumentsError)
                            && result.get("isError") == Some(&Value::Bool(true)) =>
                    {
                        Err((
                            ErrorCode::INVALID_PARAMS,
                            "invalid arguments".to_owned(),
                            None,
                        ))
                    }
                    Ok(result)
                        if self.flags.excess.huge_state.is_some()
                            && result.get("isError") != Some(&Value::Bool(true)) =>
                    {
                        Ok(excess::input_required(&self.flags.excess))
                    }
                    Ok(result)
                        if self.flags.input_required.is_some()
                            && result.get("isError") != Some(&Value::Bool(true))
                            && params.and_then(|p| p.get("requestState")).is_none() =>
                    {
                        let mode = self.flags.input_required;
                        Ok(match mode {
                            Some(InputRequired::Bare) => json!({"resultType": "input_required"}),
                            Some(InputRequired::Asks) => json!({
                                "resultType": "input_required",
                                "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                                    "message": "Go on?",
                                    "requestedSchema": {"type": "object", "properties": {"go": {"type": "boolean"}}}
                                }}},
                                "requestState": FIXTURE_STATE,
                            }),
                            _ => {
                                json!({"resultType": "input_required", "requestState": FIXTURE_STATE})
                            }
                        })
                    }
                    Ok(result)
                        if self.flags.input_required.is_some()
                            && result.get("isError") != Some(&Value::Bool(true))
                            && params.and_then(|p| p.get("requestState"))
                                != Some(&json!(FIXTURE_STATE)) =>
                    {
                        if self.flags.input_required == Some(InputRequired::ForgedExits) {
                            std::process::exit(1);
                        }
                        Err((
                            ErrorCode::INVALID_PARAMS,
                            "unknown requestState".to_owned(),
                            None,
                        ))
                    }
                    Ok(result)
                        if self.flags.input_required == Some(InputRequired::RetryError)
                            && result.get("isError") != Some(&Value::Bool(true)) =>
                    {
                        Err((
                            ErrorCode::INTERNAL_ERROR,
                            "lost the request's state".to_owned(),
                            None,
                        ))
                    }
                    Ok(mut result) => {
                        result["resultType"] = json!("complete");
                        if result.get("isError") != Some(&Value::Bool(true)) {
                            if self.era_flawed(EraFlaw::CallWithoutContent)
                                && let Some(object) = result.as_object_mut()
                            {
                                object.remove("content");
                            }
                            if self.era_flawed(EraFlaw::UnknownContentType) {
                                result["content"] =
                                    json!([{"type": "hologram", "text": "a block of no revision"}]);
                            }
                        }
                        Ok(result)
                    }
                    Err((code, message)) => Err((code, message, None)),
                }
            }
            other => Err((
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {other}"),
                None,
            )),
        })
    }

    /// Opens a `subscriptions/listen` stream (`--listen`): the
    /// acknowledgement of what the fixture serves, then one tagged change.
    fn listen(&mut self, id: RequestId) -> Result<(), Stop> {
        let flaw = self.flags.listen_flaw;
        if flaw != Some(ListenFlaw::NoAck) {
            let ack = json!({
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "notifications": {"toolsListChanged": true},
                    "_meta": {SUBSCRIPTION_ID: id.to_value()},
                },
            });
            self.write(&ack.to_string())?;
        }
        let tag = (flaw != Some(ListenFlaw::Untagged)).then_some(&id);
        self.write(&list_changed(tag))?;
        if self.flags.excess.flood_listen.is_some() {
            self.flood = Some(excess::Flood::start(list_changed(tag))?);
        }
        self.listening = Some(id);
        Ok(())
    }

    /// Answers `request`: with the log messages `--logging` sends before a
    /// `tools/call` answer, the progress `--progress-mode` reports, and the
    /// resource update `--subscribe` sends after a subscription.
    fn answer(&mut self, request: Held) -> Result<(), Stop> {
        if self.flood.is_some()
            && let Some(pace) = self.flags.excess.flood_listen
            && request.method != method::PING
        {
            // A fixed wait is the point: a server that answers slowly
            // while its stream floods.
            std::thread::sleep(Duration::from_millis(pace));
        }
        if self.flags.logging && request.method == method::TOOLS_CALL {
            self.log_before(request.params.as_ref())?;
        }
        let subscribed = match request.method.as_str() {
            "resources/subscribe" if self.flags.subscribe && !self.stateless => request
                .params
                .as_ref()
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        };
        self.answer_with_progress(request)?;
        if let Some(stream) = self.cancelled.take() {
            self.write(&list_changed(Some(&stream)))?;
        }
        if let Some(uri) = subscribed {
            let uri = match self.flags.subscribe_flaw {
                Some(SubscribeFlaw::NotServed) => return Ok(()),
                Some(SubscribeFlaw::OtherUri) => "fixture://elsewhere".to_owned(),
                None => uri,
            };
            let update = json!({
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": uri},
            });
            self.write(&update.to_string())?;
        }
        Ok(())
    }

    /// The log messages `--logging` sends before a `tools/call` answer: at
    /// `info` and `error`, those at or above the level set (legacy), or
    /// the level the request's `_meta` asks for (2026-07-28, none when it
    /// asks for none), as `--logging-flaw` says.
    fn log_before(&mut self, params: Option<&Value>) -> Result<(), Stop> {
        let flaw = self.flags.logging_flaw;
        let request_meta = params.and_then(|p| p.get("_meta"));
        let modern = request_meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .is_some();
        let asked = request_meta
            .and_then(|m| m.get("io.modelcontextprotocol/logLevel"))
            .and_then(Value::as_str)
            .and_then(|level| LOG_LEVELS.iter().position(|l| *l == level));
        for level in ["info", "error"] {
            let index = LOG_LEVELS.iter().position(|l| *l == level).unwrap_or(0);
            let send = match modern {
                true => match asked {
                    Some(floor) => index >= floor,
                    None => flaw == Some(LoggingFlaw::Unasked),
                },
                false => {
                    flaw == Some(LoggingFlaw::IgnoresLevel)
                        || index >= self.log_floor.get().unwrap_or(0)
                }
            };
            if send {
                let message = json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": level, "logger": "fixture", "data": "calling a tool"},
                });
                self.write(&message.to_string())?;
            }
        }
        Ok(())
    }

    /// Answers `request`, with the progress `--progress-mode` reports
    /// around the answer to a `tools/call` that carries a progress token.
    fn answer_with_progress(&mut self, request: Held) -> Result<(), Stop> {
        let token = match (&self.flags.progress_mode, request.method.as_str()) {
            (Some(_), method::TOOLS_CALL) => request
                .params
                .as_ref()
                .and_then(|p| p.pointer("/_meta/progressToken"))
                .cloned(),
            _ => None,
        };
        let Some(token) = token else {
            return self.answer_one(request);
        };
        let progress = |token: &Value, progress: u32| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": progress, "total": 2},
            })
            .to_string()
        };
        let mode = self.flags.progress_mode;
        let before: &[u32] = match mode {
            Some(ProgressMode::Decreasing) => &[2, 1],
            Some(ProgressMode::UnknownToken) => &[],
            _ => &[1, 2],
        };
        for step in before {
            self.write(&progress(&token, *step))?;
        }
        if mode == Some(ProgressMode::UnknownToken) {
            self.write(&progress(&json!("fixture-no-such-token"), 1))?;
        }
        self.answer_one(request)?;
        if mode == Some(ProgressMode::AfterAnswer) {
            self.write(&progress(&token, 3))?;
        }
        Ok(())
    }

    fn answer_one(&mut self, request: Held) -> Result<(), Stop> {
        let Held {
            id,
            method,
            params,
            first,
        } = request;
        if first && method == method::PING && self.era_flawed(EraFlaw::FirstPingLegacy) {
            return self.write(&Response::ok(id, json!({})).to_line());
        }
        if method == method::TOOLS_CALL
            && params.as_ref().and_then(|p| p.get("name")).is_none()
            && self.fatal(Fatal::NamelessCall)
        {
            return Ok(());
        }
        if self.flags.listen && self.modern() && method == "subscriptions/listen" {
            return self.listen(id);
        }
        if self.flags.listen_flaw == Some(ListenFlaw::Unsolicited)
            && self.stateless
            && method == method::TOOLS_LIST
        {
            self.write(&list_changed(None))?;
        }
        if self.modern()
            && let Some(outcome) = self.modern_answer(&method, params.as_ref())
        {
            let response = match outcome {
                Ok(mut result) => {
                    if !self.flawed(Flaw::NoServerInfo) && result.is_object() {
                        result["_meta"] = json!({
                            "io.modelcontextprotocol/serverInfo": {"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")}
                        });
                    }
                    Response::ok(id, result)
                }
                Err((code, message, data)) => {
                    let response = Response::error(Some(id), code, message);
                    match data {
                        Some(data) => response.with_data(data),
                        None => response,
                    }
                }
            };
            if self.flawed(Flaw::ServerRequest) && method == method::TOOLS_LIST {
                self.write(r#"{"jsonrpc":"2.0","id":"fixture-1","method":"roots/list"}"#)?;
            }
            return self.write(&response.to_line());
        }
        if self.flags.unsolicited {
            self.write(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)?;
        }
        let id = match &id.to_value() {
            Value::String(text) if self.broken(Break::RequestAnsweredOnce) => {
                text.parse::<i64>().map_or(id, RequestId::number)
            }
            _ => id,
        };
        if method == method::INITIALIZE
            && self.flags.refuse_unknown_revision
            && let Some(requested) = params
                .as_ref()
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .filter(|requested| *requested != PROTOCOL_2024_11_05)
        {
            let data = json!({"supported": [PROTOCOL_2024_11_05], "requested": requested});
            let response = Response::error(
                Some(id),
                ErrorCode::INVALID_PARAMS,
                "Unsupported protocol version",
            )
            .with_data(data);
            return self.write(&response.to_line());
        }
        if method == method::INITIALIZE && self.era_flawed(EraFlaw::NoDiscover) {
            let requested = params
                .as_ref()
                .and_then(|p| p.get("protocolVersion"))
                .cloned()
                .unwrap_or(Value::Null);
            let data = json!({"supported": ["2026-07-28"], "requested": requested});
            let response = Response::error(
                Some(id),
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version: this server speaks 2026-07-28",
            )
            .with_data(data);
            return self.write(&response.to_line());
        }
        if self.flags.deaf_before_initialize
            && !self.era.initialized
            && method != method::INITIALIZE
        {
            return Ok(());
        }
        if self.flags.modern_per_request
            && !self.era.initialized
            && method != method::INITIALIZE
            && method != method::PING
        {
            let response = Response::error(
                Some(id),
                ErrorCode::INVALID_PARAMS,
                format!("{method} before initialize: send initialize, or a 2026-07-28 request"),
            );
            return self.write(&response.to_line());
        }
        let content = self.content(&method, params.as_ref(), false);
        let outcome = match method.as_str() {
            _ if content.is_some() => content.unwrap_or(Ok(Value::Null)),
            method::INITIALIZE => {
                self.era.initialized = true;
                let result = self.initialize(params.as_ref());
                self.batching = self.flags.batches && result["protocolVersion"] == "2025-03-26";
                Ok(result)
            }
            method::PING if self.flags.hostile => {
                Err((ErrorCode::INTERNAL_ERROR, HOSTILE.to_owned()))
            }
            method::PING if self.broken(Break::Ping) => Ok(json!({"pong": true})),
            method::PING if self.broken(Break::Schema) => Ok(json!({"_meta": 5})),
            method::PING => Ok(json!({})),
            method::TOOLS_LIST => self.tools_list(params.as_ref()),
            method::TOOLS_CALL => self.tools_call(params),
            _ if self.broken(Break::UnknownMethod) => Ok(json!({})),
            _ if self.fatal(Fatal::UnknownMethod) => return Ok(()),
            other => Err(if self.flags.like == Some(Like::PythonSdkV1) {
                (
                    ErrorCode::INVALID_PARAMS,
                    "Invalid request parameters".to_owned(),
                )
            } else {
                (
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("method not found: {other}"),
                )
            }),
        };
        let response = match outcome {
            Ok(result) => Response::ok(id, result),
            Err((code, message)) => Response::error(Some(id), code, message),
        };
        self.write(&response.to_line())?;
        if let Some(late) = self.late.take() {
            self.write(&late)?;
        }
        if method == method::INITIALIZE {
            if self.broken(Break::StdoutIsProtocol) {
                self.write("fixture-server: serving")?;
            }
            if self.broken(Break::CapabilitiesHonest) {
                self.write(
                    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"serving"}}"#,
                )?;
            }
        }
        Ok(())
    }

    fn initialize(&self, params: Option<&Value>) -> Value {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = match (self.flags.like, requested) {
            (None, _) if self.flags.fuzz.revision().is_some() => {
                self.flags.fuzz.revision().unwrap_or_default()
            }
            // The fuzz tools declare annotations and an outputSchema: the
            // revision asked for, as the SDKs answer it.
            (None, Some(requested))
                if self.flags.fuzz.enabled() && SDK_REVISIONS.contains(&requested) =>
            {
                requested
            }
            (None, _) if self.flags.fuzz.enabled() => SDK_REVISIONS[SDK_REVISIONS.len() - 1],
            (None, Some("2025-03-26")) if self.flags.batches => "2025-03-26",
            (None, _) => PROTOCOL_2024_11_05,
            // The SDKs echo a revision they know, and otherwise answer their
            // latest.
            (Some(_), Some(requested)) if SDK_REVISIONS.contains(&requested) => requested,
            (Some(_), _) => SDK_REVISIONS[SDK_REVISIONS.len() - 1],
        };
        let mut server_info =
            json!({"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")});
        if self.broken(Break::Initialize) {
            server_info = json!({"name": "fixture-server"});
        }
        let mut capabilities = if self.flags.undeclared_tools {
            json!({})
        } else {
            json!({"tools": {"listChanged": self.flags.unsolicited || self.flags.announce}})
        };
        if self.flags.prompts_resources {
            capabilities["prompts"] = json!({});
            capabilities["resources"] = json!({});
        }
        self.family_capabilities(&mut capabilities, false);
        json!({
            "protocolVersion": version,
            "serverInfo": server_info,
            "capabilities": capabilities,
        })
    }

    /// The capabilities of `--completions`, `--logging` and `--subscribe`
    /// (subscriptions on the legacy revisions only).
    fn family_capabilities(&self, capabilities: &mut Value, modern: bool) {
        if self.flags.completions {
            capabilities["completions"] = json!({});
        }
        if self.flags.logging {
            capabilities["logging"] = json!({});
        }
        if self.flags.subscribe && !modern && capabilities.get("resources").is_some() {
            capabilities["resources"]["subscribe"] = json!(true);
        }
    }

    /// The icons of what the fixture lists (`--icons`), as `--icon-flaw`
    /// says.
    fn icons(&self) -> Value {
        let (src, sizes) = match self.flags.icon_flaw {
            Some(IconFlaw::NotAUri) => ("icons/fixture.png", "48x48"),
            Some(IconFlaw::OddScheme) => ("ftp://example.com/fixture.png", "48x48"),
            Some(IconFlaw::BadSizes) => ("https://example.com/fixture.png", "big"),
            None => ("https://example.com/fixture.png", "48x48"),
        };
        json!([{"src": src, "mimeType": "image/png", "sizes": [sizes]}])
    }

    /// `items`, each with the icons of `--icons` when it is given.
    fn with_icons(&self, mut items: Vec<Value>) -> Vec<Value> {
        if self.flags.icons {
            for item in &mut items {
                item["icons"] = self.icons();
            }
        }
        items
    }

    /// One page of the list of `items` under `key`, as `--page-size` and
    /// `--lax-cursor` (and `--content-flaw endless-pages`) say.
    fn page(
        &self,
        key: &str,
        items: Vec<Value>,
        params: Option<&Value>,
    ) -> Result<Value, (ErrorCode, String)> {
        let items = self.with_icons(items);
        let cursor = params.and_then(|p| p.get("cursor"));
        if key == "resources" && self.flags.content_flaw == Some(ContentFlaw::EndlessPages) {
            let next = cursor
                .and_then(Value::as_str)
                .and_then(|c| c.parse::<u64>().ok())
                .map_or(1, |n| n + 1);
            return Ok(json!({ key: items, "nextCursor": next.to_string() }));
        }
        let Some(page_size) = self.flags.page_size else {
            return Ok(json!({ key: items }));
        };
        let start = match cursor {
            None => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| c.parse::<usize>().ok())
                .filter(|start| *start < items.len())
            {
                Some(start) => start,
                None if self.flags.lax_cursor => 0,
                None => {
                    return Err((
                        ErrorCode::INVALID_PARAMS,
                        format!("invalid cursor {cursor}"),
                    ));
                }
            },
        };
        let end = (start + page_size.max(1)).min(items.len());
        let mut page = json!({ key: items[start..end] });
        if end < items.len() {
            page["nextCursor"] = json!(end.to_string());
        }
        Ok(page)
    }

    /// `completion/complete` (`--completions`): values for an argument of
    /// a prompt listed or a variable of the template listed, -32602 for
    /// anything else, as `--completion-flaw` says.
    fn complete(&self, params: Option<&Value>) -> Result<Value, (ErrorCode, String)> {
        let flaw = self.flags.completion_flaw;
        if flaw == Some(CompletionFlaw::NotServed) {
            return Err((
                ErrorCode::METHOD_NOT_FOUND,
                "method not found: completion/complete".to_owned(),
            ));
        }
        let reference = params.and_then(|p| p.get("ref"));
        let known = match reference
            .and_then(|r| r.get("type"))
            .and_then(Value::as_str)
        {
            Some("ref/prompt") => matches!(
                reference
                    .and_then(|r| r.get("name"))
                    .and_then(Value::as_str),
                Some("greet" | "review")
            ),
            Some("ref/resource") => {
                reference.and_then(|r| r.get("uri")).and_then(Value::as_str)
                    == Some("fixture://notes/{name}")
            }
            _ => false,
        };
        if !known && flaw != Some(CompletionFlaw::UnknownRefResult) {
            return Err((ErrorCode::INVALID_PARAMS, "unknown reference".to_owned()));
        }
        let values: Vec<String> = match flaw {
            Some(CompletionFlaw::TooMany) => (0..101).map(|n| format!("value-{n}")).collect(),
            _ => vec!["alpha".to_owned(), "beta".to_owned()],
        };
        let total = values.len();
        Ok(json!({"completion": {"values": values, "total": total, "hasMore": false}}))
    }

    /// `logging/setLevel` (`--logging`, legacy): a level sets the floor of
    /// the log messages sent from then on; anything else is -32602, as
    /// `--logging-flaw` says.
    fn set_level(&self, params: Option<&Value>) -> Result<Value, (ErrorCode, String)> {
        let flaw = self.flags.logging_flaw;
        if flaw == Some(LoggingFlaw::NoSetLevel) {
            return Err((
                ErrorCode::METHOD_NOT_FOUND,
                "method not found: logging/setLevel".to_owned(),
            ));
        }
        let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
        match level.and_then(|level| LOG_LEVELS.iter().position(|l| *l == level)) {
            Some(floor) => {
                self.log_floor.set(Some(floor));
                Ok(json!({}))
            }
            None if flaw == Some(LoggingFlaw::AnyLevel) => Ok(json!({})),
            None => Err((ErrorCode::INVALID_PARAMS, "unknown log level".to_owned())),
        }
    }

    /// The answer to a prompts or resources request (`--prompts-resources`),
    /// in 2026-07-28 when `modern` (with `resultType` and the cache hints);
    /// `None` for another method, or without the flag.
    fn content(
        &self,
        method: &str,
        params: Option<&Value>,
        modern: bool,
    ) -> Option<Result<Value, (ErrorCode, String)>> {
        let family = matches!(
            method,
            "completion/complete"
                | "logging/setLevel"
                | "resources/subscribe"
                | "resources/unsubscribe"
        );
        if !self.flags.prompts_resources && !family {
            return None;
        }
        let flaw = self.flags.content_flaw;
        let not_found = |what: &str| {
            Err((
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {what}"),
            ))
        };
        let uri = "fixture://readme";
        let known = ["fixture://readme", "fixture://notes"];
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        let arguments = params.and_then(|p| p.get("arguments"));
        let answer = match method {
            "prompts/list" => self.page(
                "prompts",
                vec![
                    json!({"name": "greet", "description": "A greeting"}),
                    json!({"name": "review", "description": "A review of some code",
                        "arguments": [{"name": "code", "description": "The code", "required": true}]}),
                ],
                params,
            ),
            "prompts/get" if flaw == Some(ContentFlaw::NoPromptGet) => not_found(method),
            "prompts/get" => match name {
                Some("greet") => Ok(
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}]}),
                ),
                Some("review") => match arguments.and_then(|a| a.get("code")) {
                    Some(Value::String(code)) => Ok(
                        json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Review: {code}")}}]}),
                    ),
                    _ if flaw == Some(ContentFlaw::MissingArgumentResult) => Ok(
                        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Review: "}}]}),
                    ),
                    _ => Err((
                        ErrorCode::INVALID_PARAMS,
                        "missing the required argument `code`".to_owned(),
                    )),
                },
                _ if flaw == Some(ContentFlaw::UnknownPromptResult) => Ok(json!({"messages": []})),
                _ => Err((ErrorCode::INVALID_PARAMS, "unknown prompt".to_owned())),
            },
            "resources/list" => self.page(
                "resources",
                vec![
                    json!({"uri": uri, "name": "readme"}),
                    json!({"uri": "fixture://notes", "name": "notes"}),
                ],
                params,
            ),
            "resources/templates/list" if flaw == Some(ContentFlaw::NoTemplates) => {
                not_found(method)
            }
            "resources/templates/list" => self.page(
                "resourceTemplates",
                vec![json!({"uriTemplate": "fixture://notes/{name}", "name": "a note"})],
                params,
            ),
            "resources/read" => {
                let asked = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
                match asked {
                    Some(asked)
                        if known.contains(&asked) && flaw != Some(ContentFlaw::Unreadable) =>
                    {
                        Ok(
                            json!({"contents": [{"uri": asked, "mimeType": "text/plain", "text": "read me"}]}),
                        )
                    }
                    _ if flaw == Some(ContentFlaw::UnknownUriResult) => Ok(json!({"contents": []})),
                    // 2026-07-28 makes an unknown resource -32602; the
                    // legacy revisions suggest -32002.
                    _ if modern => {
                        Err((ErrorCode::INVALID_PARAMS, "resource not found".to_owned()))
                    }
                    _ => Err((ErrorCode(-32002), "resource not found".to_owned())),
                }
            }
            "completion/complete" if self.flags.completions => self.complete(params),
            "logging/setLevel" if self.flags.logging && !modern => return Some(self.set_level(params)),
            "resources/subscribe" | "resources/unsubscribe" if self.flags.subscribe && !modern => {
                match self.flags.subscribe_flaw {
                    Some(SubscribeFlaw::NotServed) => not_found(method),
                    _ => Ok(json!({})),
                }
            }
            _ => return None,
        };
        // `--input-required` asks for input before a prompt too.
        if modern
            && method == "prompts/get"
            && answer.is_ok()
            && let Some(mode) = self.flags.input_required
        {
            let state = params.and_then(|p| p.get("requestState"));
            match (mode, state) {
                (InputRequired::Bare, None) => {
                    return Some(Ok(json!({"resultType": "input_required"})));
                }
                (_, None) => {
                    return Some(Ok(
                        json!({"resultType": "input_required", "requestState": FIXTURE_STATE}),
                    ));
                }
                (InputRequired::ForgedExits, Some(state)) if state != FIXTURE_STATE => {
                    std::process::exit(1)
                }
                (_, Some(state)) if state != FIXTURE_STATE => {
                    return Some(Err((
                        ErrorCode::INVALID_PARAMS,
                        "unknown requestState".to_owned(),
                    )));
                }
                (InputRequired::RetryError, _) => {
                    return Some(Err((
                        ErrorCode::INTERNAL_ERROR,
                        "lost the request's state".to_owned(),
                    )));
                }
                _ => {}
            }
        }
        Some(answer.map(|mut result| {
            if modern {
                result["resultType"] = json!("complete");
                let cacheable = method.ends_with("/list") || method == "resources/read";
                if cacheable {
                    result["ttlMs"] = json!(0);
                    result["cacheScope"] = json!("public");
                }
                if method == "resources/read"
                    && flaw == Some(ContentFlaw::ReadWithoutHints)
                    && let Some(object) = result.as_object_mut()
                {
                    object.remove("ttlMs");
                    object.remove("cacheScope");
                }
                // `--content-flaw mixed-scope`: every page after the first
                // private.
                let paged = params.and_then(|p| p.get("cursor")).is_some();
                if paged && cacheable && flaw == Some(ContentFlaw::MixedScope) {
                    result["cacheScope"] = json!("private");
                }
            }
            result
        }))
    }

    /// Whether a `tools/call`'s params name a tool the fixture serves (a
    /// call without a name is no call of an unknown tool).
    fn knows(&self, params: Option<&Value>) -> bool {
        match params.and_then(|p| p.get("name")).and_then(Value::as_str) {
            Some(name) => self.tools().iter().any(|tool| tool["name"] == name),
            None => true,
        }
    }

    fn tools(&self) -> Vec<Value> {
        let mut tools = self.own_tools();
        tools.extend(excess::tools(&self.flags.excess));
        tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        if self.flags.no_annotations {
            for tool in &mut tools {
                if let Some(tool) = tool.as_object_mut() {
                    tool.remove("annotations");
                }
            }
        }
        tools
    }

    fn own_tools(&self) -> Vec<Value> {
        if self.flags.fuzz.enabled() {
            return fuzz_tools::tools(&self.flags.fuzz);
        }
        let fail_schema = if self.broken(Break::ToolsListValid) {
            json!({})
        } else {
            json!({"type": "object", "properties": {}})
        };
        let mut add = json!({
            "name": "add",
            "description": "Adds two numbers.",
            "annotations": {"readOnlyHint": true},
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        });
        if let Some(case) = self.flags.output_schema {
            add["outputSchema"] = case.output_schema();
        }
        let mut tools = vec![
            add,
            json!({
                "name": "echo",
                "description": "Answers its text.",
                "annotations": {"readOnlyHint": true},
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
            }),
            json!({"name": "fail", "description": "Always fails.", "inputSchema": fail_schema}),
        ];
        if self.flags.hostile {
            tools.push(json!({"name": HOSTILE, "description": HOSTILE}));
        }
        if self.flags.volatile {
            let none = json!({"type": "object", "properties": {}});
            tools.push(
                json!({"name": "now", "description": "The current time.", "inputSchema": none}),
            );
            tools.push(json!({"name": "token", "description": "A fresh random token.", "inputSchema": none}));
        }
        let mut tools = self.with_icons(tools);
        if self.flags.unannotated {
            for tool in &mut tools {
                if let Some(tool) = tool.as_object_mut() {
                    tool.remove("annotations");
                }
            }
        }
        tools
    }

    fn tools_list(&mut self, params: Option<&Value>) -> Result<Value, (ErrorCode, String)> {
        let mut tools = self.tools();
        if self.broken(Break::ToolsListSorted) {
            tools.rotate_left(1 + self.tools_list_calls % 2);
        }
        self.tools_list_calls += 1;
        let Some(page_size) = self.flags.page_size else {
            return Ok(json!({ "tools": tools }));
        };
        let start = match params.and_then(|p| p.get("cursor")) {
            None => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| c.parse::<usize>().ok())
                .filter(|start| *start < tools.len())
            {
                Some(start) => start,
                None if self.flags.lax_cursor => 0,
                None => {
                    return Err((
                        ErrorCode::INVALID_PARAMS,
                        format!("invalid cursor {cursor}"),
                    ));
                }
            },
        };
        let end = (start + page_size.max(1)).min(tools.len());
        let mut page = json!({ "tools": tools[start..end] });
        if end < tools.len() {
            page["nextCursor"] = json!(end.to_string());
        }
        Ok(page)
    }

    fn tools_call(&self, params: Option<Value>) -> Result<Value, (ErrorCode, String)> {
        // The TypeScript SDK reports a malformed call as an internal error;
        // rmcp, which cannot read it as a tools/call, as an unknown method.
        let bad_params = match self.flags.like {
            _ if self.broken(Break::InvalidParams) => ErrorCode::INTERNAL_ERROR,
            Some(Like::TypescriptSdk) => ErrorCode::INTERNAL_ERROR,
            Some(Like::Rmcp) => ErrorCode::METHOD_NOT_FOUND,
            _ => ErrorCode::INVALID_PARAMS,
        };
        let Some(Value::Object(mut params)) = params else {
            return Err((bad_params, "tools/call needs params".to_owned()));
        };
        let Some(Value::String(name)) = params.remove("name") else {
            return Err((bad_params, "tools/call needs a tool name".to_owned()));
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => return Err((bad_params, "arguments must be an object".to_owned())),
        };
        if let Some(refusal) = excess::call(&self.flags.excess, &name) {
            return Ok(tool_result(&refusal, true));
        }
        if self.flags.fuzz.enabled() {
            let token = params
                .get("_meta")
                .and_then(|meta| meta.get("progressToken"));
            return self.fuzz.call(&self.flags.fuzz, &name, &arguments, token);
        }
        let invalid = |message: String| {
            if self.broken(Break::ToolErrorIsResult) {
                Err((ErrorCode::INVALID_PARAMS, message))
            } else {
                Ok(tool_result(&message, true))
            }
        };
        match name.as_str() {
            "echo" => match arguments.get("text") {
                Some(Value::String(text)) => {
                    let mut answer = format!("{text}{}", self.flags.echo_suffix);
                    if self.flags.hostile {
                        answer.push_str(HOSTILE);
                    }
                    answer.extend(std::iter::repeat_n('.', self.flags.pad));
                    Ok(tool_result(&answer, false))
                }
                _ => invalid("echo: `text` must be a string".to_owned()),
            },
            "add" => match (arguments.get("a"), arguments.get("b")) {
                (Some(Value::Number(a)), Some(Value::Number(b))) => {
                    let sum = match (a.as_i64(), b.as_i64()) {
                        (Some(a), Some(b)) => a.checked_add(b).map(Value::from),
                        _ => None,
                    }
                    .unwrap_or_else(|| {
                        json!(a.as_f64().unwrap_or(f64::NAN) + b.as_f64().unwrap_or(f64::NAN))
                    });
                    if let Some(case) = self.flags.output_schema {
                        let structured = case.structured_content(self.flags.output_invalid);
                        let mut result = tool_result(&structured.to_string(), false);
                        result["structuredContent"] = structured;
                        return Ok(result);
                    }
                    Ok(tool_result(&sum.to_string(), false))
                }
                _ => invalid("add: `a` and `b` must be numbers".to_owned()),
            },
            "fail" => Ok(tool_result("fail: this tool always fails", true)),
            "crash" if self.flags.hostile => {
                eprintln!("fixture-server: crashing\n{HOSTILE}");
                std::process::exit(1);
            }
            "now" if self.flags.volatile => {
                let now = json!({"datetime": utc_now(), "timezone": "UTC"});
                Ok(tool_result(&now.to_string(), false))
            }
            "token" if self.flags.volatile => Ok(tool_result(&fresh_token(), false)),
            unknown => {
                let message = format!("Unknown tool: {unknown}");
                match self.flags.like {
                    _ if self.broken(Break::UnknownTool) => Ok(tool_result(&message, true)),
                    Some(Like::PythonSdk | Like::PythonSdkV1 | Like::TypescriptSdk) => {
                        Ok(tool_result(&message, true))
                    }
                    Some(Like::Rmcp) => Err((ErrorCode::INVALID_PARAMS, message)),
                    None => Err((ErrorCode::METHOD_NOT_FOUND, message)),
                }
            }
        }
    }
}

/// The current time in RFC 3339, in UTC, to the nanosecond.
fn utc_now() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        now.subsec_nanos()
    )
}

/// A token no two calls share: the clock's nanoseconds and the process id,
/// mixed.
fn fresh_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos() as u64;
    let mixed =
        (nanos ^ u64::from(std::process::id()).rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("tok_{mixed:016x}")
}

fn tool_result(text: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// A line without its `\n` and a trailing `\r`.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The tools `mcp-replay fuzz` is tested against: five that say they change
/// nothing, with the schema features tools use, two that do not say so,
/// and on request many more, or exactly one bug each (`--fuzz-bug`).
///
/// Every tool checks its arguments against its inputSchema by hand and
/// answers an `isError` result for arguments that break it, so that a
/// clean fuzz run finds nothing; each bug breaks exactly one check.
mod fuzz_tools {
    use std::cell::{Cell, RefCell};
    use std::time::Duration;

    use clap::ValueEnum;
    use mcp_replay::ErrorCode;
    use serde_json::{Map, Value, json};

    /// The fuzz tools' flags.
    #[derive(Debug, Clone, clap::Args)]
    pub(super) struct FuzzFlags {
        /// Serve the fuzz tools (`search`, `convert`, `lookup`, `describe`,
        /// `when`, which say they change nothing, and `touch` and
        /// `delete_all`, which do not) instead of `add`, `echo` and `fail`,
        /// and answer the revision asked for in `initialize`.
        #[arg(long)]
        fuzz_tools: bool,
        /// Give the fuzz tools exactly this bug (repeatable; implies
        /// `--fuzz-tools`).
        #[arg(long = "fuzz-bug", value_name = "BUG")]
        bugs: Vec<Bug>,
        /// Serve N more tools that change nothing, `tool_001` and on (implies
        /// `--fuzz-tools`).
        #[arg(long, value_name = "N", default_value_t = 0)]
        many_tools: usize,
        /// Serve one more tool, `append`, annotated as one that only adds
        /// (`readOnlyHint: false`, `destructiveHint: false`), which leaves
        /// `appended-by-fixture` in its working directory (implies
        /// `--fuzz-tools`).
        #[arg(long)]
        additive_tool: bool,
        /// Take this long over every tool call, as a slow tool does.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        slow_call: u64,
        /// With `--slow-call`: report progress four times over the wait, to
        /// a call that gave a `progressToken`.
        #[arg(long)]
        progress: bool,
        /// Answer this revision to `initialize`, whatever is asked.
        #[arg(long, value_name = "REVISION")]
        fuzz_revision: Option<String>,
    }

    impl FuzzFlags {
        pub(super) fn enabled(&self) -> bool {
            self.fuzz_tools || !self.bugs.is_empty() || self.many_tools > 0 || self.additive_tool
        }

        fn has(&self, bug: Bug) -> bool {
            self.bugs.contains(&bug)
        }

        /// The revision `initialize` answers, when one is set.
        pub(super) fn revision(&self) -> Option<&str> {
            self.fuzz_revision.as_deref()
        }
    }

    /// One bug of the fuzz tools.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
    pub(super) enum Bug {
        /// `search` with non-ASCII text in `query` ends the process (a
        /// panic's message on stderr, status 101).
        Crash,
        /// `convert` with `precision` 0 never answers (it writes
        /// `hung-by-fixture` in its working directory first).
        Hang,
        /// `search` with `limit` 50 writes a debug line on stdout first.
        Stdout,
        /// `lookup` of an id that starts with `aa` answers error -32603.
        ProtocolError,
        /// `convert` to `ft` answers its `result` as a string, which its
        /// outputSchema says is a number.
        OutputSchema,
        /// `search` takes any `limit`, even outside 1..=50.
        AcceptsInvalid,
        /// `describe` with `item.nested.flag` true answers, then answers
        /// nothing more.
        StopsAnswering,
        /// Arguments that break a tool's inputSchema get error -32602 (as
        /// the revisions before 2025-11-25 documented), not an `isError`
        /// result.
        InvalidParams,
    }

    /// What a call left for the loop to do.
    #[derive(Debug, Default)]
    pub(super) struct State {
        noise: RefCell<Vec<String>>,
        deafen: Cell<bool>,
        deaf: Cell<bool>,
    }

    impl State {
        /// Lines to write before the next answer.
        pub(super) fn take_noise(&self) -> Vec<String> {
            std::mem::take(&mut self.noise.borrow_mut())
        }

        /// An answer went out: a deafening call's takes effect.
        pub(super) fn answered(&self) {
            if self.deafen.get() {
                self.deaf.set(true);
            }
        }

        /// Whether requests go unanswered from now on.
        pub(super) fn deaf(&self) -> bool {
            self.deaf.get()
        }

        /// A call of the fuzz tool `name`.
        pub(super) fn call(
            &self,
            flags: &FuzzFlags,
            name: &str,
            arguments: &Map<String, Value>,
            token: Option<&Value>,
        ) -> Result<Value, (ErrorCode, String)> {
            match token.filter(|_| flags.progress) {
                Some(token) if flags.slow_call > 0 => {
                    // The loop holds stdout's lock: progress goes out
                    // through a handle of its own, as it goes.
                    use std::io::Write as _;
                    use std::os::fd::AsFd as _;
                    let mut out = std::io::stdout()
                        .as_fd()
                        .try_clone_to_owned()
                        .map(std::fs::File::from)
                        .ok();
                    for step in 1..=4 {
                        // A fixed wait is the point: a slow tool.
                        std::thread::sleep(Duration::from_millis(flags.slow_call / 4));
                        let line = json!({
                            "jsonrpc": "2.0",
                            "method": "notifications/progress",
                            "params": {"progressToken": token, "progress": step, "total": 4},
                        });
                        if let Some(out) = &mut out {
                            let _ = writeln!(out, "{line}");
                        }
                    }
                }
                // A fixed wait is the point: a slow tool.
                _ if flags.slow_call > 0 => {
                    std::thread::sleep(Duration::from_millis(flags.slow_call))
                }
                _ => {}
            }
            let checked = match name {
                "search" => self.search(flags, arguments),
                "convert" => convert(flags, arguments),
                "lookup" => lookup(flags, arguments),
                "describe" => self.describe(flags, arguments),
                "when" => when(arguments),
                "touch" => mark("touched-by-fixture", arguments),
                "append" if flags.additive_tool => mark("appended-by-fixture", arguments),
                "delete_all" => mark("deleted-by-fixture", arguments),
                many if many.starts_with("tool_")
                    && tools(flags).iter().any(|t| t["name"] == many) =>
                {
                    numbered(arguments)
                }
                unknown => {
                    return Err((
                        ErrorCode::METHOD_NOT_FOUND,
                        format!("Unknown tool: {unknown}"),
                    ));
                }
            };
            match checked {
                Ok(Answer::Text(text)) => Ok(json!({"content": [{"type": "text", "text": text}]})),
                Ok(Answer::Structured(value)) => Ok(json!({
                    "content": [{"type": "text", "text": value.to_string()}],
                    "structuredContent": value,
                })),
                Ok(Answer::Error(code, message)) => Err((code, message)),
                Err(why) if flags.has(Bug::InvalidParams) => {
                    Err((ErrorCode::INVALID_PARAMS, format!("{name}: {why}")))
                }
                Err(why) => Ok(json!({
                    "content": [{"type": "text", "text": format!("{name}: {why}")}],
                    "isError": true,
                })),
            }
        }

        fn search(&self, flags: &FuzzFlags, arguments: &Map<String, Value>) -> Checked {
            only(arguments, &["query", "limit", "tags", "mode"])?;
            let query = string(arguments, "query")?.ok_or("`query` is required")?;
            let length = query.chars().count();
            if !(1..=200).contains(&length) {
                return Err(format!("`query` must be 1 to 200 characters, not {length}"));
            }
            if flags.has(Bug::Crash) && !query.is_ascii() {
                eprintln!(
                    "thread 'main' panicked at src/search.rs:12:5:\nbyte index 1 is not a char boundary"
                );
                std::process::exit(101);
            }
            let limit = match arguments.get("limit") {
                None => 10,
                Some(limit) => {
                    let limit = integer(limit).ok_or("`limit` must be an integer")?;
                    if !flags.has(Bug::AcceptsInvalid) && !(1..=50).contains(&limit) {
                        return Err(format!("`limit` must be 1 to 50, not {limit}"));
                    }
                    limit
                }
            };
            if let Some(tags) = arguments.get("tags") {
                let tags = tags.as_array().ok_or("`tags` must be an array")?;
                if tags.len() > 5 {
                    return Err("at most 5 `tags`".to_owned());
                }
                if !tags.iter().all(Value::is_string) {
                    return Err("each tag must be a string".to_owned());
                }
            }
            if let Some(mode) = arguments.get("mode")
                && mode != "fast"
                && mode != "exact"
            {
                return Err("`mode` is `fast` or `exact`".to_owned());
            }
            if flags.has(Bug::Stdout) && limit == 50 {
                self.noise
                    .borrow_mut()
                    .push(format!("debug: search limit={limit}"));
            }
            Ok(Answer::Text(format!(
                "{} results for {query:?}",
                limit.min(3)
            )))
        }

        fn describe(&self, flags: &FuzzFlags, arguments: &Map<String, Value>) -> Checked {
            only(arguments, &["item"])?;
            let item = arguments.get("item").ok_or("`item` is required")?;
            let item = item.as_object().ok_or("`item` must be an object")?;
            only(item, &["name", "nested"]).map_err(|why| format!("item: {why}"))?;
            let name = string(item, "name")?.ok_or("`item.name` is required")?;
            let mut flag = false;
            if let Some(nested) = item.get("nested") {
                let nested = nested
                    .as_object()
                    .ok_or("`item.nested` must be an object")?;
                only(nested, &["depth", "flag"]).map_err(|why| format!("item.nested: {why}"))?;
                let depth = nested
                    .get("depth")
                    .ok_or("`item.nested.depth` is required")?;
                let depth = integer(depth).ok_or("`item.nested.depth` must be an integer")?;
                if depth < 0 {
                    return Err("`item.nested.depth` must be at least 0".to_owned());
                }
                if let Some(value) = nested.get("flag") {
                    flag = value
                        .as_bool()
                        .ok_or("`item.nested.flag` must be a boolean")?;
                }
            }
            if flags.has(Bug::StopsAnswering) && flag {
                self.deafen.set(true);
            }
            Ok(Answer::Text(format!("an item named {name:?}")))
        }
    }

    /// A tool's answer, before it becomes a result.
    enum Answer {
        Text(String),
        Structured(Value),
        Error(ErrorCode, String),
    }

    /// An answer, or why the arguments are refused.
    type Checked = Result<Answer, String>;

    /// Refuses members not named in `allowed` (`additionalProperties:
    /// false`).
    fn only(object: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
        match object.keys().find(|key| !allowed.contains(&key.as_str())) {
            Some(extra) => Err(format!("unexpected argument `{extra}`")),
            None => Ok(()),
        }
    }

    fn string<'a>(object: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
        match object.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    }

    /// A JSON Schema integer: a number without a fraction (`2.0` too).
    fn integer(value: &Value) -> Option<i64> {
        let number = value.as_number()?;
        if let Some(n) = number.as_i64() {
            return Some(n);
        }
        if number.as_u64().is_some() {
            return Some(i64::MAX);
        }
        let f = number.as_f64()?;
        (f.fract() == 0.0).then(|| f.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
    }

    fn convert(flags: &FuzzFlags, arguments: &Map<String, Value>) -> Checked {
        only(arguments, &["value", "unit", "precision"])?;
        let value = arguments.get("value").ok_or("`value` is required")?;
        let value = value.as_f64().ok_or("`value` must be a number")?;
        let unit = string(arguments, "unit")?.ok_or("`unit` is required")?;
        let factor = match unit {
            "m" => 1.0,
            "ft" => 3.28084,
            "in" => 39.3701,
            _ => return Err("`unit` is `m`, `ft` or `in`".to_owned()),
        };
        let precision = match arguments.get("precision") {
            None => 2,
            Some(precision) => {
                let precision = integer(precision).ok_or("`precision` must be an integer")?;
                if !(0..=10).contains(&precision) {
                    return Err(format!("`precision` must be 0 to 10, not {precision}"));
                }
                precision
            }
        };
        if flags.has(Bug::Hang) && precision == 0 {
            let _ = std::fs::write("hung-by-fixture", b"hung\n");
            // The bug: a loop that never ends.
            loop {
                std::thread::park();
            }
        }
        let scale = 10f64.powi(precision as i32);
        let result = (value * factor * scale).round() / scale;
        let result = if result.is_finite() {
            json!(result)
        } else {
            json!(0)
        };
        if flags.has(Bug::OutputSchema) && unit == "ft" {
            return Ok(Answer::Structured(
                json!({"result": result.to_string(), "unit": unit}),
            ));
        }
        Ok(Answer::Structured(json!({"result": result, "unit": unit})))
    }

    fn lookup(flags: &FuzzFlags, arguments: &Map<String, Value>) -> Checked {
        only(arguments, &["id"])?;
        let id = string(arguments, "id")?.ok_or("`id` is required")?;
        // ^[a-z]{2}-[0-9]{3}$
        let chars: Vec<char> = id.chars().collect();
        let shaped = chars.len() == 6
            && chars[..2].iter().all(char::is_ascii_lowercase)
            && chars[2] == '-'
            && chars[3..].iter().all(char::is_ascii_digit);
        if !shaped {
            return Err(format!(
                "`id` {id:?} is not two letters, a dash and three digits"
            ));
        }
        if flags.has(Bug::ProtocolError) && id.starts_with("aa") {
            return Ok(Answer::Error(
                ErrorCode::INTERNAL_ERROR,
                "internal error: index out of range".to_owned(),
            ));
        }
        Ok(Answer::Text(format!("record {id}")))
    }

    fn when(arguments: &Map<String, Value>) -> Checked {
        only(arguments, &["date"])?;
        match arguments.get("date").ok_or("`date` is required")? {
            // A date (its format is the tool's to hold to), or a day count.
            Value::String(text) => Ok(Answer::Text(format!("on {text}"))),
            other => match integer(other) {
                Some(days) if days >= 0 => Ok(Answer::Text(format!("in {days} days"))),
                _ => Err("`date` is a date or a day count of 0 or more".to_owned()),
            },
        }
    }

    /// `touch` and `delete_all`: they leave a file in the working
    /// directory, to show whether they were called and where.
    fn mark(file: &str, arguments: &Map<String, Value>) -> Checked {
        only(arguments, &[])?;
        std::fs::write(file, b"called\n").map_err(|err| format!("cannot write {file}: {err}"))?;
        Ok(Answer::Text(format!("wrote {file}")))
    }

    fn numbered(arguments: &Map<String, Value>) -> Checked {
        only(arguments, &["text", "count"])?;
        let text = string(arguments, "text")?.ok_or("`text` is required")?;
        if let Some(count) = arguments.get("count") {
            let count = integer(count).ok_or("`count` must be an integer")?;
            if !(0..=100).contains(&count) {
                return Err("`count` must be 0 to 100".to_owned());
            }
        }
        Ok(Answer::Text(text.to_owned()))
    }

    /// The fuzz tools' descriptors, sorted by name.
    pub(super) fn tools(flags: &FuzzFlags) -> Vec<Value> {
        let read_only = json!({"readOnlyHint": true});
        let mut tools = vec![
            json!({
                "name": "convert",
                "description": "Converts a length in metres.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "number"},
                        "unit": {"enum": ["m", "ft", "in"]},
                        "precision": {"type": "integer", "minimum": 0, "maximum": 10}
                    },
                    "required": ["value", "unit"],
                    "additionalProperties": false
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {"result": {"type": "number"}, "unit": {"type": "string"}},
                    "required": ["result", "unit"]
                }
            }),
            json!({
                "name": "delete_all",
                "description": "Deletes everything.",
                "annotations": {"readOnlyHint": false, "destructiveHint": true},
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
            }),
            json!({
                "name": "describe",
                "description": "Describes an item.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "item": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "nested": {
                                    "type": "object",
                                    "properties": {"depth": {"type": "integer", "minimum": 0}, "flag": {"type": "boolean"}},
                                    "required": ["depth"],
                                    "additionalProperties": false
                                }
                            },
                            "required": ["name"],
                            "additionalProperties": false
                        }
                    },
                    "required": ["item"],
                    "additionalProperties": false
                }
            }),
            json!({
                "name": "lookup",
                "description": "Looks a record up by id.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string", "pattern": "^[a-z]{2}-[0-9]{3}$"}},
                    "required": ["id"],
                    "additionalProperties": false
                }
            }),
            json!({
                "name": "search",
                "description": "Searches.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "minLength": 1, "maxLength": 200},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                        "mode": {"enum": ["fast", "exact"]}
                    },
                    "required": ["query"],
                    "additionalProperties": false
                }
            }),
            json!({
                "name": "touch",
                "description": "Leaves a file behind.",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
            }),
            json!({
                "name": "when",
                "description": "Says when.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "date": {"anyOf": [{"type": "string", "format": "date"}, {"type": "integer", "minimum": 0}]}
                    },
                    "required": ["date"],
                    "additionalProperties": false
                }
            }),
        ];
        if flags.additive_tool {
            tools.push(json!({
                "name": "append",
                "description": "Adds a file, never removes one.",
                "annotations": {"readOnlyHint": false, "destructiveHint": false},
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
            }));
        }
        for n in 1..=flags.many_tools {
            tools.push(json!({
                "name": format!("tool_{n:03}"),
                "description": "One of many.",
                "annotations": read_only,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "count": {"type": "integer", "minimum": 0, "maximum": 100}
                    },
                    "required": ["text"],
                    "additionalProperties": false
                }
            }));
        }
        tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        tools
    }
}

/// What a server that asks too much of its client does, for the tests of
/// the bounds `mcp-replay` keeps (docs/limits.md): tools whose inputSchema
/// asks for more than any bounded generator makes, a `subscriptions/listen`
/// stream that floods while answers come slowly, and `requestState`s of
/// many mebibytes asked for again and again.
mod excess {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use clap::ValueEnum;
    use serde_json::{Value, json};

    /// The flags of what asks too much.
    #[derive(Debug, Clone, clap::Args)]
    pub(super) struct ExcessFlags {
        /// Serve one more tool, `hostile_<KIND>` with the kind's dashes as
        /// underscores, annotated as one that changes nothing, whose
        /// inputSchema asks for what no bounded generator makes
        /// (repeatable); every call of it is answered with an `isError`
        /// result.
        #[arg(long = "hostile-schema", value_name = "KIND")]
        pub schemas: Vec<Schema>,
        /// With `--listen`: once a stream is open, write its notification
        /// (padded to 4 KiB) again and again, as fast as the client reads,
        /// until the stream is cancelled or input ends; and answer every
        /// request but `ping` only after MS meanwhile.
        #[arg(long, value_name = "MS")]
        pub flood_listen: Option<u64>,
        /// With a 2026-07-28 mode: answer every `tools/call` that would
        /// succeed with an `InputRequiredResult` whose `requestState` is a
        /// fresh one of this many MiB, whatever state the call brings.
        #[arg(long, value_name = "MIB")]
        pub huge_state: Option<usize>,
        /// Answer every `ping` with a result holding one array of this
        /// many MiB of zeros (`[0,0,…]`): far more JSON values in one line
        /// than a reader keeps in memory as one message.
        #[arg(long, value_name = "MIB")]
        pub huge_line: Option<usize>,
    }

    /// The answer to `ping` id `id` of `--huge-line`: `mib` MiB of zeros in
    /// one array, built as text (never as values).
    pub(super) fn huge_line(id: &mcp_replay::RequestId, mib: usize) -> String {
        let mut line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"padding\":[0",
            id.to_value()
        );
        line.reserve(mib << 20);
        while line.len() < mib << 20 {
            line.push_str(",0");
        }
        line.push_str("]}}");
        line
    }

    /// An inputSchema no bounded generator meets.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
    pub(super) enum Schema {
        /// A string of at least 10^9 characters.
        MinLength,
        /// An array of at least 10^9 items, each an array of at least 10^6
        /// arrays of at least 10^6 long strings.
        MinItems,
        /// An object of at least 10^9 members.
        MinProperties,
        /// A number past 1e300 that is a multiple of 1e-300.
        MultipleOf,
        /// An array of 100 arrays of 100 arrays, and so on without end
        /// (a reference to itself).
        Nesting,
        /// A string matching `^a{1000000000}$`.
        Repetition,
        /// A string matching `^((a{1000}){1000}){1000}$`, and one
        /// matching an optional character repeated 2^32 - 1 times.
        NestedRepetition,
        /// A member whose schema is an `anyOf` of two references to
        /// itself, and an `allOf` of two more.
        References,
        /// 20,000 required members, each a string of at least 10,000
        /// characters.
        Wide,
    }

    impl Schema {
        /// The tool's name.
        fn tool(self) -> String {
            let kind = self
                .to_possible_value()
                .map(|value| value.get_name().replace('-', "_"))
                .unwrap_or_default();
            format!("hostile_{kind}")
        }

        /// The tool's inputSchema.
        fn input_schema(self) -> Value {
            let one = |name: &str, schema: Value| json!({"type": "object", "properties": {name: schema}, "required": [name]});
            match self {
                Schema::MinLength => one(
                    "text",
                    json!({"type": "string", "minLength": 1_000_000_000}),
                ),
                Schema::MinItems => one(
                    "list",
                    json!({"type": "array", "minItems": 1_000_000_000, "items": {
                        "type": "array", "minItems": 1_000_000, "items": {
                            "type": "array", "minItems": 1_000_000, "uniqueItems": true, "items": {
                                "type": "string", "minLength": 100_000
                            }
                        }
                    }}),
                ),
                Schema::MinProperties => one(
                    "map",
                    json!({"type": "object", "minProperties": 1_000_000_000, "additionalProperties": {"type": "string", "minLength": 1_000_000}}),
                ),
                Schema::MultipleOf => one(
                    "n",
                    json!({"type": "number", "multipleOf": 1e-300, "minimum": 1e300}),
                ),
                Schema::Nesting => {
                    let mut schema = one("tree", json!({"$ref": "#/$defs/node"}));
                    schema["$defs"] = json!({"node": {"type": "array", "minItems": 100, "maxItems": 100, "items": {"$ref": "#/$defs/node"}}});
                    schema
                }
                Schema::Repetition => one(
                    "text",
                    json!({"type": "string", "pattern": "^a{1000000000}$"}),
                ),
                Schema::NestedRepetition => json!({
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "pattern": "^((a{1000}){1000}){1000}$"},
                        "empty": {"type": "string", "pattern": "^(x?){4294967295}b$"}
                    },
                    "required": ["text", "empty"]
                }),
                Schema::References => {
                    let mut schema = one("node", json!({"$ref": "#/$defs/node"}));
                    schema["$defs"] = json!({"node": {
                        "anyOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/node"}],
                        "allOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/node"}]
                    }});
                    schema
                }
                Schema::Wide => {
                    let names: Vec<String> = (0..20_000).map(|n| format!("m{n:05}")).collect();
                    let properties: serde_json::Map<String, Value> = names
                        .iter()
                        .map(|name| (name.clone(), json!({"type": "string", "minLength": 10_000})))
                        .collect();
                    json!({"type": "object", "properties": properties, "required": names})
                }
            }
        }
    }

    /// The hostile tools' descriptors.
    pub(super) fn tools(flags: &ExcessFlags) -> Vec<Value> {
        flags
            .schemas
            .iter()
            .map(|schema| {
                json!({
                    "name": schema.tool(),
                    "description": "Asks for more than any client should make.",
                    "annotations": {"readOnlyHint": true},
                    "inputSchema": schema.input_schema(),
                })
            })
            .collect()
    }

    /// The refusal of a call of a hostile tool; `None` for another tool.
    pub(super) fn call(flags: &ExcessFlags, name: &str) -> Option<String> {
        flags
            .schemas
            .iter()
            .any(|schema| schema.tool() == name)
            .then(|| format!("{name}: arguments refused"))
    }

    /// An `InputRequiredResult` with a fresh `requestState` of
    /// `--huge-state` MiB.
    pub(super) fn input_required(flags: &ExcessFlags) -> Value {
        use std::sync::atomic::AtomicUsize;
        static ISSUED: AtomicUsize = AtomicUsize::new(0);
        let n = ISSUED.fetch_add(1, Ordering::SeqCst);
        let mut state = format!("state-{n}-");
        state.extend(std::iter::repeat_n(
            's',
            flags.huge_state.unwrap_or(0) << 20,
        ));
        json!({"resultType": "input_required", "requestState": state})
    }

    /// A thread writing one stream notification again and again.
    pub(super) struct Flood {
        stop: Arc<AtomicBool>,
        lock: Arc<Mutex<()>>,
        /// Another writer waits for the lock: the flood lets it go first.
        wanted: Arc<AtomicBool>,
    }

    impl Flood {
        /// Starts writing `line` (padded) to stdout, each time whole.
        pub(super) fn start(line: String) -> std::io::Result<Flood> {
            use std::os::fd::AsFd as _;
            let mut out = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
            let mut notification: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            notification["params"]["_meta"]["fixture/padding"] = json!("p".repeat(4096));
            let mut bytes = notification.to_string().into_bytes();
            bytes.push(b'\n');
            let stop = Arc::new(AtomicBool::new(false));
            let lock = Arc::new(Mutex::new(()));
            let wanted = Arc::new(AtomicBool::new(false));
            let (stopped, turn, waiting) =
                (Arc::clone(&stop), Arc::clone(&lock), Arc::clone(&wanted));
            std::thread::spawn(move || {
                loop {
                    while waiting.load(Ordering::SeqCst) {
                        std::thread::yield_now();
                    }
                    let Ok(_turn) = turn.lock() else { return };
                    if stopped.load(Ordering::SeqCst) || out.write_all(&bytes).is_err() {
                        return;
                    }
                }
            });
            Ok(Flood { stop, lock, wanted })
        }

        /// The turn of another writer, so that lines never mix: the flood
        /// writes no line until it is dropped.
        pub(super) fn turn(&self) -> std::sync::MutexGuard<'_, ()> {
            self.wanted.store(true, Ordering::SeqCst);
            let turn = self
                .lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.wanted.store(false, Ordering::SeqCst);
            turn
        }

        /// Ends the flood: no line of it starts after this returns.
        pub(super) fn stop(self) {
            let _turn = self.turn();
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// The `outputSchema` cases of `--output-schema`: the kinds a lenient
/// validator refused valid answers to, and one case per keyword the judge
/// of JSON Schema decides, each with structured content that meets it and
/// (but for the annotations) content that breaks it at that keyword.
mod output_schema {
    use serde_json::{Value, json};

    /// One kind of `outputSchema`: the schema of the member `v`, a value
    /// that meets it and one that breaks it, as JSON text.
    #[derive(Debug)]
    pub(super) struct Case {
        /// The name `--output-schema` takes.
        pub name: &'static str,
        /// The keyword the invalid value breaks (`-` for none).
        pub keyword: &'static str,
        schema: &'static str,
        valid: &'static str,
        invalid: &'static str,
    }

    /// The definitions every case's schema may refer to.
    const DEFS: &str = r##"{"count": {"type": "integer"}, "node": {"$anchor": "node", "type": "object", "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}, "required": ["value"]}}"##;

    macro_rules! case {
        ($name:literal, $keyword:literal, $schema:literal, $valid:literal, $invalid:literal) => {
            Case {
                name: $name,
                keyword: $keyword,
                schema: $schema,
                valid: $valid,
                invalid: $invalid,
            }
        };
    }

    /// Every case, the hard kinds first.
    pub(super) const CASES: &[Case] = &[
        // The kinds a lenient validator refused valid answers to.
        case!(
            "closed-tuple",
            "items",
            r#"{"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}"#,
            r#"["a", 1]"#,
            r#"["a", 1, 2]"#
        ),
        case!(
            "pattern-properties",
            "additionalProperties",
            r#"{"type": "object", "properties": {"name": {"type": "string"}}, "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false}"#,
            r#"{"name": "n", "x-a": 1, "x-b": 2}"#,
            r#"{"name": "n", "y": 1}"#
        ),
        case!("float-enum", "enum", r#"{"enum": [1, 2]}"#, "1.0", "3"),
        case!(
            "ref-siblings",
            "maximum",
            r##"{"$ref": "#/$defs/count", "maximum": 10}"##,
            "5.0",
            "11"
        ),
        case!(
            "unevaluated-if",
            "unevaluatedProperties",
            r#"{"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}, "if": {"properties": {"kind": {"const": "a"}}}, "then": {"properties": {"a": {"type": "integer"}}}, "unevaluatedProperties": false}"#,
            r#"{"kind": "a", "a": 1}"#,
            r#"{"kind": "b", "a": 1}"#
        ),
        case!(
            "big-integer",
            "maximum",
            r#"{"type": "integer", "maximum": 9007199254740993}"#,
            "9007199254740993",
            "9007199254740994"
        ),
        case!(
            "code-points",
            "maxLength",
            r#"{"type": "string", "maxLength": 2}"#,
            r#""\ud83d\ude00\ud83d\ude00""#,
            r#""\ud83d\ude00\ud83d\ude00\ud83d\ude00""#
        ),
        case!(
            "format-annotation",
            "-",
            r#"{"type": "string", "format": "email"}"#,
            r#""not an address""#,
            r#""not an address""#
        ),
        case!(
            "unknown-keyword",
            "-",
            r#"{"type": "string", "nullable": true, "x-order": 1}"#,
            r#""s""#,
            r#""s""#
        ),
        // Values the judge cannot decide: neither a finding nor a pass.
        case!(
            "undecided-fraction",
            "-",
            r#"{"multipleOf": 0.1}"#,
            "0.3",
            "0.3"
        ),
        case!(
            "undecided-pattern",
            "-",
            r#"{"type": "string", "pattern": "^(?=a)a"}"#,
            r#""ab""#,
            r#""ab""#
        ),
        case!(
            "recursive",
            "type",
            r##"{"$ref": "#/$defs/node"}"##,
            r#"{"value": 1, "next": {"value": 2, "next": {"value": 3}}}"#,
            r#"{"value": 1, "next": {"value": 2, "next": {"value": "3"}}}"#
        ),
        // One case per keyword the judge decides.
        case!(
            "type",
            "type",
            r#"{"type": ["string", "null"]}"#,
            "null",
            "1"
        ),
        case!(
            "enum",
            "enum",
            r#"{"enum": ["fast", {"a": [1]}]}"#,
            r#"{"a": [1.0]}"#,
            r#""slow""#
        ),
        case!(
            "const",
            "const",
            r#"{"const": {"a": [1, 2]}}"#,
            r#"{"a": [1.0, 2]}"#,
            r#"{"a": [2, 1]}"#
        ),
        case!(
            "multipleOf",
            "multipleOf",
            r#"{"multipleOf": 0.5}"#,
            "2.5",
            "2.25"
        ),
        case!("maximum", "maximum", r#"{"maximum": 2}"#, "2.0", "2.5"),
        case!(
            "exclusiveMaximum",
            "exclusiveMaximum",
            r#"{"exclusiveMaximum": 2}"#,
            "1.5",
            "2"
        ),
        case!("minimum", "minimum", r#"{"minimum": -1}"#, "-1", "-1.5"),
        case!(
            "exclusiveMinimum",
            "exclusiveMinimum",
            r#"{"exclusiveMinimum": 0}"#,
            "0.5",
            "0"
        ),
        case!(
            "maxLength",
            "maxLength",
            r#"{"maxLength": 3}"#,
            r#""abc""#,
            r#""abcd""#
        ),
        case!(
            "minLength",
            "minLength",
            r#"{"minLength": 1}"#,
            r#""a""#,
            r#""""#
        ),
        case!(
            "pattern",
            "pattern",
            r#"{"pattern": "^[a-z]+-[0-9]{2}$"}"#,
            r#""ab-12""#,
            r#""ab-1""#
        ),
        case!(
            "maxItems",
            "maxItems",
            r#"{"maxItems": 1}"#,
            "[1]",
            "[1, 2]"
        ),
        case!("minItems", "minItems", r#"{"minItems": 1}"#, "[1]", "[]"),
        case!(
            "uniqueItems",
            "uniqueItems",
            r#"{"uniqueItems": true}"#,
            r#"[1, "1", [1]]"#,
            "[1, 1.0]"
        ),
        case!(
            "prefixItems",
            "prefixItems",
            r#"{"prefixItems": [{"type": "string"}]}"#,
            r#"["a", 1]"#,
            "[1]"
        ),
        case!(
            "items",
            "items",
            r#"{"items": {"type": "integer"}}"#,
            "[1, 2.0]",
            "[1, 2.5]"
        ),
        case!(
            "contains",
            "contains",
            r#"{"contains": {"type": "string"}}"#,
            r#"[1, "a"]"#,
            "[1, 2]"
        ),
        case!(
            "minContains",
            "contains",
            r#"{"contains": {"type": "string"}, "minContains": 2}"#,
            r#"["a", "b"]"#,
            r#"["a", 1]"#
        ),
        case!(
            "maxContains",
            "contains",
            r#"{"contains": {"type": "string"}, "maxContains": 1}"#,
            r#"["a", 1]"#,
            r#"["a", "b"]"#
        ),
        case!(
            "unevaluatedItems",
            "unevaluatedItems",
            r#"{"prefixItems": [true], "unevaluatedItems": {"type": "string"}}"#,
            r#"[1, "a"]"#,
            "[1, 2]"
        ),
        case!(
            "maxProperties",
            "maxProperties",
            r#"{"maxProperties": 1}"#,
            r#"{"a": 1}"#,
            r#"{"a": 1, "b": 2}"#
        ),
        case!(
            "minProperties",
            "minProperties",
            r#"{"minProperties": 1}"#,
            r#"{"a": 1}"#,
            "{}"
        ),
        case!(
            "required",
            "required",
            r#"{"required": ["a"]}"#,
            r#"{"a": 1}"#,
            r#"{"b": 1}"#
        ),
        case!(
            "dependentRequired",
            "dependentRequired",
            r#"{"dependentRequired": {"card": ["billing"]}}"#,
            r#"{"card": 1, "billing": 2}"#,
            r#"{"card": 1}"#
        ),
        case!(
            "properties",
            "properties",
            r#"{"properties": {"a": {"type": "string"}}}"#,
            r#"{"a": "s", "b": 1}"#,
            r#"{"a": 1}"#
        ),
        case!(
            "patternProperties",
            "patternProperties",
            r#"{"patternProperties": {"^n-": {"type": "number"}}}"#,
            r#"{"n-a": 1, "s": "x"}"#,
            r#"{"n-a": "1"}"#
        ),
        case!(
            "additionalProperties",
            "additionalProperties",
            r#"{"properties": {"a": true}, "additionalProperties": {"type": "boolean"}}"#,
            r#"{"a": 1, "b": true}"#,
            r#"{"a": 1, "b": 1}"#
        ),
        case!(
            "propertyNames",
            "propertyNames",
            r#"{"propertyNames": {"pattern": "^[a-z]+$"}}"#,
            r#"{"ab": 1}"#,
            r#"{"Ab": 1}"#
        ),
        case!(
            "dependentSchemas",
            "dependentSchemas",
            r#"{"dependentSchemas": {"card": {"required": ["billing"]}}}"#,
            r#"{"billing": 1}"#,
            r#"{"card": 1}"#
        ),
        case!(
            "unevaluatedProperties",
            "unevaluatedProperties",
            r#"{"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}"#,
            r#"{"a": 1}"#,
            r#"{"a": 1, "b": 2}"#
        ),
        case!(
            "allOf",
            "allOf",
            r#"{"allOf": [{"type": "number"}, {"minimum": 0}]}"#,
            "1",
            "-1"
        ),
        case!(
            "anyOf",
            "anyOf",
            r#"{"anyOf": [{"type": "string"}, {"minimum": 0}]}"#,
            r#""s""#,
            "-1"
        ),
        case!(
            "oneOf",
            "oneOf",
            r#"{"oneOf": [{"type": "number"}, {"minimum": 0}]}"#,
            "-1",
            "1"
        ),
        case!("not", "not", r#"{"not": {"type": "null"}}"#, "0", "null"),
        case!(
            "if-then-else",
            "if",
            r#"{"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 0}}"#,
            r#""ab""#,
            "-1"
        ),
        case!(
            "false",
            "false",
            r#"{"properties": {"a": false}}"#,
            r#"{"b": 1}"#,
            r#"{"a": 1}"#
        ),
        case!("$ref", "$ref", r##"{"$ref": "#/$defs/count"}"##, "3", "3.5"),
        case!(
            "$anchor",
            "$ref",
            r##"{"$ref": "#node"}"##,
            r#"{"value": 1}"#,
            r#"{"next": {"value": 1}}"#
        ),
        case!(
            "$dynamicRef",
            "$dynamicRef",
            r##"{"$dynamicRef": "#node"}"##,
            r#"{"value": 1}"#,
            r#"{"value": "1"}"#
        ),
    ];

    /// The case `text` names (`list` prints the names).
    pub(super) fn parse(text: &str) -> Result<&'static Case, String> {
        const LIST: Case = case!("list", "-", "{}", "null", "null");
        if text == "list" {
            return Ok(&LIST);
        }
        CASES.iter().find(|case| case.name == text).ok_or_else(|| {
            format!("no output schema case `{text}`: `--output-schema list` names them")
        })
    }

    fn read(text: &str) -> Value {
        serde_json::from_str(text).expect("the cases are JSON")
    }

    impl Case {
        /// The tool's `outputSchema`: an object whose `v` has the case's
        /// schema, with the definitions cases refer to.
        pub(super) fn output_schema(&self) -> Value {
            json!({
                "type": "object",
                "properties": {"v": read(self.schema)},
                "required": ["v"],
                "$defs": read(DEFS),
            })
        }

        /// The structured content the tool answers: valid, or not.
        pub(super) fn structured_content(&self, invalid: bool) -> Value {
            let v = if invalid { self.invalid } else { self.valid };
            json!({"v": read(v)})
        }
    }
}
