//! The one judge of JSON Schema: what a schema says of a value, valid,
//! invalid with the keywords broken, or unjudged with why.
//!
//! The judge is three-valued on purpose. A value is *valid* only when every
//! keyword that applies to it is decided and holds; *invalid* when a
//! decided keyword fails, whatever the undecided ones would say (an `allOf`
//! fails with any of its branches, an `anyOf` only with all of them);
//! *unjudged* otherwise. Every build has it: the lean validator
//! (`validate.rs`) is this judge with its undecided keywords ignored, the
//! checker holds `structuredContent` to it, `mock` tool arguments, and
//! `fuzz` labels its cases by it. Only the regular expressions of
//! `pattern` and `patternProperties` need the `cli` build
//! (`super::ecma`); the lean build leaves them undecided.
//!
//! Every keyword of JSON Schema 2020-12 is decided, with the forms of
//! draft-07 and 2019-09 that schema generators still emit (`items` as a
//! list with `additionalItems`, `dependencies`, `$ref` whose siblings are
//! ignored, `$recursiveRef`): the types (`1.0` is an integer), `enum` and
//! `const` by value (`1` is `1.0`), the bounds exactly, `multipleOf` where
//! the readings of fractions agree (`numbers.rs`), string lengths in code
//! points, the applicators and their annotations for `unevaluated*`, local
//! references and anchors (`$dynamicRef` resolves as `$ref` does in a
//! schema of one resource). What is left undecided, and why, is said in
//! the verdict: a reference out of the schema or into a resource it embeds
//! (`$id`), a pattern the engines may read differently, a `multipleOf`
//! whose readings differ, a keyword of another dialect that fails (a
//! draft-07 schema's `prefixItems`, a 2020-12 one's `dependencies`, which
//! some validators still apply and others ignore), a malformed keyword, a
//! judgement deeper or longer than the bounds below.
//!
//! Two readings differ in what the standard leaves to a validator. The
//! standard reading ([`Schema::standard`]), which the checker, `mock` and
//! the server library hold values to, takes `format`, the `content*`
//! keywords and unknown keywords as annotations, as 2020-12 does by
//! default: they never fail a value. The portable reading
//! ([`Schema::new`]), by which `fuzz` labels the arguments it sends, asks
//! what any validator a server may use would say: a `format` value other
//! than the ones fuzz draws, and any unknown keyword, leave the value
//! unjudged.

#[cfg(feature = "cli")]
mod features;
mod keywords;
mod numbers;
mod outcome;
mod run;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value;

use super::ecma::Patterns;
pub(crate) use super::text::{short, short_str};
use outcome::{Outcome, Status};
use run::Run;

#[cfg(feature = "cli")]
pub(crate) use features::not_generated_for;
pub(crate) use numbers::{is_integer, json_eq};

/// How deep schema applications nest before a value is left unjudged.
const MAX_DEPTH: usize = 1024;

/// How much of its thread's stack one judgement uses at most: half the
/// stack a thread the crate spawns runs on (2 MiB), whatever the size of
/// each call's frame in the build at hand.
const MAX_STACK: usize = 1 << 20;

/// How many steps (schemas applied, members and items visited) one
/// judgement takes at most under the standard reading, which holds whole
/// answers of any size.
const MAX_STEPS: usize = 1_000_000;

/// The same under the portable reading, by which `fuzz` labels every case
/// it draws (each at most 64 KiB).
const MAX_PORTABLE_STEPS: usize = 200_000;

/// How many broken keywords one verdict lists at most.
const MAX_BROKEN: usize = 64;

/// How many outcomes of references one judgement remembers, each with at
/// most [`MAX_MEMO_BROKEN`] broken keywords and what it evaluated of at
/// most [`MAX_MEMO_MEMBERS`] members or items.
const MAX_MEMO: usize = 1 << 14;

/// See [`MAX_MEMO`].
const MAX_MEMO_BROKEN: usize = 8;

/// See [`MAX_MEMO`].
const MAX_MEMO_MEMBERS: usize = 1024;

/// The longest JSON Pointer a broken keyword names, in bytes; a longer one
/// is cut, and says so.
const MAX_POINTER: usize = 4096;

/// What a schema says of a value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) enum Verdict {
    /// Every keyword that applies is decided, and holds.
    Valid,
    /// A decided keyword fails: the first found.
    Invalid(Broken),
    /// The judge cannot tell, and says why.
    Unjudged(String),
}

/// What a schema says of a value, with every broken keyword.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Judgement {
    /// Every keyword that applies is decided, and holds.
    Valid,
    /// Decided keywords fail: each, once, in document order (at most
    /// [`MAX_BROKEN`]).
    Invalid(Vec<Broken>),
    /// The judge cannot tell, and says why.
    Unjudged(String),
}

