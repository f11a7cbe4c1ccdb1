//! A tool's `inputSchema` as fuzz reads it: every value judged valid,
//! invalid or unjudged, and the features of the schema fuzz does not
//! generate for.
//!
//! The judge is three-valued on purpose. A value is *valid* only when every
//! keyword that applies to it is one the judge knows and each holds;
//! *invalid* when some keyword the judge knows fails (and nothing the judge
//! does not know could make it pass); *unjudged* otherwise: an unknown
//! keyword, a `format` whose value fuzz did not pick from its own known
//! examples, a pattern the regex crate reads differently from ECMA-262. A
//! check that depends on the label (an invalid argument must be refused, a
//! valid one must not get a protocol error) is made only on valid and
//! invalid cases, so no finding rests on a guess.
//!
//! The keywords are those of JSON Schema 2020-12 that tool schemas use, with
//! the draft-07 forms schema generators still emit (`items` as a list,
//! `dependencies`, `$ref` whose siblings are ignored); `docs/fuzz.md` lists
//! them.

use std::collections::{BTreeSet, HashMap};

use regex::Regex;
use serde_json::{Map, Number, Value};

use crate::jsonrpc::json_kind;

/// How far references and nesting are followed before a value is left
/// unjudged.
const MAX_DEPTH: usize = 64;

/// What a schema says of a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Every keyword that applies is known, and holds.
    Valid,
    /// A known keyword fails.
    Invalid(Broken),
    /// The judge cannot tell, and says why.
    Unjudged(String),
}

impl Verdict {
    fn invalid(pointer: &str, keyword: &str, message: String) -> Verdict {
        Verdict::Invalid(Broken {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            message,
        })
    }

    /// Both verdicts at once (`allOf`): the first invalid one, else the
    /// first unjudged one, else valid.
    fn and(self, other: impl FnOnce() -> Verdict) -> Verdict {
        match self {
            Verdict::Invalid(_) => self,
            Verdict::Valid => other(),
            Verdict::Unjudged(why) => match other() {
                invalid @ Verdict::Invalid(_) => invalid,
                _ => Verdict::Unjudged(why),
            },
        }
    }

    /// `not`.
    fn negated(self, pointer: &str) -> Verdict {
        match self {
            Verdict::Valid => {
                Verdict::invalid(pointer, "not", "matches the schema of `not`".to_owned())
            }
            Verdict::Invalid(_) => Verdict::Valid,
            unjudged => unjudged,
        }
    }
}

/// The keyword a value breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Broken {
    /// The JSON Pointer of the value inside the arguments.
    pub pointer: String,
    /// The keyword, as the schema spells it.
    pub keyword: String,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "arguments: {}", self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// Keywords that assert nothing: annotations, and the containers of
/// definitions.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "$vocabulary",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "then",
    "else",
];

/// Keywords the judge knows but the generator does not aim at: the values
/// drawn may break them (and are then judged invalid), but no case sets
/// out to meet or break them. A schema that uses them is reported.
pub(crate) const JUDGED_ONLY: &[&str] = &[
    "not",
    "if",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
];

/// Keywords no verdict is given for: a value they apply to is unjudged.
const UNJUDGED: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
];

/// The formats fuzz draws values for, with the values: a value of one of
/// these formats is valid only when it is one of these (a validator that
/// asserts formats may be stricter than any check written here), and any
/// other string is unjudged, since JSON Schema leaves it to the validator
/// whether `format` asserts at all.
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

/// A tool's input schema, ready to judge values and to say what it uses.
pub(crate) struct Schema<'a> {
    root: &'a Value,
    /// `$ref` siblings are ignored (draft-07 and before).
    ref_overrides: bool,
    /// Every pattern of the schema, compiled; `None` where the regex crate
    /// cannot read it.
    regexes: HashMap<&'a str, Option<Regex>>,
}

impl<'a> Schema<'a> {
    /// The schema `root` (a tool's `inputSchema`).
    pub(crate) fn new(root: &'a Value) -> Schema<'a> {
        let ref_overrides = root
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|dialect| {
                ["draft-07", "draft-06", "draft-04", "draft-03"]
                    .iter()
                    .any(|old| dialect.contains(old))
            });
        let mut regexes = HashMap::new();
        collect_patterns(root, &mut regexes, 0);
        Schema {
            root,
            ref_overrides,
            regexes,
        }
    }

