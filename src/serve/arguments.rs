//! A tool's arguments as its command's flags: the input schema is read from
//! the clap command (`manifest::args`), and a call's arguments become a
//! command line that clap parses, so that the defaults, the checks and the
//! values are the command line's own.
//!
//! A property is a flag's id (`deny_warnings`, `skip_tools`). The flags a
//! tool takes are those [`crate::cli::declared`] does not keep off it; a
//! call naming any other is refused, whatever clap would make of it.

use std::error::Error as _;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use serde_json::{Map, Value, json};

use crate::cli::declared::{ToolArg, tool_arg};
use crate::manifest::FlagType;
use crate::manifest::args::{ArgSpec, arg_named, args};

/// The flags of one command a tool takes.
#[derive(Debug, Clone)]
pub struct ToolArgs {
    /// The command (its subcommand of the command line), built.
    command: clap::Command,
    /// Each flag the tool takes, and its bound.
    taken: Vec<(ArgSpec, Option<u64>)>,
}

impl ToolArgs {
    /// The flags of `command` (a subcommand of the command line, by its
    /// name there) that its tool takes.
    pub fn of(command: &clap::Command) -> ToolArgs {
        let name = command.get_name();
        let taken = args(command)
            .into_iter()
            .filter_map(|spec| match tool_arg(name, &spec.id) {
                ToolArg::Local => None,
                ToolArg::AtMost(most) => Some((spec, Some(most))),
                ToolArg::Taken => Some((spec, None)),
            })
            .collect();
        let mut command = command.clone();
        command.build();
        ToolArgs { command, taken }
    }

    /// The tool's input schema: an object with one property per flag
    /// taken, nothing else, and the flags the command needs required.
    pub fn input_schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (spec, most) in &self.taken {
            properties.insert(spec.id.clone(), property(spec, *most));
            if spec.required {
                required.push(Value::from(spec.id.clone()));
            }
        }
        let mut schema = json!({
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        });
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }

    /// The arguments of a call, parsed as the command line parses the same
    /// flags.
    ///
    /// # Errors
    ///
    /// A message for the agent, naming the argument: one the tool does not
    /// take, a value of the wrong JSON type or past its bound, or whatever
    /// clap refuses.
    pub fn parse<T: clap::FromArgMatches>(&self, arguments: &Value) -> Result<T, String> {
        let matches = self.matches(arguments)?;
        T::from_arg_matches(&matches).map_err(|err| self.message(&err))
    }

    /// The arguments of a call, as clap's matches of the same command line.
    ///
    /// # Errors
    ///
    /// As [`ToolArgs::parse`].
    pub fn matches(&self, arguments: &Value) -> Result<clap::ArgMatches, String> {
        let argv = self.argv(arguments)?;
        self.command
            .clone()
            .try_get_matches_from(argv)
            .map_err(|err| self.message(&err))
    }

    /// The command line of a call: the command's name, each flag as
    /// `--name=value` (so that no value is read as a flag), the leading
    /// positional values, then `--` and the values after it.
    fn argv(&self, arguments: &Value) -> Result<Vec<String>, String> {
        let empty = Map::new();
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            Value::Null => &empty,
            _ => return Err("the arguments must be an object".to_owned()),
        };
        let mut flags = Vec::new();
        let mut leading = Vec::new();
        let mut trailing = Vec::new();
        for (key, value) in arguments {
            let Some((spec, most)) = self.taken.iter().find(|(spec, _)| spec.id == *key) else {
                return Err(format!(
                    "`{key}` is no argument of {}",
                    self.command.get_name()
                ));
            };
            let values = match (spec.kind, value) {
                (FlagType::Boolean, Value::Bool(set)) => {
                    if *set && let Some(long) = &spec.long {
                        flags.push(format!("--{long}"));
                    }
                    continue;
                }
                (FlagType::Boolean, _) => return Err(format!("`{key}` must be true or false")),
                (FlagType::Array, Value::Array(items)) => items
                    .iter()
                    .map(|item| scalar(key, item, *most))
                    .collect::<Result<Vec<_>, _>>()?,
                (FlagType::Array, _) => return Err(format!("`{key}` must be an array")),
                (_, value) => vec![scalar(key, value, *most)?],
            };
            match (spec.positional, &spec.long) {
                (Some("after_separator"), _) => trailing.extend(values),
                (Some(_), _) => {
                    if let Some(value) = values.iter().find(|value| value.starts_with('-')) {
                        return Err(format!(
                            "`{key}`: `{value}` begins with `-`; write it as `./{value}`"
                        ));
                    }
                    leading.extend(values);
                }
                (None, Some(long)) => {
                    flags.extend(values.iter().map(|value| format!("--{long}={value}")));
                }
                (None, None) => return Err(format!("`{key}` is no argument of this tool")),
            }
        }
        let mut argv = vec![self.command.get_name().to_owned()];
        argv.extend(flags);
        argv.extend(leading);
        if !trailing.is_empty() {
            argv.push("--".to_owned());
            argv.extend(trailing);
        }
        Ok(argv)
    }

    /// What clap refused, in the tool's words: arguments by their property
    /// names, and nothing of the command line's usage.
    fn message(&self, err: &clap::Error) -> String {
        let named = |kind: ContextKind| -> Vec<String> {
            let texts = match err.get(kind) {
                Some(ContextValue::String(text)) => vec![text.clone()],
                Some(ContextValue::Strings(texts)) => texts.clone(),
                _ => Vec::new(),
            };
            texts
                .iter()
                .map(|text| match arg_named(&self.command, text) {
                    Some(arg) => format!("`{}`", arg.get_id()),
                    None => format!("`{text}`"),
                })
                .collect()
        };
        let value = match err.get(ContextKind::InvalidValue) {
            Some(ContextValue::String(value)) => value.clone(),
            _ => String::new(),
        };
        match err.kind() {
            ErrorKind::ValueValidation => {
                let why = err
                    .source()
                    .map(|why| format!(": {why}"))
                    .unwrap_or_default();
                format!(
                    "{}: invalid value `{value}`{why}",
                    named(ContextKind::InvalidArg).join(", ")
                )
            }
            ErrorKind::InvalidValue => format!(
                "{}: invalid value `{value}`",
                named(ContextKind::InvalidArg).join(", ")
            ),
            ErrorKind::ArgumentConflict => format!(
                "{} cannot be given with {}",
                named(ContextKind::InvalidArg).join(", "),
                named(ContextKind::PriorArg).join(", ")
            ),
            ErrorKind::MissingRequiredArgument => {
                format!("missing {}", named(ContextKind::InvalidArg).join(" and "))
            }
            _ => {
                let rendered = err.render().to_string();
                let first = rendered.lines().next().unwrap_or_default();
                first.trim_start_matches("error: ").to_owned()
            }
        }
    }
}