/// The keyword a value breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Broken {
    /// The JSON Pointer of the value inside the one judged.
    pub pointer: String,
    /// The keyword, as the schema spells it (`false` for the schema that
    /// allows nothing).
    pub keyword: String,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "arguments: {}", self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// What the judge takes keywords a validator may choose to assert to mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// As JSON Schema 2020-12 says by default: `format` and unknown
    /// keywords are annotations.
    Standard,
    /// As any validator would say: a value whose verdict hangs on `format`
    /// or an unknown keyword is unjudged.
    Portable,
}

/// The dialect a schema declares in `$schema` (2020-12 when it declares
/// none, as MCP 2025-11-25 basic#json-schema-usage asks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// Draft-07 and before: `$ref` ignores its siblings, `items` may be a
    /// list, `dependencies`.
    Draft7,
    /// 2019-09: `items` may be a list, `$recursiveRef`.
    Draft2019,
    /// 2020-12: `prefixItems`, `$dynamicRef`.
    Draft2020,
}

impl Dialect {
    fn name(self) -> &'static str {
        match self {
            Dialect::Draft7 => "draft-07",
            Dialect::Draft2019 => "2019-09",
            Dialect::Draft2020 => "2020-12",
        }
    }
}

/// The formats fuzz draws values for, with the values: under the portable
/// reading, a value of one of these formats is valid only when it is one
/// of these (a validator that asserts formats may be stricter than any
/// check written here), and any other string is unjudged.
pub(crate) const FORMATS: &[(&str, &[&str])] = &[
    (
        "date-time",
        &["2024-01-02T03:04:05Z", "1970-01-01T00:00:00+00:00"],
    ),
    ("date", &["2024-01-02", "1970-01-01"]),
    ("time", &["03:04:05Z", "23:59:59+01:00"]),
    ("email", &["user@example.com"]),
    ("idn-email", &["user@example.com"]),
    ("hostname", &["example.com"]),
    ("idn-hostname", &["example.com"]),
    ("ipv4", &["192.0.2.1", "127.0.0.1"]),
    ("ipv6", &["2001:db8::1", "::1"]),
    ("uri", &["https://example.com/", "urn:isbn:0451450523"]),
    ("uri-reference", &["https://example.com/", "a/b"]),
    ("iri", &["https://example.com/"]),
    ("iri-reference", &["https://example.com/"]),
    ("url", &["https://example.com/"]),
    ("uuid", &["123e4567-e89b-12d3-a456-426614174000"]),
    ("duration", &["P1D", "PT1H"]),
    ("json-pointer", &["", "/a/0"]),
    ("regex", &["^a+$"]),
];

/// The formats schema generators put on numbers (schemars, OpenAPI): they
/// say how wide the number is, and assert nothing a validator checks.
#[cfg(feature = "cli")]
pub(crate) const NUMBER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64",
    "uint128", "float", "double",
];

/// The known values of `format`, if fuzz knows it.
pub(crate) fn format_values(format: &str) -> Option<&'static [&'static str]> {
    FORMATS
        .iter()
        .find(|(name, _)| *name == format)
        .map(|(_, values)| *values)
}

/// A schema, ready to judge values.
pub(crate) struct Schema<'a> {
    root: &'a Value,
    reading: Reading,
    dialect: Dialect,
    /// Draft-04's boolean `exclusiveMinimum` and `exclusiveMaximum`.
    draft4: bool,
    /// The `$schema` the root declares, when it is no dialect the judge
    /// knows (a meta-schema of its own, which may turn vocabularies off):
    /// what fails is then left unjudged.
    unknown_dialect: Option<&'a str>,
    /// The root's `$id`, without its fragment: references may name it.
    base: Option<&'a str>,
    /// The schemas each `$anchor` (or `$dynamicAnchor`, or draft-07's
    /// `$id: "#name"`) names.
    anchors: HashMap<&'a str, &'a Value>,
    /// A subschema has an `$id` of its own: references inside it resolve
    /// against it, which the judge does not follow.
    embedded: bool,
    /// The schema uses `unevaluatedProperties` or `unevaluatedItems`, so
    /// the judgement keeps what each keyword evaluated.
    tracks: bool,
    /// The schema holds a reference (`$ref`, `$dynamicRef`,
    /// `$recursiveRef`) where the scan reached: only then can a judgement
    /// come back to a schema it is applying, so only then does it keep
    /// what it applied.
    refers: bool,
    patterns: Patterns<'a>,
}