    /// The root schema.
    pub(crate) fn root(&self) -> &'a Value {
        self.root
    }

    /// Whether `$ref` makes its siblings ignored.
    pub(crate) fn ref_overrides(&self) -> bool {
        self.ref_overrides
    }

    /// The schema a local `$ref` names.
    pub(crate) fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        let pointer = percent_decode(pointer);
        self.root.pointer(&pointer)
    }

    /// The compiled form of `pattern`, if the regex crate reads it.
    pub(crate) fn regex(&self, pattern: &str) -> Option<&Regex> {
        self.regexes.get(pattern).and_then(Option::as_ref)
    }

    /// The verdict on `value` as the tool's arguments.
    pub(crate) fn judge(&self, value: &Value) -> Verdict {
        self.judge_at(self.root, value, "", 0)
    }

    /// The verdict of `schema` (a part of this one) on `value`, found at
    /// `pointer` inside the arguments.
    pub(crate) fn judge_at(
        &self,
        schema: &Value,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> Verdict {
        if depth > MAX_DEPTH {
            return Verdict::Unjudged(format!(
                "the schema nests or refers deeper than {MAX_DEPTH} levels"
            ));
        }
        let map = match schema {
            Value::Bool(true) => return Verdict::Valid,
            Value::Bool(false) => {
                return Verdict::invalid(pointer, "false", "no value is allowed here".to_owned());
            }
            Value::Object(map) => map,
            other => {
                return Verdict::Unjudged(format!("a schema that is {}", json_kind(other)));
            }
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = match self.resolve(reference) {
                Some(target) => self.judge_at(target, value, pointer, depth + 1),
                None => {
                    return Verdict::Unjudged(format!(
                        "`$ref` {reference:?} is not a local reference"
                    ));
                }
            };
            if self.ref_overrides {
                return target;
            }
            return target.and(|| self.keywords(map, value, pointer, depth));
        }
        self.keywords(map, value, pointer, depth)
    }

    /// Every keyword of one schema object but `$ref`.
    fn keywords(
        &self,
        map: &Map<String, Value>,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> Verdict {
        let mut verdict = Verdict::Valid;
        // A type that does not match makes the type's own keywords moot.
        if let Some(kind) = map.get("type") {
            match type_verdict(kind, value, pointer) {
                Some(Verdict::Valid) => {}
                Some(broken @ Verdict::Invalid(_)) => return broken,
                Some(unjudged) => verdict = unjudged,
                None => {}
            }
        }
        for (keyword, argument) in map {
            if let Verdict::Invalid(_) = verdict {
                return verdict;
            }
            let this = match keyword.as_str() {
                "$ref" | "type" => continue,
                "enum" => match argument.as_array() {
                    Some(allowed) if allowed.iter().any(|member| json_eq(member, value)) => {
                        Verdict::Valid
                    }
                    Some(_) => Verdict::invalid(
                        pointer,
                        "enum",
                        format!("{} is none of the values of `enum`", short(value)),
                    ),
                    None => Verdict::Unjudged("an `enum` that is no array".to_owned()),
                },
                "const" if json_eq(argument, value) => Verdict::Valid,
                "const" => Verdict::invalid(
                    pointer,
                    "const",
                    format!("{} is not the `const` {}", short(value), short(argument)),
                ),
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                    number_keyword(map, keyword, argument, value, pointer)
                }
                "minLength" | "maxLength" | "pattern" | "format" => {
                    self.string_keyword(map, keyword, argument, value, pointer)
                }
                "items" | "prefixItems" | "additionalItems" | "minItems" | "maxItems"
                | "uniqueItems" | "contains" | "minContains" | "maxContains" => {
                    self.array_keyword(map, keyword, argument, value, pointer, depth)
                }
                "properties"
                | "required"
                | "additionalProperties"
                | "patternProperties"
                | "propertyNames"
                | "minProperties"
                | "maxProperties"
                | "dependentRequired"
                | "dependentSchemas"
                | "dependencies" => {
                    self.object_keyword(map, keyword, argument, value, pointer, depth)
                }
                "allOf" => match argument.as_array() {
                    Some(branches) => branches.iter().fold(Verdict::Valid, |verdict, branch| {
                        verdict.and(|| self.judge_at(branch, value, pointer, depth + 1))
                    }),
                    None => Verdict::Unjudged("an `allOf` that is no array".to_owned()),
                },
                "anyOf" | "oneOf" => match argument.as_array() {
                    Some(branches) => self.branches(keyword, branches, value, pointer, depth),
                    None => Verdict::Unjudged(format!("a `{keyword}` that is no array")),
                },
                "not" => self
                    .judge_at(argument, value, pointer, depth + 1)
                    .negated(pointer),
                "if" => match self.judge_at(argument, value, pointer, depth + 1) {
                    Verdict::Valid => map.get("then").map_or(Verdict::Valid, |then| {
                        self.judge_at(then, value, pointer, depth + 1)
                    }),
                    Verdict::Invalid(_) => map.get("else").map_or(Verdict::Valid, |otherwise| {
                        self.judge_at(otherwise, value, pointer, depth + 1)
                    }),
                    unjudged => unjudged,
                },
                known if ANNOTATIONS.contains(&known) => continue,
                vendor if vendor.starts_with("x-") => continue,
                unjudged if UNJUDGED.contains(&unjudged) => {
                    Verdict::Unjudged(format!("`{unjudged}` is not judged"))
                }
                unknown => Verdict::Unjudged(format!("the keyword `{unknown}` is unknown")),
            };
            verdict = verdict.and(|| this);
        }
        verdict
    }

    fn branches(
        &self,
        keyword: &str,
        branches: &[Value],
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> Verdict {
        let verdicts: Vec<Verdict> = branches
            .iter()
            .map(|branch| self.judge_at(branch, value, pointer, depth + 1))
            .collect();
        let valid = verdicts.iter().filter(|v| **v == Verdict::Valid).count();
        let invalid = verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::Invalid(_)))
            .count();
        let unjudged = || {
            verdicts
                .iter()
                .find_map(|v| match v {
                    Verdict::Unjudged(why) => Some(Verdict::Unjudged(why.clone())),
                    _ => None,
                })
                .unwrap_or(Verdict::Valid)
        };
        match keyword {
            "anyOf" if valid > 0 => Verdict::Valid,
            "anyOf" if invalid == verdicts.len() => Verdict::invalid(
                pointer,
                "anyOf",
                format!("matches none of the {} schemas of `anyOf`", branches.len()),
            ),
            "anyOf" => unjudged(),
            _ if valid == 1 && invalid == verdicts.len() - 1 => Verdict::Valid,
            _ if valid > 1 => Verdict::invalid(
                pointer,
                "oneOf",
                format!("matches {valid} of the schemas of `oneOf`, not exactly one"),
            ),
            _ if invalid == verdicts.len() => Verdict::invalid(
                pointer,
                "oneOf",
                format!("matches none of the {} schemas of `oneOf`", branches.len()),
            ),
            _ => unjudged(),
        }
    }

    fn string_keyword(
        &self,
        map: &Map<String, Value>,
        keyword: &str,
        argument: &Value,
        value: &Value,
        pointer: &str,
    ) -> Verdict {
        let Some(text) = value.as_str() else {
            return Verdict::Valid;
        };
        let length = text.chars().count() as u64;
        match keyword {
            "minLength" | "maxLength" => {
                let Some(bound) = whole(argument) else {
                    return Verdict::Unjudged(format!("a `{keyword}` that is no whole number"));
                };
                let broken = match keyword {
                    "minLength" => length < bound,
                    _ => length > bound,
                };
                match broken {
                    true => Verdict::invalid(
                        pointer,
                        keyword,
                        format!("{length} characters, against the `{keyword}` {bound}"),
                    ),
                    false => Verdict::Valid,
                }
            }
            "pattern" => {
                let Some(pattern) = argument.as_str() else {
                    return Verdict::Unjudged("a `pattern` that is no string".to_owned());
                };
                let Some(regex) = self.regex(pattern) else {
                    return Verdict::Unjudged(format!(
                        "the pattern {pattern:?} is not read by the regex crate"
                    ));
                };
                if let Some(why) = ecma_differs(pattern, text) {
                    return Verdict::Unjudged(why);
                }
                match regex.is_match(text) {
                    true => Verdict::Valid,
                    false => Verdict::invalid(
                        pointer,
                        "pattern",
                        format!("{} does not match the pattern {pattern:?}", short(value)),
                    ),
                }
            }
            _ => {
                let Some(format) = argument.as_str() else {
                    return Verdict::Unjudged("a `format` that is no string".to_owned());
                };
                // A string of a known format is valid when it is one of the
                // examples fuzz draws (or the schema pins it otherwise).
                match format_values(format) {
                    Some(values) if values.contains(&text) => Verdict::Valid,
                    _ if map.get("enum").or(map.get("const")).is_some() => Verdict::Valid,
                    Some(_) => Verdict::Unjudged(format!(
                        "whether {} is of the format {format:?} is the validator's to say",
                        short(value)
                    )),
                    None => Verdict::Unjudged(format!("the format {format:?} is unknown")),
                }
            }
        }
    }

    fn array_keyword(
        &self,
        map: &Map<String, Value>,
        keyword: &str,
        argument: &Value,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> Verdict {
        let Some(items) = value.as_array() else {
            return Verdict::Valid;
        };
        let at = |index: usize| format!("{pointer}/{index}");
        let each = |schema: &Value, from: usize| {
            items
                .iter()
                .enumerate()
                .skip(from)
                .fold(Verdict::Valid, |verdict, (index, item)| {
                    verdict.and(|| self.judge_at(schema, item, &at(index), depth + 1))
                })
        };
        let prefix = |schemas: &[Value]| {
            schemas.iter().zip(items).enumerate().fold(
                Verdict::Valid,
                |verdict, (index, (schema, item))| {
                    verdict.and(|| self.judge_at(schema, item, &at(index), depth + 1))
                },
            )
        };
        match keyword {
            "items" => match argument {
                // draft-07's tuple form.
                Value::Array(schemas) => prefix(schemas),
                schema => {
                    let from = map
                        .get("prefixItems")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    each(schema, from)
                }
            },
            "prefixItems" => match argument.as_array() {
                Some(schemas) => prefix(schemas),
                None => Verdict::Unjudged("a `prefixItems` that is no array".to_owned()),
            },
            "additionalItems" => match map.get("items") {
                Some(Value::Array(schemas)) => each(argument, schemas.len()),
                _ => Verdict::Valid,
            },
            "minItems" | "maxItems" => {
                let Some(bound) = whole(argument) else {
                    return Verdict::Unjudged(format!("a `{keyword}` that is no whole number"));
                };
                let n = items.len() as u64;
                let broken = match keyword {
                    "minItems" => n < bound,
                    _ => n > bound,
                };
                match broken {
                    true => Verdict::invalid(
                        pointer,
                        keyword,
                        format!("{n} items, against the `{keyword}` {bound}"),
                    ),
                    false => Verdict::Valid,
                }
            }
            "uniqueItems" if argument == &Value::Bool(true) => {
                for (i, a) in items.iter().enumerate() {
                    if items[..i].iter().any(|b| json_eq(a, b)) {
                        return Verdict::invalid(
                            pointer,
                            "uniqueItems",
                            format!("item {i} repeats an earlier item"),
                        );
                    }
                }
                Verdict::Valid
            }
            "uniqueItems" => Verdict::Valid,
            "contains" => {
                let verdicts: Vec<Verdict> = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| self.judge_at(argument, item, &at(index), depth + 1))
                    .collect();
                let matched = verdicts.iter().filter(|v| **v == Verdict::Valid).count() as u64;
                let undecided = verdicts
                    .iter()
                    .find(|v| matches!(v, Verdict::Unjudged(_)))
                    .cloned();
                let min = map.get("minContains").and_then(whole).unwrap_or(1);
                let max = map.get("maxContains").and_then(whole);
                if let Some(unjudged) = undecided {
                    return unjudged;
                }
                if matched < min || max.is_some_and(|max| matched > max) {
                    return Verdict::invalid(
                        pointer,
                        "contains",
                        format!("{matched} items match the schema of `contains`"),
                    );
                }
                Verdict::Valid
            }
            // Read with `contains`.
            _ => Verdict::Valid,
        }
    }

    fn object_keyword(
        &self,
        map: &Map<String, Value>,
        keyword: &str,
        argument: &Value,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> Verdict {
        let Some(object) = value.as_object() else {
            return Verdict::Valid;
        };
        let at = |name: &str| format!("{pointer}/{}", escape_token(name));
        match keyword {
            "properties" => {
                let Some(properties) = argument.as_object() else {
                    return Verdict::Unjudged("a `properties` that is no object".to_owned());
                };
                let mut verdict = Verdict::Valid;
                for (name, schema) in properties {
                    if let Some(item) = object.get(name) {
                        verdict = verdict.and(|| self.judge_at(schema, item, &at(name), depth + 1));
                    }
                }
                verdict
            }
            "required" => {
                let Some(required) = argument.as_array() else {
                    return Verdict::Unjudged("a `required` that is no array".to_owned());
                };
                for name in required.iter().filter_map(Value::as_str) {
                    if !object.contains_key(name) {
                        return Verdict::invalid(
                            pointer,
                            "required",
                            format!("the required property `{name}` is missing"),
                        );
                    }
                }
                Verdict::Valid
            }
            "additionalProperties" => {
                let named = map.get("properties").and_then(Value::as_object);
                let patterns: Vec<&str> = map
                    .get("patternProperties")
                    .and_then(Value::as_object)
                    .map(|patterns| patterns.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                let mut verdict = Verdict::Valid;
                for (name, item) in object {
                    if named.is_some_and(|named| named.contains_key(name)) {
                        continue;
                    }
                    let mut matched = false;
                    for pattern in &patterns {
                        match self.regex(pattern) {
                            Some(regex) if regex.is_match(name) => matched = true,
                            Some(_) => {}
                            None => {
                                return Verdict::Unjudged(format!(
                                    "the pattern {pattern:?} is not read by the regex crate"
                                ));
                            }
                        }
                    }
                    if matched {
                        continue;
                    }
                    verdict = verdict.and(|| match argument {
                        Value::Bool(false) => Verdict::invalid(
                            &at(name),
                            "additionalProperties",
                            format!("the property `{name}` is not allowed"),
                        ),
                        schema => self.judge_at(schema, item, &at(name), depth + 1),
                    });
                }
                verdict
            }
            "patternProperties" => {
                let Some(patterns) = argument.as_object() else {
                    return Verdict::Unjudged("a `patternProperties` that is no object".to_owned());
                };
                let mut verdict = Verdict::Valid;
                for (pattern, schema) in patterns {
                    let Some(regex) = self.regex(pattern) else {
                        return Verdict::Unjudged(format!(
                            "the pattern {pattern:?} is not read by the regex crate"
                        ));
                    };
                    for (name, item) in object {
                        if regex.is_match(name) {
                            verdict =
                                verdict.and(|| self.judge_at(schema, item, &at(name), depth + 1));
                        }
                    }
                }
                verdict
            }
            "propertyNames" => object.keys().fold(Verdict::Valid, |verdict, name| {
                verdict.and(|| {
                    match self.judge_at(
                        argument,
                        &Value::String(name.clone()),
                        &at(name),
                        depth + 1,
                    ) {
                        Verdict::Invalid(_) => Verdict::invalid(
                            &at(name),
                            "propertyNames",
                            format!("the property name `{name}` breaks `propertyNames`"),
                        ),
                        other => other,
                    }
                })
            }),
            "minProperties" | "maxProperties" => {
                let Some(bound) = whole(argument) else {
                    return Verdict::Unjudged(format!("a `{keyword}` that is no whole number"));
                };
                let n = object.len() as u64;
                let broken = match keyword {
                    "minProperties" => n < bound,
                    _ => n > bound,
                };
                match broken {
                    true => Verdict::invalid(
                        pointer,
                        keyword,
                        format!("{n} properties, against the `{keyword}` {bound}"),
                    ),
                    false => Verdict::Valid,
                }
            }
            "dependentRequired" | "dependentSchemas" | "dependencies" => {
                let Some(dependencies) = argument.as_object() else {
                    return Verdict::Unjudged(format!("a `{keyword}` that is no object"));
                };
                let mut verdict = Verdict::Valid;
                for (name, dependency) in dependencies {
                    if !object.contains_key(name) {
                        continue;
                    }
                    verdict = verdict.and(|| match dependency {
                        Value::Array(names) => {
                            match names
                                .iter()
                                .filter_map(Value::as_str)
                                .find(|needed| !object.contains_key(*needed))
                            {
                                Some(missing) => Verdict::invalid(
                                    pointer,
                                    keyword,
                                    format!("`{name}` is present, so `{missing}` is required"),
                                ),
                                None => Verdict::Valid,
                            }
                        }
                        schema => self.judge_at(schema, value, pointer, depth + 1),
                    });
                }
                verdict
            }
            _ => Verdict::Valid,
        }
    }
}

/// Compiles every pattern of `schema` (`pattern`, and the keys of
/// `patternProperties`).
fn collect_patterns<'a>(
    schema: &'a Value,
    regexes: &mut HashMap<&'a str, Option<Regex>>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match schema {
        Value::Object(map) => {
            for (keyword, argument) in map {
                match (keyword.as_str(), argument) {
                    ("pattern", Value::String(pattern)) => {
                        regexes.entry(pattern).or_insert_with(|| compile(pattern));
                    }
                    ("patternProperties", Value::Object(patterns)) => {
                        for pattern in patterns.keys() {
                            regexes.entry(pattern).or_insert_with(|| compile(pattern));
                        }
                    }
                    // Values that hold no schemas.
                    ("enum" | "const" | "default" | "examples", _) => continue,
                    _ => {}
                }
                collect_patterns(argument, regexes, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_patterns(item, regexes, depth + 1);
            }
        }
        _ => {}
    }
}

