//! The flags of a clap command, read from clap's own declarations: what the
//! manifest lists for the command, and what an MCP tool that runs it builds
//! its input schema from.
//!
//! Nothing here knows a flag by name. The kind of a flag is its value
//! parser's (a path, a duration, an integer, one of the values the parser
//! names, any text), a list when it is repeatable or takes several values;
//! its default, help and position are clap's; whether a command refuses to
//! run without it, and the bounds of an integer, are what clap's parser
//! says when asked.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};
use serde_json::Value;

use super::{Flag, FlagType};

/// One argument of a command, as clap declares it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ArgSpec {
    /// clap's id (a field's name with the derive API).
    pub id: String,
    /// Its name in the manifest: the long flag without `--`, or the id of a
    /// positional argument.
    pub name: String,
    /// The long flag without `--`; `None` for a positional argument.
    pub long: Option<String>,
    /// What it takes: [`FlagType::Array`] for a list.
    pub kind: FlagType,
    /// What one value is: the same as `kind` but for a list, whose items it
    /// describes; [`FlagType::Boolean`] for a switch.
    pub item: FlagType,
    /// The values it takes, when its parser names them.
    pub values: Vec<String>,
    /// Its value when absent, where clap has one.
    pub default: Option<Value>,
    /// Whether the command refuses to run without it.
    pub required: bool,
    /// `"leading"` for a positional argument, `"after_separator"` for one
    /// given after `--`.
    pub positional: Option<&'static str>,
    /// Its help, as `-h` shows it.
    pub description: String,
    /// The least and the greatest integer its parser accepts.
    pub range: Option<(i128, i128)>,
}

/// Every argument of `command` but `--help` and `--version`, in clap's
/// order.
pub fn args(command: &Command) -> Vec<ArgSpec> {
    let mut command = command.clone();
    command.build();
    let required = missing_from_nothing(&command);
    command
        .get_arguments()
        .filter(|arg| {
            !matches!(
                arg.get_action(),
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
            )
        })
        .map(|arg| {
            let required = required.iter().any(|id| arg.get_id() == id.as_str());
            spec(&command, arg, required)
        })
        .collect()
}

/// The manifest's flags of `command`, by name; `mcp` says, by a flag's id,
/// what the flag's `mcp` field holds (`Some(false)`: the command's tool
/// never takes it).
pub fn flags(command: &Command, mcp: impl Fn(&str) -> Option<bool>) -> BTreeMap<String, Flag> {
    args(command)
        .into_iter()
        .map(|spec| {
            let flag = Flag {
                kind: spec.kind,
                required: spec.required,
                default: spec.default,
                description: spec.description,
                values: if spec.kind == FlagType::Enum {
                    spec.values
                } else {
                    Vec::new()
                },
                positional: spec.positional,
                mcp: mcp(&spec.id),
            };
            (spec.name, flag)
        })
        .collect()
}

/// The argument of `command` that clap's messages name as `text`: a flag
/// (`--timeout <DURATION>`, `-j`), or a positional argument by its value
/// name (`<PATH>...`, `[SERVER CMD]...`, `-- <SERVER CMD>...`).
pub fn arg_named<'a>(command: &'a Command, text: &str) -> Option<&'a Arg> {
    let text = text.trim();
    let text = text.strip_prefix("-- ").unwrap_or(text);
    if let Some(long) = text.strip_prefix("--") {
        let long = long.split([' ', '=']).next().unwrap_or_default();
        return command
            .get_arguments()
            .find(|arg| arg.get_long() == Some(long));
    }
    if let Some(short) = text.strip_prefix('-') {
        let short = short.chars().next()?;
        return command
            .get_arguments()
            .find(|arg| arg.get_short() == Some(short));
    }
    let name = text
        .trim_end_matches("...")
        .trim_start_matches(['<', '['])
        .trim_end_matches(['>', ']']);
    command.get_arguments().find(|arg| {
        arg.is_positional()
            && (arg
                .get_value_names()
                .and_then(|names| names.first())
                .map(|n| n.as_str())
                == Some(name)
                || arg.get_id() == name)
    })
}

