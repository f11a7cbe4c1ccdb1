//! The command manifest: what each `mcp-replay` command is, for the agents
//! and hosts that start it (REQ-C-032, REQ-O-041).
//!
//! Every command is registered with its description, danger level, scopes,
//! flags and the exit codes it can end with. A protocol command (one whose
//! stdout carries a protocol from the first byte, such as `mcp-replay
//! serve`) declares `stdout: "protocol"` and names the protocol; a command
//! that must never be an MCP tool declares `mcp: false`. [`Manifest::register`]
//! refuses the combinations REQ-C-032 forbids, so a manifest that exists is
//! one that keeps the contract. [`args`] reads a command's flags from its
//! clap declarations; the manifest of `mcp-replay` itself is
//! `cli::commands`'.

pub mod args;

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// The version of the manifest's shape.
pub const SCHEMA_VERSION: &str = "3.17";

/// The only protocol value of `stdout`.
pub const STDOUT_PROTOCOL: &str = "protocol";

/// The protocol name of an MCP server on stdio.
pub const MCP_STDIO: &str = "mcp-stdio";

/// The flags a protocol command must not accept (REQ-C-004, REQ-C-007,
/// REQ-O-001, REQ-O-021): a session has no single result to replay, write
/// or confirm.
pub const FLAGS_NOT_FOR_PROTOCOL: &[&str] = &[
    "idempotency-key",
    "dry-run",
    "output",
    "confirm-destructive",
];

/// The manifest: every command by name.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Manifest {
    /// The version of the manifest's shape ([`SCHEMA_VERSION`]).
    pub schema_version: &'static str,
    /// The version of the program that describes itself.
    pub framework_version: String,
    /// The commands, by name.
    pub commands: BTreeMap<String, CommandEntry>,
}

/// How much a command can change (REQ-C-002).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DangerLevel {
    /// Reads only; writes nothing a person keeps.
    ReadOnly,
    /// Writes files or state.
    Mutating,
    /// Deletes or overwrites what cannot be recovered.
    Destructive,
}

/// The kind of value a flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FlagType {
    /// Present or absent.
    Boolean,
    /// Any text.
    String,
    /// A whole number.
    Integer,
    /// A file or directory.
    Path,
    /// A duration such as `5s` or `250ms`.
    Duration,
    /// One of a fixed set of values (`values`).
    Enum,
    /// A list of values; repeatable, or the trailing argv of a command.
    Array,
}

/// One flag (or positional argument) of a command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Flag {
    /// The kind of value.
    #[serde(rename = "type")]
    pub kind: FlagType,
    /// Whether the command refuses to run without it.
    pub required: bool,
    /// The value when the flag is absent, where there is a fixed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// What the flag does.
    pub description: String,
    /// The values an `enum` flag takes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Given by position rather than by name (`after_separator`: after `--`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positional: Option<&'static str>,
    /// `false` when the command's MCP tool never takes this flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<bool>,
}

impl Flag {
    /// A flag of `kind`, optional, with no default.
    pub fn new(kind: FlagType, description: impl Into<String>) -> Flag {
        Flag {
            kind,
            required: false,
            default: None,
            description: description.into(),
            values: Vec::new(),
            positional: None,
            mcp: None,
        }
    }

    /// The same flag, required.
    pub fn required(mut self) -> Flag {
        self.required = true;
        self
    }

    /// The same flag with a default value.
    pub fn default(mut self, value: impl Into<Value>) -> Flag {
        self.default = Some(value.into());
        self
    }

    /// The same flag with the values of an enum.
    pub fn values(mut self, values: &[&str]) -> Flag {
        self.values = values.iter().map(|&value| value.to_owned()).collect();
        self
    }

    /// The same flag, given by position (`"leading"`) or after `--`
    /// (`"after_separator"`).
    pub fn positional(mut self, position: &'static str) -> Flag {
        self.positional = Some(position);
        self
    }

    /// The same flag, never taken by the command's MCP tool.
    pub fn off_mcp(mut self) -> Flag {
        self.mcp = Some(false);
        self
    }
}