/// A pattern compiled by the regex crate, within a size limit.
fn compile(pattern: &str) -> Option<Regex> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .ok()
}

/// Why the regex crate may not read `pattern` on `text` as ECMA-262 does:
/// its `\d`, `\w`, `\s` and `\b` are Unicode-aware where ECMA-262's `\d`,
/// `\w` and `\b` are ASCII; and its `.` matches `\r` and the Unicode line
/// separators, which ECMA-262's does not.
fn ecma_differs(pattern: &str, text: &str) -> Option<String> {
    let classes = ["\\d", "\\D", "\\w", "\\W", "\\b", "\\B", "\\s", "\\S"];
    if !text.is_ascii() && classes.iter().any(|class| pattern.contains(class)) {
        return Some(format!(
            "the pattern {pattern:?} reads non-ASCII text differently in ECMA-262 and the regex crate"
        ));
    }
    if pattern.contains('.') && text.contains(['\r', '\u{2028}', '\u{2029}']) {
        return Some(format!(
            "the pattern {pattern:?} reads line separators differently in ECMA-262 and the regex crate"
        ));
    }
    None
}

/// The type keyword's verdict; `None` for a malformed `type`.
fn type_verdict(kind: &Value, value: &Value, pointer: &str) -> Option<Verdict> {
    let names: Vec<&str> = match kind {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => return Some(Verdict::Unjudged("a `type` that is no name".to_owned())),
    };
    let known = [
        "null", "boolean", "object", "array", "number", "integer", "string",
    ];
    if let Some(unknown) = names.iter().find(|name| !known.contains(name)) {
        return Some(Verdict::Unjudged(format!(
            "the type {unknown:?} is unknown"
        )));
    }
    if names.iter().any(|name| is_type(name, value)) {
        return Some(Verdict::Valid);
    }
    let wanted: Vec<&str> = names
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
    Some(Verdict::invalid(
        pointer,
        "type",
        format!(
            "{} is {}, not {}",
            short(value),
            json_kind(value),
            wanted.join(" or ")
        ),
    ))
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

/// Whether a number has no fraction (`1.0` is an integer in JSON Schema).
pub(crate) fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The keywords of numbers.
fn number_keyword(
    map: &Map<String, Value>,
    keyword: &str,
    argument: &Value,
    value: &Value,
    pointer: &str,
) -> Verdict {
    let Some(number) = value.as_number() else {
        return Verdict::Valid;
    };
    // draft-04's boolean `exclusiveMinimum` changes `minimum`.
    if let Value::Bool(exclusive) = argument {
        let _ = exclusive;
        return Verdict::Valid;
    }
    let Some(bound) = argument.as_number() else {
        return Verdict::Unjudged(format!("a `{keyword}` that is no number"));
    };
    let order = compare(number, bound);
    let exclusive = |name: &str| map.get(name) == Some(&Value::Bool(true));
    let broken = match keyword {
        "minimum" if exclusive("exclusiveMinimum") => order.is_le(),
        "minimum" => order.is_lt(),
        "maximum" if exclusive("exclusiveMaximum") => order.is_ge(),
        "maximum" => order.is_gt(),
        "exclusiveMinimum" => order.is_le(),
        "exclusiveMaximum" => order.is_ge(),
        _ => return multiple_of(number, bound, pointer),
    };
    match broken {
        true => Verdict::invalid(
            pointer,
            keyword,
            format!("{number} is out of bounds: `{keyword}` is {bound}"),
        ),
        false => Verdict::Valid,
    }
}

fn multiple_of(number: &Number, divisor: &Number, pointer: &str) -> Verdict {
    let broken = |what: String| Verdict::invalid(pointer, "multipleOf", what);
    if let (Some(n), Some(d)) = (as_i128(number), as_i128(divisor))
        && d > 0
    {
        return match n % d {
            0 => Verdict::Valid,
            _ => broken(format!("{number} is not a multiple of {divisor}")),
        };
    }
    let (Some(n), Some(d)) = (number.as_f64(), divisor.as_f64()) else {
        return Verdict::Unjudged("a number beyond a float".to_owned());
    };
    if d <= 0.0 {
        return Verdict::Unjudged("a `multipleOf` that is not positive".to_owned());
    }
    let quotient = n / d;
    let off = (quotient - quotient.round()).abs();
    if off <= 1e-9 * quotient.abs().max(1.0) {
        Verdict::Valid
    } else if off > 1e-6 {
        broken(format!("{number} is not a multiple of {divisor}"))
    } else {
        Verdict::Unjudged(format!(
            "whether {number} is a multiple of {divisor} depends on float rounding"
        ))
    }
}

fn as_i128(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Two numbers in order, exactly when both are whole.
fn compare(a: &Number, b: &Number) -> std::cmp::Ordering {
    match (as_i128(a), as_i128(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal)
        }
    }
}

/// A whole number ≥ 0 (`2` or `2.0`).
fn whole(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    number.as_u64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    })
}