impl<'a> Schema<'a> {
    /// The schema `root`, under the portable reading: `fuzz`'s labels.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn new(root: &'a Value) -> Schema<'a> {
        Schema::read(root, Reading::Portable)
    }

    /// The schema `root`, under the standard reading: what the checker,
    /// `mock` and the server library hold values to.
    pub(crate) fn standard(root: &'a Value) -> Schema<'a> {
        Schema::read(root, Reading::Standard)
    }

    fn read(root: &'a Value, reading: Reading) -> Schema<'a> {
        let declared = root.get("$schema").and_then(Value::as_str).unwrap_or("");
        let known = declared.is_empty()
            || [
                "json-schema.org/draft/2020-12/schema",
                "json-schema.org/draft/2019-09/schema",
                "json-schema.org/draft-07/schema",
                "json-schema.org/draft-06/schema",
                "json-schema.org/draft-04/schema",
                "json-schema.org/draft-03/schema",
            ]
            .iter()
            .any(|dialect| declared.contains(dialect));
        let dialect = if ["draft-07", "draft-06", "draft-04", "draft-03"]
            .iter()
            .any(|old| declared.contains(old))
        {
            Dialect::Draft7
        } else if declared.contains("2019-09") {
            Dialect::Draft2019
        } else {
            Dialect::Draft2020
        };
        let base = root
            .get("$id")
            .and_then(Value::as_str)
            .map(|id| id.split('#').next().unwrap_or(id))
            .filter(|id| !id.is_empty());
        let mut schema = Schema {
            root,
            reading,
            dialect,
            draft4: ["draft-04", "draft-03"]
                .iter()
                .any(|old| declared.contains(old)),
            unknown_dialect: (!known).then_some(declared),
            base,
            anchors: HashMap::new(),
            embedded: false,
            tracks: false,
            refers: false,
            patterns: Patterns::default(),
        };
        schema.scan(root, 0, true);
        schema
    }

    /// Notes what the schema holds: its patterns, anchors, embedded
    /// resources and `unevaluated*` keywords.
    fn scan(&mut self, node: &'a Value, depth: usize, at_root: bool) {
        if depth > MAX_DEPTH {
            return;
        }
        match node {
            Value::Object(map) => {
                for (keyword, argument) in map {
                    match (keyword.as_str(), argument) {
                        ("pattern", Value::String(pattern)) => self.patterns.add(pattern),
                        ("$id", Value::String(id)) if !at_root => match id.strip_prefix('#') {
                            Some(anchor) => {
                                self.anchors.entry(anchor).or_insert(node);
                            }
                            None => self.embedded = true,
                        },
                        ("$anchor" | "$dynamicAnchor", Value::String(anchor)) => {
                            self.anchors.entry(anchor).or_insert(node);
                        }
                        ("unevaluatedProperties" | "unevaluatedItems", _) => self.tracks = true,
                        ("$ref" | "$dynamicRef" | "$recursiveRef", _) => self.refers = true,
                        // Values, not schemas.
                        ("enum" | "const" | "default" | "examples", _) => continue,
                        (
                            "properties" | "patternProperties" | "$defs" | "definitions"
                            | "dependentSchemas" | "dependencies",
                            Value::Object(children),
                        ) => {
                            for (name, child) in children {
                                if keyword == "patternProperties" {
                                    self.patterns.add(name);
                                }
                                self.scan(child, depth + 1, false);
                            }
                            continue;
                        }
                        _ => {}
                    }
                    self.scan(argument, depth + 1, false);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.scan(item, depth + 1, false);
                }
            }
            _ => {}
        }
    }

    /// The root schema.
    #[cfg(feature = "cli")]
    pub(crate) fn root(&self) -> &'a Value {
        self.root
    }

    /// How many steps one judgement takes at most.
    fn max_steps(&self) -> usize {
        match self.reading {
            Reading::Standard => MAX_STEPS,
            Reading::Portable => MAX_PORTABLE_STEPS,
        }
    }

    /// Whether `$ref` makes its siblings ignored (draft-07 and before).
    #[cfg(feature = "cli")]
    pub(crate) fn ref_overrides(&self) -> bool {
        self.dialect == Dialect::Draft7
    }

    /// The schema a reference into this schema names: a JSON Pointer
    /// (`#/$defs/a%20b`) or an anchor (`#name`), after the root's `$id` or
    /// alone.
    pub(crate) fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let fragment = match reference.strip_prefix('#') {
            Some(fragment) => fragment,
            None => {
                let rest = reference.strip_prefix(self.base?)?;
                match rest.strip_prefix('#') {
                    Some(fragment) => fragment,
                    None if rest.is_empty() => "",
                    None => return None,
                }
            }
        };
        let fragment = percent_decode(fragment);
        if fragment.is_empty() {
            return Some(self.root);
        }
        if fragment.starts_with('/') {
            return self.root.pointer(&fragment);
        }
        self.anchors.get(fragment.as_str()).copied()
    }

    /// The compiled form of `pattern`, if the regex crate compiles it
    /// within its limits.
    #[cfg(feature = "cli")]
    pub(crate) fn regex(&self, pattern: &str) -> Option<&regex::Regex> {
        self.patterns.get(pattern)?.regex()
    }

    /// The parse of `pattern`, which strings are built from, when its
    /// smallest match can be built within the bounds (a larger random one
    /// cannot, then).
    #[cfg(feature = "cli")]
    pub(crate) fn hir(&self, pattern: &str) -> Option<&regex_syntax::hir::Hir> {
        self.example(pattern)?;
        self.patterns.get(pattern)?.hir()
    }

    /// The smallest match of `pattern` built from its parse (see
    /// `super::pattern::example`), built once.
    #[cfg(feature = "cli")]
    pub(crate) fn example(&self, pattern: &str) -> Option<&str> {
        self.patterns.get(pattern)?.example()
    }

    /// The verdict on `value`: the first broken keyword found, if any.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn judge(&self, value: &Value) -> Verdict {
        let outcome = self.dialect_known(Run::new(self).root(value, false));
        match outcome.status {
            Status::Valid => Verdict::Valid,
            Status::Unjudged => Verdict::Unjudged(outcome.why.unwrap_or_default()),
            Status::Invalid => match outcome.broken.into_iter().next() {
                Some(broken) => Verdict::Invalid(broken),
                None => Verdict::Unjudged("a failure the judge could not name".to_owned()),
            },
        }
    }

    /// `outcome`, unjudged where it fails under a dialect the judge does
    /// not know.
    fn dialect_known(&self, outcome: Outcome) -> Outcome {
        match self.unknown_dialect {
            Some(dialect) if outcome.is_invalid() => Outcome::unjudged(format!(
                "the schema declares the dialect {}, which the judge does not know",
                short_str(dialect)
            )),
            _ => outcome,
        }
    }

    /// The judgement of `value`, with every broken keyword.
    pub(crate) fn judgement(&self, value: &Value) -> Judgement {
        self.judgement_counting(value).0
    }

    /// [`Schema::judgement`], and the number of schema applications it
    /// took.
    pub(super) fn judgement_counting(&self, value: &Value) -> (Judgement, usize) {
        let mut run = Run::new(self);
        let outcome = self.dialect_known(run.root(value, true));
        let judgement = match outcome.status {
            Status::Valid => Judgement::Valid,
            Status::Unjudged => Judgement::Unjudged(outcome.why.unwrap_or_default()),
            Status::Invalid => {
                let mut seen = HashSet::new();
                let broken: Vec<Broken> = outcome
                    .broken
                    .into_iter()
                    .filter(|broken| seen.insert(broken.clone()))
                    .collect();
                match broken.is_empty() {
                    true => Judgement::Unjudged("a failure the judge could not name".to_owned()),
                    false => Judgement::Invalid(broken),
                }
            }
        };
        (judgement, run.steps)
    }
}

/// Whether `value` is of the JSON Schema type `name`.
pub(crate) fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_number().is_some_and(is_integer),
        _ => false,
    }
}

/// The types a value should have been, in words: `a string or null`.
fn describe_types(names: &[&str]) -> String {
    let words: Vec<&str> = names
        .iter()
        .map(|name| match *name {
            "null" => "null",
            "boolean" => "a boolean",
            "object" => "an object",
            "array" => "an array",
            "number" => "a number",
            "integer" => "an integer",
            _ => "a string",
        })
        .collect();
    words.join(" or ")
}

/// A pattern quoted for messages, shortened.
#[cfg(feature = "cli")]
pub(crate) fn quoted(pattern: &str) -> String {
    match pattern.char_indices().nth(57) {
        None => format!("{pattern:?}"),
        Some((cut, _)) => format!("{:?}…", &pattern[..cut]),
    }
}

/// A name (a property, a keyword) as short text, for messages.
fn short_name(name: &str) -> String {
    if name.chars().count() <= 60 {
        return name.to_owned();
    }
    let start: String = name.chars().take(57).collect();
    format!("{start}…")
}

/// One JSON Pointer token, escaped (RFC 6901).
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `%XX` escapes of a URI fragment decoded (`#/$defs/a%20b`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}