/// What an exit code means (REQ-C-001).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExitCodeEntry {
    /// The code's name, such as `ARG_ERROR`.
    pub name: &'static str,
    /// When the command exits with it.
    pub description: &'static str,
    /// Whether running the same command again may succeed.
    pub retryable: bool,
    /// What the command changed before exiting: `none`, `partial` or
    /// `complete`.
    pub side_effects: &'static str,
}

impl ExitCodeEntry {
    /// An exit code's meaning.
    pub fn new(
        name: &'static str,
        description: &'static str,
        retryable: bool,
        side_effects: &'static str,
    ) -> ExitCodeEntry {
        ExitCodeEntry {
            name,
            description,
            retryable,
            side_effects,
        }
    }
}

/// One command of the manifest.
///
/// The fields after `exit_codes` are those REQ-C-032 forbids on a protocol
/// command; they are present here so that registration can refuse them,
/// and appear in the JSON only when set.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CommandEntry {
    /// What the command does.
    pub description: String,
    /// The most severe effect the command (or any request it serves) has.
    pub danger_level: Option<DangerLevel>,
    /// The scopes a caller needs.
    pub required_scopes: Vec<String>,
    /// `"protocol"` when stdout carries a protocol; absent, stdout carries
    /// envelopes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// The protocol's name when `stdout` is `"protocol"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// `Some(false)` for a command the tool's MCP server never offers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<bool>,
    /// The flags, by long name (positional arguments by their name).
    pub flags: BTreeMap<String, Flag>,
    /// Every code the command can exit with.
    pub exit_codes: BTreeMap<String, ExitCodeEntry>,
    /// `"passthrough"` when the arguments after `--` go to another program
    /// whose stdio the command hands on (REQ-C-031).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// `"child_log"` when stderr carries a child's log (REQ-F-038).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The payload read from stdin (REQ-F-054).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Whether the command prompts (REQ-C-005).
    #[serde(skip_serializing_if = "is_false")]
    pub interactive: bool,
    /// Whether output streams by default (REQ-O-004).
    #[serde(skip_serializing_if = "is_false")]
    pub streaming_default: bool,
    /// The flag that writes the result to a file (REQ-O-001).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// The JSON Schema of the result (REQ-C-015).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The formats the result can take.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output_formats: Vec<String>,
    /// The media types the result can take (REQ-O-049).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output_media_types: Vec<String>,
    /// Whether the command returns a job to poll (REQ-C-022).
    #[serde(rename = "async", skip_serializing_if = "is_false")]
    pub is_async: bool,
    /// Whether the command leaves a process running (REQ-C-010).
    #[serde(skip_serializing_if = "is_false")]
    pub spawns_background_process: bool,
    /// The command that stops what it left running (REQ-C-010).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup_command: Option<String>,
    /// How long what it left running lives (REQ-C-010).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lifetime_seconds: Option<u64>,
    /// The flag that confirms a destructive run (REQ-O-048).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm_flag: Option<String>,
    /// Whether the command previews unless confirmed (REQ-O-048).
    #[serde(skip_serializing_if = "is_false")]
    pub safe_default: bool,
    /// Whether the command takes `--idempotency-key` (REQ-C-007).
    #[serde(skip_serializing_if = "is_false")]
    pub idempotency_key: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// Why a command cannot be registered as declared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// `stdout: "protocol"` without a `protocol` name.
    #[error("`{command}` declares stdout \"protocol\" but names no protocol")]
    StdoutWithoutProtocol {
        /// The command.
        command: String,
    },
    /// A `protocol` without `stdout: "protocol"`.
    #[error("`{command}` names the protocol `{protocol}` but does not declare stdout \"protocol\"")]
    ProtocolWithoutStdout {
        /// The command.
        command: String,
        /// The protocol it names.
        protocol: String,
    },
    /// `stdout` holds another value than `"protocol"`.
    #[error("`{command}` declares stdout `{stdout}`; the only value is \"protocol\"")]
    UnknownStdout {
        /// The command.
        command: String,
        /// The value.
        stdout: String,
    },
    /// The protocol name is not lowercase kebab-case.
    #[error("`{command}` names the protocol `{protocol}`, which is not lowercase kebab-case")]
    ProtocolName {
        /// The command.
        command: String,
        /// The protocol it names.
        protocol: String,
    },
    /// A protocol command declares a field that does not combine with it.
    #[error("`{command}` is a protocol command and cannot declare `{field}`")]
    NotForProtocol {
        /// The command.
        command: String,
        /// The field (or `--flag`).
        field: String,
    },
    /// `mcp: true`: the field is present only when false.
    #[error("`{command}` declares mcp: true; the field is present only when false")]
    McpTrue {
        /// The command.
        command: String,
    },
    /// The command lacks its danger level.
    #[error("`{command}` declares no danger_level")]
    NoDangerLevel {
        /// The command.
        command: String,
    },
    /// The command declares no exit code 0.
    #[error("`{command}` does not declare exit code 0")]
    NoSuccessCode {
        /// The command.
        command: String,
    },
    /// The name is registered already.
    #[error("`{command}` is registered twice")]
    Duplicate {
        /// The command.
        command: String,
    },
}