/// JSON Schema's equality: numbers by value, objects whatever their order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b).is_eq(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// A value as short text, for messages.
pub(crate) fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        return text;
    }
    let start: String = text.chars().take(57).collect();
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

/// What a schema uses that fuzz does not generate for, each with where it
/// is (`` `patternProperties` at /properties/meta ``), in document order and
/// once each.
pub(crate) fn not_generated_for(schema: &Schema<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    walk_features(schema, schema.root(), "", &mut found, &mut seen, 0);
    found
}

fn walk_features(
    schema: &Schema<'_>,
    node: &Value,
    at: &str,
    found: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
    depth: usize,
) {
    fn note(found: &mut Vec<String>, seen: &mut BTreeSet<String>, what: String) {
        if seen.insert(what.clone()) {
            found.push(what);
        }
    }
    if depth > MAX_DEPTH {
        note(
            found,
            seen,
            format!("nesting deeper than {MAX_DEPTH} levels at {}", place(at)),
        );
        return;
    }
    let Value::Object(map) = node else {
        return;
    };
    for (keyword, argument) in map {
        let here = format!("{at}/{}", escape_token(keyword));
        let what = match keyword.as_str() {
            "$ref" => match argument.as_str() {
                Some(reference) if schema.resolve(reference).is_some() => None,
                Some(reference) => Some(format!("`$ref` {reference:?} at {}", place(at))),
                None => Some(format!("a `$ref` that is no string at {}", place(at))),
            },
            "format" => argument
                .as_str()
                .filter(|format| {
                    format_values(format).is_none() && !NUMBER_FORMATS.contains(format)
                })
                .map(|format| format!("format {format:?} at {}", place(at))),
            "pattern" => argument
                .as_str()
                .filter(|pattern| {
                    schema.regex(pattern).is_none() || super::pattern::example(pattern).is_none()
                })
                .map(|pattern| format!("pattern {pattern:?} at {}", place(at))),
            "items" if argument.is_array() => Some(format!("`items` as a list at {}", place(at))),
            "multipleOf" if argument.as_number().is_some_and(|n| !is_integer(n)) => {
                Some(format!("a fractional `multipleOf` at {}", place(at)))
            }
            known if JUDGED_ONLY.contains(&known) || UNJUDGED.contains(&known) => {
                Some(format!("`{known}` at {}", place(at)))
            }
            known
                if ANNOTATIONS.contains(&known)
                    || KNOWN.contains(&known)
                    || known.starts_with("x-") =>
            {
                None
            }
            unknown => Some(format!("the unknown keyword `{unknown}` at {}", place(at))),
        };
        if let Some(what) = what {
            note(found, seen, what);
        }
        match keyword.as_str() {
            "enum" | "const" | "default" | "examples" | "required" => {}
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(children) = argument {
                    for (name, child) in children {
                        let child_at = format!("{here}/{}", escape_token(name));
                        walk_features(schema, child, &child_at, found, seen, depth + 1);
                    }
                }
            }
            _ => match argument {
                Value::Object(_) => walk_features(schema, argument, &here, found, seen, depth + 1),
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        let child_at = format!("{here}/{index}");
                        walk_features(schema, item, &child_at, found, seen, depth + 1);
                    }
                }
                _ => {}
            },
        }
    }
}