fn spec(command: &Command, arg: &Arg, required: bool) -> ArgSpec {
    let takes = arg.get_num_args().unwrap_or_default();
    let switch = !takes.takes_values();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|value| value.get_name().to_owned())
        .collect();
    let type_id = arg.get_value_parser().type_id();
    let bounds = integer_bounds(&type_id);
    let item = if switch {
        match arg.get_action() {
            ArgAction::Count => FlagType::Integer,
            _ => FlagType::Boolean,
        }
    } else if !values.is_empty() {
        FlagType::Enum
    } else if type_id == TypeId::of::<PathBuf>() {
        FlagType::Path
    } else if type_id == TypeId::of::<Duration>() {
        FlagType::Duration
    } else if bounds.is_some() {
        FlagType::Integer
    } else {
        FlagType::String
    };
    let list = matches!(arg.get_action(), ArgAction::Append) || takes.max_values() > 1;
    let kind = if list { FlagType::Array } else { item };
    let default = default(arg, item, list);
    ArgSpec {
        id: arg.get_id().to_string(),
        name: arg
            .get_long()
            .map_or_else(|| arg.get_id().to_string(), str::to_owned),
        long: arg.get_long().map(str::to_owned),
        kind,
        item,
        values,
        default,
        required: required || arg.is_required_set(),
        positional: arg.is_positional().then_some(if arg.is_last_set() {
            "after_separator"
        } else {
            "leading"
        }),
        description: arg.get_help().map(ToString::to_string).unwrap_or_default(),
        range: bounds
            .filter(|_| item == FlagType::Integer && !switch)
            .map(|bounds| accepted_range(command, arg, bounds)),
    }
}

/// The default of `arg` as JSON: a boolean or a number where the value is
/// one, else text; a list for a list.
fn default(arg: &Arg, item: FlagType, list: bool) -> Option<Value> {
    let values: Vec<Value> = arg
        .get_default_values()
        .iter()
        .map(|value| {
            let text = value.to_string_lossy();
            match item {
                FlagType::Boolean => text
                    .parse::<bool>()
                    .map_or_else(|_| text.as_ref().into(), Value::from),
                FlagType::Integer => serde_json::from_str::<serde_json::Number>(&text)
                    .map_or_else(|_| text.as_ref().into(), Value::Number),
                _ => Value::from(text.as_ref()),
            }
        })
        .collect();
    match (list, values.len()) {
        (_, 0) => None,
        (false, 1) => values.into_iter().next(),
        _ => Some(Value::Array(values)),
    }
}

/// The range of an integer type clap parses, by its type.
fn integer_bounds(type_id: &impl PartialEq<TypeId>) -> Option<(i128, i128)> {
    macro_rules! bounds {
        ($($t:ty),*) => {
            $(if *type_id == TypeId::of::<$t>() {
                return Some((<$t>::MIN as i128, <$t>::MAX as i128));
            })*
        };
    }
    bounds!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
    None
}

/// The least and the greatest value in `bounds` that clap accepts for
/// `arg`: a ranged parser (`value_parser!(u16).range(1..)`) narrows its
/// type's, and says so only by accepting or refusing a value. Whatever it
/// accepts is one interval; its ends are found by halving from a value it
/// accepts (an end of the type's range, the default, a power of two or of
/// ten), and when none is, clap is not asked further: the type's range
/// stands.
fn accepted_range(command: &Command, arg: &Arg, (low, high): (i128, i128)) -> (i128, i128) {
    let mut command = command.clone();
    let mut takes = |value: i128| accepts(&mut command, arg, value);
    let default = arg
        .get_default_values()
        .first()
        .and_then(|value| value.to_str()?.parse::<i128>().ok());
    let powers = (0..64).flat_map(|n| [1i128 << n, 10i128.pow(n.min(38))]);
    let Some(inside) = [low, high]
        .into_iter()
        .chain(default)
        .chain(powers)
        .filter(|value| (low..=high).contains(value))
        .find(|&value| takes(value))
    else {
        return (low, high);
    };
    // The last value taken and the first refused, walking from `inside`
    // towards `end`.
    let mut edge = |end: i128| {
        if takes(end) {
            return end;
        }
        let (mut taken, mut refused) = (inside, end);
        while (refused - taken).abs() > 1 {
            let middle = taken + (refused - taken) / 2;
            if takes(middle) {
                taken = middle;
            } else {
                refused = middle;
            }
        }
        taken
    };
    (edge(low), edge(high))
}

/// Whether `command` takes `value` for `arg`: a parse that fails on
/// anything but the value (another argument missing) still took it.
fn accepts(command: &mut Command, arg: &Arg, value: i128) -> bool {
    let given = match arg.get_long() {
        Some(long) => format!("--{long}={value}"),
        None => value.to_string(),
    };
    let argv = [command.get_name().to_owned(), given];
    match command.try_get_matches_from_mut(argv) {
        Ok(_) => true,
        Err(err) => !matches!(
            err.kind(),
            ErrorKind::ValueValidation | ErrorKind::InvalidValue
        ),
    }
}