impl Manifest {
    /// An empty manifest of a program at `framework_version`.
    pub fn new(framework_version: impl Into<String>) -> Manifest {
        Manifest {
            schema_version: SCHEMA_VERSION,
            framework_version: framework_version.into(),
            commands: BTreeMap::new(),
        }
    }

    /// Adds `entry` as `name`, or says which rule of REQ-C-032 it breaks.
    ///
    /// # Errors
    ///
    /// [`RegistrationError`] naming the first broken rule.
    pub fn register(&mut self, name: &str, entry: CommandEntry) -> Result<(), RegistrationError> {
        validate(name, &entry)?;
        if self.commands.contains_key(name) {
            return Err(RegistrationError::Duplicate {
                command: name.to_owned(),
            });
        }
        self.commands.insert(name.to_owned(), entry);
        Ok(())
    }

    /// The command `name`, if registered.
    pub fn command(&self, name: &str) -> Option<&CommandEntry> {
        self.commands.get(name)
    }
}

/// Checks one entry against REQ-C-032.
///
/// # Errors
///
/// The first rule `entry` breaks.
pub fn validate(name: &str, entry: &CommandEntry) -> Result<(), RegistrationError> {
    let command = || name.to_owned();
    if entry.mcp == Some(true) {
        return Err(RegistrationError::McpTrue { command: command() });
    }
    if entry.danger_level.is_none() {
        return Err(RegistrationError::NoDangerLevel { command: command() });
    }
    if !entry.exit_codes.contains_key("0") {
        return Err(RegistrationError::NoSuccessCode { command: command() });
    }
    match (&entry.stdout, &entry.protocol) {
        (None, None) => return Ok(()),
        (Some(stdout), _) if stdout != STDOUT_PROTOCOL => {
            return Err(RegistrationError::UnknownStdout {
                command: command(),
                stdout: stdout.clone(),
            });
        }
        (Some(_), None) => {
            return Err(RegistrationError::StdoutWithoutProtocol { command: command() });
        }
        (None, Some(protocol)) => {
            return Err(RegistrationError::ProtocolWithoutStdout {
                command: command(),
                protocol: protocol.clone(),
            });
        }
        (Some(_), Some(protocol)) if !is_kebab(protocol) => {
            return Err(RegistrationError::ProtocolName {
                command: command(),
                protocol: protocol.clone(),
            });
        }
        (Some(_), Some(_)) => {}
    }
    let forbidden = [
        ("arguments", entry.arguments.is_some()),
        ("stderr", entry.stderr.is_some()),
        ("stdin", entry.stdin.is_some()),
        ("interactive", entry.interactive),
        ("streaming_default", entry.streaming_default),
        ("output_file", entry.output_file.is_some()),
        ("output_schema", entry.output_schema.is_some()),
        ("output_formats", !entry.output_formats.is_empty()),
        ("output_media_types", !entry.output_media_types.is_empty()),
        ("async", entry.is_async),
        ("spawns_background_process", entry.spawns_background_process),
        ("cleanup_command", entry.cleanup_command.is_some()),
        ("max_lifetime_seconds", entry.max_lifetime_seconds.is_some()),
        ("confirm_flag", entry.confirm_flag.is_some()),
        ("safe_default", entry.safe_default),
        ("idempotency_key", entry.idempotency_key),
    ];
    if let Some((field, _)) = forbidden.iter().find(|(_, set)| *set) {
        return Err(RegistrationError::NotForProtocol {
            command: command(),
            field: (*field).to_owned(),
        });
    }
    if let Some(flag) = FLAGS_NOT_FOR_PROTOCOL
        .iter()
        .find(|flag| entry.flags.contains_key(**flag))
    {
        return Err(RegistrationError::NotForProtocol {
            command: command(),
            field: format!("--{flag}"),
        });
    }
    Ok(())
}