/// The keywords the generator aims at.
const KNOWN: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
];

/// A schema location in words: the schema's root, or a pointer into it.
fn place(at: &str) -> String {
    if at.is_empty() {
        "the schema's root".to_owned()
    } else {
        at.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(schema: Value, value: Value) -> Verdict {
        Schema::new(&schema).judge(&value)
    }

    fn broken(schema: Value, value: Value) -> String {
        match verdict(schema, value) {
            Verdict::Invalid(broken) => broken.to_string(),
            other => panic!("not invalid: {other:?}"),
        }
    }

    fn search() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 5},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "mode": {"enum": ["fast", "exact"]}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    #[test]
    fn the_keywords_of_tool_schemas_are_judged() {
        assert_eq!(verdict(search(), json!({"query": "a"})), Verdict::Valid);
        assert_eq!(
            verdict(
                search(),
                json!({"query": "abcde", "limit": 50.0, "mode": "fast"})
            ),
            Verdict::Valid
        );
        assert_eq!(
            broken(search(), json!({})),
            "arguments: the required property `query` is missing"
        );
        assert_eq!(
            broken(search(), json!({"query": ""})),
            "/query: 0 characters, against the `minLength` 1"
        );
        assert_eq!(
            broken(search(), json!({"query": "ééééé!"})),
            "/query: 6 characters, against the `maxLength` 5"
        );
        assert_eq!(
            broken(search(), json!({"query": "a", "limit": 51})),
            "/limit: 51 is out of bounds: `maximum` is 50"
        );
        assert_eq!(
            broken(search(), json!({"query": "a", "limit": 1.5})),
            "/limit: 1.5 is a number, not an integer"
        );
        assert_eq!(
            broken(search(), json!({"query": "a", "mode": "slow"})),
            "/mode: \"slow\" is none of the values of `enum`"
        );
        assert_eq!(
            broken(search(), json!({"query": "a", "extra": 1})),
            "/extra: the property `extra` is not allowed"
        );
        assert_eq!(
            broken(search(), json!({"query": 7})),
            "/query: 7 is a number, not a string"
        );
    }

    #[test]
    fn what_the_judge_does_not_know_is_unjudged() {
        let nullable =
            json!({"type": "object", "properties": {"x": {"type": "string", "nullable": true}}});
        assert!(matches!(
            verdict(nullable, json!({"x": null})),
            Verdict::Invalid(_)
        ));
        let unknown =
            json!({"type": "object", "properties": {"x": {"minLength": 2, "nullable": true}}});
        assert_eq!(
            verdict(unknown.clone(), json!({"x": "ab"})),
            Verdict::Unjudged("the keyword `nullable` is unknown".to_owned())
        );
        // A known keyword that fails still fails.
        assert!(matches!(
            verdict(unknown, json!({"x": "a"})),
            Verdict::Invalid(_)
        ));
        let email = json!({"type": "string", "format": "email"});
        assert_eq!(
            verdict(email.clone(), json!("user@example.com")),
            Verdict::Valid
        );
        assert!(matches!(verdict(email, json!("x")), Verdict::Unjudged(_)));
        let digits = json!({"type": "string", "pattern": "^\\d+$"});
        assert_eq!(verdict(digits.clone(), json!("123")), Verdict::Valid);
        assert!(matches!(
            verdict(digits.clone(), json!("a")),
            Verdict::Invalid(_)
        ));
        assert!(matches!(verdict(digits, json!("٣")), Verdict::Unjudged(_)));
        let lookahead = json!({"type": "string", "pattern": "^(?=a)a$"});
        assert!(matches!(
            verdict(lookahead, json!("a")),
            Verdict::Unjudged(_)
        ));
    }

    #[test]
    fn combinators_and_references() {
        let schema = json!({
            "type": "object",
            "properties": {
                "when": {"anyOf": [{"$ref": "#/$defs/day"}, {"type": "null"}]},
                "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
                "not": {"not": {"type": "string"}}
            },
            "$defs": {"day": {"type": "string", "enum": ["mon", "tue"]}}
        });
        assert_eq!(
            verdict(schema.clone(), json!({"when": "mon"})),
            Verdict::Valid
        );
        assert_eq!(
            verdict(schema.clone(), json!({"when": null})),
            Verdict::Valid
        );
        assert_eq!(
            broken(schema.clone(), json!({"when": "sun"})),
            "/when: matches none of the 2 schemas of `anyOf`"
        );
        // 1 is an integer and a number: both branches.
        assert_eq!(
            broken(schema.clone(), json!({"one": 1})),
            "/one: matches 2 of the schemas of `oneOf`, not exactly one"
        );
        assert_eq!(verdict(schema.clone(), json!({"one": 1.5})), Verdict::Valid);
        assert_eq!(
            broken(schema, json!({"not": "x"})),
            "/not: matches the schema of `not`"
        );
        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"n": {"type": "number"}},
            "$ref": "#/definitions/n",
            "type": "string"
        });
        assert_eq!(verdict(draft7, json!(3)), Verdict::Valid);
    }

    #[test]
    fn arrays_and_objects() {
        let schema = json!({
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": true
        });
        assert_eq!(verdict(schema.clone(), json!(["a", "b"])), Verdict::Valid);
        assert_eq!(
            broken(schema.clone(), json!([])),
            "arguments: 0 items, against the `minItems` 1"
        );
        assert_eq!(
            broken(schema.clone(), json!(["a", "a"])),
            "arguments: item 1 repeats an earlier item"
        );
        assert_eq!(
            broken(schema, json!(["a", 1])),
            "/1: 1 is a number, not a string"
        );
        let patterned = json!({
            "type": "object",
            "patternProperties": {"^x-": {"type": "integer"}},
            "additionalProperties": false
        });
        assert_eq!(
            verdict(patterned.clone(), json!({"x-a": 1})),
            Verdict::Valid
        );
        assert!(matches!(
            verdict(patterned, json!({"y": 1})),
            Verdict::Invalid(_)
        ));
    }

    #[test]
    fn numbers_compare_exactly_and_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1]}), &json!({"a": [1.0]})));
        let schema = json!({"type": "integer", "maximum": 9007199254740993u64});
        assert_eq!(
            verdict(schema.clone(), json!(9007199254740993u64)),
            Verdict::Valid
        );
        assert!(matches!(
            verdict(schema, json!(9007199254740994u64)),
            Verdict::Invalid(_)
        ));
        let multiple = json!({"multipleOf": 0.1});
        assert_eq!(verdict(multiple.clone(), json!(0.3)), Verdict::Valid);
        assert!(matches!(
            verdict(multiple, json!(0.35)),
            Verdict::Invalid(_)
        ));
    }

    #[test]
    fn features_fuzz_does_not_generate_for_are_listed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "meta": {"type": "object", "patternProperties": {"^a": {}}},
                "when": {"type": "string", "format": "mcp-replay-no-such-format"},
                "x": {"type": "string", "nullable": true},
                "ok": {"type": "string", "format": "date", "pattern": "^[0-9-]+$"}
            },
            "not": {"required": ["x"]}
        });
        let root = Schema::new(&schema);
        assert_eq!(
            not_generated_for(&root),
            [
                "`not` at the schema's root",
                "`patternProperties` at /properties/meta",
                "format \"mcp-replay-no-such-format\" at /properties/when",
                "the unknown keyword `nullable` at /properties/x",
            ]
        );
    }
}