/// One JSON value as a command-line value: text as it stands, a number as
/// written, at most `most`.
fn scalar(key: &str, value: &Value, most: Option<u64>) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) => {
            if let (Some(most), Some(n)) = (most, number.as_u64())
                && n > most
            {
                return Err(format!("`{key}` must be at most {most}"));
            }
            Ok(number.to_string())
        }
        _ => Err(format!("`{key}` must be a string or a number")),
    }
}

/// The schema of one flag's property.
fn property(spec: &ArgSpec, most: Option<u64>) -> Value {
    let mut property = match spec.kind {
        FlagType::Array => {
            let mut array = json!({"type": "array", "items": value_schema(spec, most)});
            // A list the command needs holds something.
            if spec.required {
                array["minItems"] = json!(1);
            }
            array
        }
        _ => value_schema(spec, most),
    };
    property["description"] = Value::from(spec.description.clone());
    if spec.item != FlagType::Boolean
        && let Some(default) = &spec.default
    {
        property["default"] = default.clone();
    }
    property
}

/// The schema of one value of a flag.
fn value_schema(spec: &ArgSpec, most: Option<u64>) -> Value {
    match spec.item {
        FlagType::Boolean => json!({"type": "boolean"}),
        FlagType::Enum => json!({"enum": spec.values}),
        FlagType::Integer => {
            let mut schema = json!({"type": "integer"});
            if let Some((least, greatest)) = spec.range {
                schema["minimum"] = number(least);
                let greatest = most.map_or(greatest, |most| greatest.min(i128::from(most)));
                // Past this, JSON's readers do not agree on the number.
                if greatest < i128::from(u64::MAX) {
                    schema["maximum"] = number(greatest);
                }
            }
            schema
        }
        _ => json!({"type": "string"}),
    }
}