/// Whether `name` is lowercase kebab-case: words of `a-z0-9` joined by
/// single hyphens.
fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

impl fmt::Display for DangerLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DangerLevel::ReadOnly => "read_only",
            DangerLevel::Mutating => "mutating",
            DangerLevel::Destructive => "destructive",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> CommandEntry {
        let mut entry = CommandEntry {
            description: "a command".to_owned(),
            danger_level: Some(DangerLevel::ReadOnly),
            ..CommandEntry::default()
        };
        entry.exit_codes.insert(
            "0".to_owned(),
            ExitCodeEntry::new("SUCCESS", "done", false, "complete"),
        );
        entry
    }

    fn protocol() -> CommandEntry {
        CommandEntry {
            stdout: Some(STDOUT_PROTOCOL.to_owned()),
            protocol: Some(MCP_STDIO.to_owned()),
            ..plain()
        }
    }

    fn refused_field(entry: CommandEntry) -> String {
        match validate("mcp.serve", &entry) {
            Err(RegistrationError::NotForProtocol { field, .. }) => field,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_plain_and_a_protocol_command_register() {
        let mut manifest = Manifest::new("1.0.0");
        manifest.register("laws", plain()).unwrap();
        manifest.register("serve", protocol()).unwrap();
        assert_eq!(manifest.commands.len(), 2);
    }

    // REQ-C-032: the framework rejects stdout "protocol" without protocol.
    #[test]
    fn stdout_protocol_without_protocol_is_refused() {
        let entry = CommandEntry {
            protocol: None,
            ..protocol()
        };
        assert!(matches!(
            validate("s", &entry),
            Err(RegistrationError::StdoutWithoutProtocol { .. })
        ));
    }

    // REQ-C-032: the framework rejects protocol without stdout "protocol".
    #[test]
    fn protocol_without_stdout_protocol_is_refused() {
        let entry = CommandEntry {
            stdout: None,
            ..protocol()
        };
        assert!(matches!(
            validate("s", &entry),
            Err(RegistrationError::ProtocolWithoutStdout { .. })
        ));
    }

    #[test]
    fn another_stdout_value_is_refused() {
        let entry = CommandEntry {
            stdout: Some("envelopes".to_owned()),
            ..protocol()
        };
        assert!(matches!(
            validate("s", &entry),
            Err(RegistrationError::UnknownStdout { .. })
        ));
    }

    #[test]
    fn a_protocol_name_must_be_kebab_case() {
        for bad in ["MCP", "mcp_stdio", "mcp--stdio", "-lsp", ""] {
            let entry = CommandEntry {
                protocol: Some(bad.to_owned()),
                ..protocol()
            };
            assert!(
                matches!(
                    validate("s", &entry),
                    Err(RegistrationError::ProtocolName { .. })
                ),
                "{bad:?}"
            );
        }
        for good in ["mcp-stdio", "lsp", "dap", "x2-y"] {
            let entry = CommandEntry {
                protocol: Some(good.to_owned()),
                ..protocol()
            };
            assert_eq!(validate("s", &entry), Ok(()), "{good:?}");
        }
    }

    // REQ-C-032: the fields that do not combine with a protocol command,
    // each by name.
    #[test]
    fn passthrough_arguments_are_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            arguments: Some("passthrough".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "arguments");
    }

    #[test]
    fn stderr_child_log_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            stderr: Some("child_log".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "stderr");
    }

    #[test]
    fn a_stdin_payload_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            stdin: Some("json".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "stdin");
    }

    #[test]
    fn interactive_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            interactive: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "interactive");
    }

    #[test]
    fn streaming_default_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            streaming_default: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "streaming_default");
    }

    #[test]
    fn output_file_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            output_file: Some("output".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "output_file");
    }

    #[test]
    fn output_schema_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            output_schema: Some(serde_json::json!({"type": "object"})),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "output_schema");
    }

    #[test]
    fn output_formats_are_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            output_formats: vec!["json".to_owned()],
            ..protocol()
        };
        assert_eq!(refused_field(entry), "output_formats");
    }

    #[test]
    fn output_media_types_are_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            output_media_types: vec!["text/plain".to_owned()],
            ..protocol()
        };
        assert_eq!(refused_field(entry), "output_media_types");
    }

    #[test]
    fn async_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            is_async: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "async");
    }

    #[test]
    fn spawns_background_process_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            spawns_background_process: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "spawns_background_process");
    }

    #[test]
    fn cleanup_command_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            cleanup_command: Some("stop".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "cleanup_command");
    }

    #[test]
    fn max_lifetime_seconds_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            max_lifetime_seconds: Some(60),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "max_lifetime_seconds");
    }

    #[test]
    fn confirm_flag_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            confirm_flag: Some("yes".to_owned()),
            ..protocol()
        };
        assert_eq!(refused_field(entry), "confirm_flag");
    }

    #[test]
    fn safe_default_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            safe_default: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "safe_default");
    }

    #[test]
    fn idempotency_key_is_refused_on_a_protocol_command() {
        let entry = CommandEntry {
            idempotency_key: true,
            ..protocol()
        };
        assert_eq!(refused_field(entry), "idempotency_key");
    }

    // REQ-C-032: a protocol command does not accept --idempotency-key,
    // --dry-run, --output, or --confirm-destructive.
    #[test]
    fn the_flags_of_single_results_are_refused_on_a_protocol_command() {
        for flag in FLAGS_NOT_FOR_PROTOCOL {
            let mut entry = protocol();
            entry
                .flags
                .insert((*flag).to_owned(), Flag::new(FlagType::String, "x"));
            assert_eq!(refused_field(entry), format!("--{flag}"));
        }
    }

    #[test]
    fn the_same_fields_are_accepted_on_a_command_without_stdout() {
        let mut entry = CommandEntry {
            arguments: Some("passthrough".to_owned()),
            stdin: Some("json".to_owned()),
            interactive: true,
            output_file: Some("output".to_owned()),
            idempotency_key: true,
            ..plain()
        };
        entry
            .flags
            .insert("output".to_owned(), Flag::new(FlagType::Path, "x"));
        assert_eq!(validate("record", &entry), Ok(()));
    }

    // REQ-C-032: a manifest with mcp: true on any command fails validation.
    #[test]
    fn mcp_true_is_refused_on_any_command() {
        for base in [plain(), protocol()] {
            let entry = CommandEntry {
                mcp: Some(true),
                ..base
            };
            assert!(matches!(
                validate("c", &entry),
                Err(RegistrationError::McpTrue { .. })
            ));
        }
        let entry = CommandEntry {
            mcp: Some(false),
            ..plain()
        };
        assert_eq!(validate("c", &entry), Ok(()));
    }

    #[test]
    fn exit_code_zero_and_a_danger_level_are_required() {
        let mut entry = plain();
        entry.exit_codes.clear();
        assert!(matches!(
            validate("c", &entry),
            Err(RegistrationError::NoSuccessCode { .. })
        ));
        let entry = CommandEntry {
            danger_level: None,
            ..plain()
        };
        assert!(matches!(
            validate("c", &entry),
            Err(RegistrationError::NoDangerLevel { .. })
        ));
    }

    #[test]
    fn a_name_registers_once() {
        let mut manifest = Manifest::new("1");
        manifest.register("c", plain()).unwrap();
        assert!(matches!(
            manifest.register("c", plain()),
            Err(RegistrationError::Duplicate { .. })
        ));
    }

    #[test]
    fn unset_fields_stay_out_of_the_json() {
        // A `Value` holds its keys sorted.
        let json = serde_json::to_value(plain()).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "danger_level",
                "description",
                "exit_codes",
                "flags",
                "required_scopes"
            ]
        );
    }
}