/// The ids of the arguments `command` refuses to run without: those clap
/// says are missing from an empty command line. This names an argument
/// required unless another is given (`mock`'s transcripts, unless
/// `--schema`) too, as clap's `is_required_set` does not.
fn missing_from_nothing(command: &Command) -> Vec<String> {
    let err = match command.clone().try_get_matches_from([command.get_name()]) {
        Ok(_) => return Vec::new(),
        Err(err) if err.kind() == ErrorKind::MissingRequiredArgument => err,
        Err(_) => return Vec::new(),
    };
    let named = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(names)) => names.clone(),
        Some(ContextValue::String(name)) => vec![name.clone()],
        _ => Vec::new(),
    };
    named
        .iter()
        .filter_map(|name| arg_named(command, name))
        .map(|arg| arg.get_id().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::builder::PossibleValuesParser;

    use super::*;

    fn command() -> Command {
        Command::new("try")
            .arg(
                Arg::new("paths")
                    .value_name("PATH")
                    .num_args(1..)
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("Files"),
            )
            .arg(
                Arg::new("jobs")
                    .long("jobs")
                    .value_parser(clap::value_parser!(u16).range(3..=900))
                    .help("How many"),
            )
            .arg(
                Arg::new("seed")
                    .long("seed")
                    .value_parser(clap::value_parser!(u64)),
            )
            .arg(
                Arg::new("quiet")
                    .long("quiet")
                    .action(ArgAction::SetTrue)
                    .help("Say less"),
            )
            .arg(
                Arg::new("mode")
                    .long("mode")
                    .value_parser(PossibleValuesParser::new(["fast", "slow"]))
                    .default_value("fast"),
            )
            .arg(
                Arg::new("tag")
                    .long("tag")
                    .action(ArgAction::Append)
                    .help("A tag (repeatable)"),
            )
            .arg(Arg::new("schema").long("schema").action(ArgAction::SetTrue))
            .arg(
                Arg::new("command")
                    .value_name("SERVER CMD")
                    .num_args(1..)
                    .last(true)
                    .required_unless_present("schema"),
            )
    }

    fn spec(id: &str) -> ArgSpec {
        args(&command())
            .into_iter()
            .find(|spec| spec.id == id)
            .unwrap()
    }

    #[test]
    fn each_kind_is_read_from_the_value_parser() {
        assert_eq!(spec("paths").kind, FlagType::Array);
        assert_eq!(spec("paths").item, FlagType::Path);
        assert_eq!(spec("paths").positional, Some("leading"));
        assert_eq!(spec("jobs").kind, FlagType::Integer);
        assert_eq!(spec("quiet").kind, FlagType::Boolean);
        assert_eq!(spec("quiet").default, Some(Value::Bool(false)));
        assert_eq!(spec("quiet").description, "Say less");
        assert_eq!(spec("mode").kind, FlagType::Enum);
        assert_eq!(spec("mode").values, ["fast", "slow"]);
        assert_eq!(spec("mode").default, Some(Value::from("fast")));
        assert_eq!(spec("tag").kind, FlagType::Array);
        assert_eq!(spec("tag").item, FlagType::String);
        assert_eq!(spec("command").positional, Some("after_separator"));
        let ids: Vec<String> = args(&command()).into_iter().map(|spec| spec.id).collect();
        assert!(!ids.contains(&"help".to_owned()), "{ids:?}");
    }

    #[test]
    fn an_integer_has_the_range_its_parser_accepts() {
        assert_eq!(spec("jobs").range, Some((3, 900)));
        assert_eq!(spec("seed").range, Some((0, i128::from(u64::MAX))));
        assert_eq!(spec("mode").range, None);
    }

    #[test]
    fn required_is_what_an_empty_command_line_lacks() {
        // Required unless `--schema`: the command does not run without it.
        assert!(spec("command").required);
        assert!(!spec("paths").required);
        assert!(!spec("schema").required);
    }

    #[test]
    fn clap_s_names_of_an_argument_lead_back_to_it() {
        let mut command = command();
        command.build();
        let id = |text: &str| arg_named(&command, text).map(|arg| arg.get_id().to_string());
        assert_eq!(id("--jobs <JOBS>").as_deref(), Some("jobs"));
        assert_eq!(id("--quiet").as_deref(), Some("quiet"));
        assert_eq!(id("[PATH]...").as_deref(), Some("paths"));
        assert_eq!(id("<PATH>...").as_deref(), Some("paths"));
        assert_eq!(id("-- <SERVER CMD>...").as_deref(), Some("command"));
        assert_eq!(id("--nope"), None);
    }

    #[test]
    fn the_manifest_flags_are_keyed_by_long_name_and_say_mcp_as_asked() {
        let flags = flags(&command(), |id| (id == "tag").then_some(false));
        assert_eq!(flags["tag"].mcp, Some(false));
        assert_eq!(flags["jobs"].mcp, None);
        assert!(flags["jobs"].values.is_empty());
        assert!(flags.contains_key("paths"));
    }
}