fn number(n: i128) -> Value {
    u64::try_from(n)
        .map(Value::from)
        .or_else(|_| i64::try_from(n).map(Value::from))
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use clap::{Arg, ArgAction, ArgMatches};

    use super::*;

    /// A command named `check`, whose `junit` the table keeps off its
    /// tool.
    fn tool() -> ToolArgs {
        let command = clap::Command::new("check")
            .arg(Arg::new("paths").value_name("PATH").num_args(1..))
            .arg(
                Arg::new("rounds")
                    .long("rounds")
                    .value_parser(clap::value_parser!(u16).range(1..)),
            )
            .arg(Arg::new("junit").long("junit"))
            .arg(
                Arg::new("no_probes")
                    .long("no-probes")
                    .action(ArgAction::SetTrue)
                    .conflicts_with("no_replay"),
            )
            .arg(
                Arg::new("no_replay")
                    .long("no-replay")
                    .action(ArgAction::SetTrue)
                    .requires("command"),
            )
            .arg(Arg::new("bad_flag").long("bad-flag").default_value("--x"))
            .arg(
                Arg::new("command")
                    .value_name("SERVER CMD")
                    .num_args(1..)
                    .last(true),
            );
        ToolArgs::of(&command)
    }

    fn parse(arguments: Value) -> Result<ArgMatches, String> {
        tool().matches(&arguments)
    }

    #[test]
    fn the_schema_has_the_flags_the_tool_takes() {
        let schema = tool().input_schema();
        let properties = schema["properties"].as_object().unwrap();
        // `junit` is `check`'s, and the tool never takes it.
        assert!(!properties.contains_key("junit"));
        assert_eq!(properties["no_probes"]["type"], "boolean");
        assert_eq!(properties["rounds"]["minimum"], 1);
        assert_eq!(properties["rounds"]["maximum"], 65535);
        assert_eq!(properties["paths"]["items"]["type"], "string");
        assert_eq!(properties["bad_flag"]["default"], "--x");
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn a_call_is_parsed_as_its_command_line() {
        let matches = parse(json!({
            "paths": ["a.jsonl"],
            "no_replay": false,
            "bad_flag": "--weird",
            "command": ["server", "--port", "1"],
        }))
        .unwrap();
        let strings = |id: &str| -> Vec<String> {
            matches
                .get_many::<String>(id)
                .map(|values| values.cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(strings("paths"), ["a.jsonl"]);
        assert_eq!(strings("command"), ["server", "--port", "1"]);
        assert_eq!(strings("bad_flag"), ["--weird"]);
        assert!(!matches.get_flag("no_replay"));
        // Absent, the default is clap's.
        let matches = parse(json!({})).unwrap();
        assert_eq!(matches.get_one::<String>("bad_flag").unwrap(), "--x");
    }

    #[test]
    fn what_clap_refuses_is_said_in_the_tool_s_words() {
        let err = parse(json!({"rounds": 0})).unwrap_err();
        assert!(err.starts_with("`rounds`: invalid value `0`"), "{err}");
        let err = parse(json!({"no_replay": true})).unwrap_err();
        assert_eq!(err, "missing `command`");
        let err =
            parse(json!({"no_replay": true, "no_probes": true, "command": ["s"]})).unwrap_err();
        assert!(
            err.contains("`no_probes`") && err.contains("`no_replay`"),
            "{err}"
        );
        assert!(err.contains("cannot be given with"), "{err}");
    }

    #[test]
    fn an_argument_the_tool_does_not_take_is_refused() {
        // Also when the command line has the flag.
        let err = parse(json!({"junit": "report.xml"})).unwrap_err();
        assert_eq!(err, "`junit` is no argument of check");
        let err = parse(json!({"nope": 1})).unwrap_err();
        assert_eq!(err, "`nope` is no argument of check");
    }

    #[test]
    fn no_value_becomes_a_flag() {
        // A path that looks like a flag is refused, not read as one.
        let err = parse(json!({"paths": ["--junit=x"]})).unwrap_err();
        assert!(err.contains("begins with `-`"), "{err}");
        // A flag's value stays its value.
        let matches = parse(json!({"bad_flag": "--no-probes"})).unwrap();
        assert!(!matches.get_flag("no_probes"));
        assert_eq!(
            matches.get_one::<String>("bad_flag").unwrap(),
            "--no-probes"
        );
    }

    #[test]
    fn values_of_the_wrong_json_type_are_refused() {
        assert!(parse(json!({"no_probes": "yes"})).is_err());
        assert!(parse(json!({"paths": "a.jsonl"})).is_err());
        assert!(parse(json!({"paths": [{"a": 1}]})).is_err());
        assert!(parse(json!(["a"])).is_err());
    }
}
