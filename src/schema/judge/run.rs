//! One judgement: a schema applied to a value, keyword by keyword, with
//! the references, the applicators and the bounds on the work.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::outcome::{CERTAIN, Cx, MAYBE, Outcome, Path, Status};
use super::{
    Dialect, MAX_DEPTH, MAX_MEMO, MAX_MEMO_BROKEN, MAX_MEMO_MEMBERS, MAX_STACK, Reading, Schema,
    describe_types, is_type, json_eq, short, short_name, short_str,
};
use crate::jsonrpc::json_kind;

/// The keywords of one schema object, gathered in one pass over its
/// members.
#[derive(Default)]
pub(super) struct Keywords<'a> {
    pub(super) reference: Option<&'a Value>,
    pub(super) dynamic_reference: Option<&'a Value>,
    pub(super) recursive_reference: Option<&'a Value>,
    pub(super) kind: Option<&'a Value>,
    pub(super) allowed: Option<&'a Value>,
    pub(super) constant: Option<&'a Value>,
    pub(super) minimum: Option<&'a Value>,
    pub(super) maximum: Option<&'a Value>,
    pub(super) exclusive_minimum: Option<&'a Value>,
    pub(super) exclusive_maximum: Option<&'a Value>,
    pub(super) multiple_of: Option<&'a Value>,
    pub(super) min_length: Option<&'a Value>,
    pub(super) max_length: Option<&'a Value>,
    pub(super) pattern: Option<&'a Value>,
    pub(super) format: Option<&'a Value>,
    pub(super) prefix_items: Option<&'a Value>,
    pub(super) items: Option<&'a Value>,
    pub(super) additional_items: Option<&'a Value>,
    pub(super) contains: Option<&'a Value>,
    pub(super) min_contains: Option<&'a Value>,
    pub(super) max_contains: Option<&'a Value>,
    pub(super) min_items: Option<&'a Value>,
    pub(super) max_items: Option<&'a Value>,
    pub(super) unique_items: Option<&'a Value>,
    pub(super) properties: Option<&'a Value>,
    pub(super) pattern_properties: Option<&'a Value>,
    pub(super) additional_properties: Option<&'a Value>,
    pub(super) property_names: Option<&'a Value>,
    pub(super) required: Option<&'a Value>,
    pub(super) dependent_required: Option<&'a Value>,
    pub(super) dependent_schemas: Option<&'a Value>,
    pub(super) dependencies: Option<&'a Value>,
    pub(super) min_properties: Option<&'a Value>,
    pub(super) max_properties: Option<&'a Value>,
    pub(super) all_of: Option<&'a Value>,
    pub(super) any_of: Option<&'a Value>,
    pub(super) one_of: Option<&'a Value>,
    pub(super) not: Option<&'a Value>,
    pub(super) condition: Option<&'a Value>,
    pub(super) then: Option<&'a Value>,
    pub(super) otherwise: Option<&'a Value>,
    pub(super) unevaluated_properties: Option<&'a Value>,
    pub(super) unevaluated_items: Option<&'a Value>,
    /// `contentMediaType` or `contentEncoding`.
    pub(super) content: Option<&'a Value>,
    /// The first keyword the judge does not know.
    pub(super) unknown: Option<&'a str>,
}

/// Keywords that assert nothing: annotations, identifiers, and the
/// containers of definitions.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
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
];

impl<'a> Keywords<'a> {
    pub(super) fn of(map: &'a Map<String, Value>) -> Keywords<'a> {
        let mut k = Keywords::default();
        for (keyword, argument) in map {
            let slot = match keyword.as_str() {
                "$ref" => &mut k.reference,
                "$dynamicRef" => &mut k.dynamic_reference,
                "$recursiveRef" => &mut k.recursive_reference,
                "type" => &mut k.kind,
                "enum" => &mut k.allowed,
                "const" => &mut k.constant,
                "minimum" => &mut k.minimum,
                "maximum" => &mut k.maximum,
                "exclusiveMinimum" => &mut k.exclusive_minimum,
                "exclusiveMaximum" => &mut k.exclusive_maximum,
                "multipleOf" => &mut k.multiple_of,
                "minLength" => &mut k.min_length,
                "maxLength" => &mut k.max_length,
                "pattern" => &mut k.pattern,
                "format" => &mut k.format,
                "prefixItems" => &mut k.prefix_items,
                "items" => &mut k.items,
                "additionalItems" => &mut k.additional_items,
                "contains" => &mut k.contains,
                "minContains" => &mut k.min_contains,
                "maxContains" => &mut k.max_contains,
                "minItems" => &mut k.min_items,
                "maxItems" => &mut k.max_items,
                "uniqueItems" => &mut k.unique_items,
                "properties" => &mut k.properties,
                "patternProperties" => &mut k.pattern_properties,
                "additionalProperties" => &mut k.additional_properties,
                "propertyNames" => &mut k.property_names,
                "required" => &mut k.required,
                "dependentRequired" => &mut k.dependent_required,
                "dependentSchemas" => &mut k.dependent_schemas,
                "dependencies" => &mut k.dependencies,
                "minProperties" => &mut k.min_properties,
                "maxProperties" => &mut k.max_properties,
                "allOf" => &mut k.all_of,
                "anyOf" => &mut k.any_of,
                "oneOf" => &mut k.one_of,
                "not" => &mut k.not,
                "if" => &mut k.condition,
                "then" => &mut k.then,
                "else" => &mut k.otherwise,
                "unevaluatedProperties" => &mut k.unevaluated_properties,
                "unevaluatedItems" => &mut k.unevaluated_items,
                "contentMediaType" | "contentEncoding" => &mut k.content,
                known if ANNOTATIONS.contains(&known) || known.starts_with("x-") => continue,
                unknown => {
                    k.unknown.get_or_insert(unknown);
                    continue;
                }
            };
            *slot = Some(argument);
        }
        k
    }
}

/// One judgement of one value.
pub(super) struct Run<'s, 'a> {
    pub(super) schema: &'s Schema<'a>,
    /// Schema applications so far.
    pub(super) steps: usize,
    /// Where on the stack the judgement began.
    pub(super) base: usize,
    /// The outcome of each reference applied to each value, by the
    /// addresses of both and whether every failure was asked for.
    pub(super) memo: HashMap<(usize, usize, bool), Outcome>,
    /// The references being applied to each value: one asked again while
    /// it is is a loop that does not descend.
    pub(super) active: HashSet<(usize, usize)>,
}

impl<'s, 'a> Run<'s, 'a> {
    pub(super) fn new(schema: &'s Schema<'a>) -> Run<'s, 'a> {
        Run {
            schema,
            steps: 0,
            base: stack_position(),
            memo: HashMap::new(),
            active: HashSet::new(),
        }
    }

    pub(super) fn root(&mut self, value: &Value, all: bool) -> Outcome {
        let cx = Cx {
            depth: 0,
            memo: true,
            all,
        };
        if self.schema.refers {
            self.enter(self.schema.root, value, &Path::Root, cx)
        } else {
            // Without a reference nothing comes back to the root: what
            // `enter` keeps for a loop or a second visit is never asked.
            self.apply(self.schema.root, value, &Path::Root, cx)
        }
    }

    /// Takes one step of the judgement; `false` past its bound.
    pub(super) fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= self.schema.max_steps()
    }

    /// An outcome unjudged for `why`, which may have evaluated any part of
    /// `value`.
    pub(super) fn unsure(&self, value: &Value, why: String) -> Outcome {
        let mut out = Outcome::unjudged(why);
        if self.schema.tracks {
            match value {
                Value::Object(object) if !object.is_empty() => {
                    out.mark_property(object.len() - 1, MAYBE);
                    if let Some(evaluated) = &mut out.evaluated {
                        evaluated.properties.fill(MAYBE);
                    }
                }
                Value::Array(items) if !items.is_empty() => {
                    out.mark_item(items.len() - 1, MAYBE);
                    if let Some(evaluated) = &mut out.evaluated {
                        evaluated.items.fill(MAYBE);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The outcome of `target`, a schema a reference names, on `value`:
    /// once per value.
    pub(super) fn enter(
        &mut self,
        target: &'a Value,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        let key = (address(target), address(value));
        if cx.memo
            && let Some(known) = self.memo.get(&(key.0, key.1, cx.all))
        {
            return known.clone();
        }
        if !self.active.insert(key) {
            return self.unsure(
                value,
                "the schema refers to itself without descending into the value".to_owned(),
            );
        }
        let out = self.apply(target, value, path, cx);
        self.active.remove(&key);
        let small = out.broken.len() <= MAX_MEMO_BROKEN
            && out.evaluated.as_ref().is_none_or(|evaluated| {
                evaluated.properties.len() <= MAX_MEMO_MEMBERS
                    && evaluated.items.len() <= MAX_MEMO_MEMBERS
            });
        if cx.memo && small && self.memo.len() < MAX_MEMO {
            self.memo.insert((key.0, key.1, cx.all), out.clone());
        }
        out
    }

    /// The outcome of `schema` on `value`, found at `path`.
    pub(super) fn apply(
        &mut self,
        schema: &'a Value,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        if !self.step() {
            return self.unsure(
                value,
                format!(
                    "judging the value takes more than {} steps",
                    self.schema.max_steps()
                ),
            );
        }
        // The stack grows down on every platform the crate builds for; were
        // it to grow up, the depth alone would bound it.
        if cx.depth > MAX_DEPTH || self.base.saturating_sub(stack_position()) > MAX_STACK {
            return self.unsure(
                value,
                "the schema nests or refers too deeply to judge the value".to_owned(),
            );
        }
        match schema {
            Value::Bool(true) => Outcome::valid(),
            Value::Bool(false) => {
                Outcome::broken(path, "false", "no value is allowed here".to_owned())
            }
            Value::Object(map) => self.object_schema(map, value, path, cx),
            other => self.unsure(value, format!("a schema that is {}", json_kind(other))),
        }
    }

    pub(super) fn object_schema(
        &mut self,
        map: &'a Map<String, Value>,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        let k = Keywords::of(map);
        let mut out = Outcome::valid();
        for (keyword, reference) in [
            ("$ref", k.reference),
            ("$dynamicRef", k.dynamic_reference),
            ("$recursiveRef", k.recursive_reference),
        ] {
            if let Some(reference) = reference {
                out.and(self.reference(keyword, reference, value, path, cx));
            }
        }
        if k.reference.is_some() && self.schema.dialect == Dialect::Draft7 {
            // Draft-07: `$ref` stands for the whole schema.
            return out;
        }
        if out.stop(cx) {
            return out;
        }
        if let Some(kind) = k.kind {
            let typed = self.type_keyword(kind, value, path);
            let wrong = typed.is_invalid();
            out.and(typed);
            // The other keywords assume the right type; their failures
            // would only repeat this one.
            if wrong {
                return out;
            }
        }
        if let Some(allowed) = k.allowed {
            out.and(self.enum_keyword(allowed, value, path));
        }
        if let Some(constant) = k.constant {
            out.and(match json_eq(constant, value) {
                true => Outcome::valid(),
                false => Outcome::broken(
                    path,
                    "const",
                    format!("expected {}, found {}", short(constant), short(value)),
                ),
            });
        }
        if out.stop(cx) {
            return out;
        }
        match value {
            Value::Number(number) => self.numbers(&k, number, path, &mut out),
            Value::String(text) => self.strings(&k, text, value, path, &mut out),
            Value::Array(items) => self.arrays(&k, items, path, cx, &mut out),
            Value::Object(object) => self.objects(&k, object, value, path, cx, &mut out),
            _ => {}
        }
        if out.stop(cx) {
            return out;
        }
        self.applicators(&k, value, path, cx, &mut out);
        if out.stop(cx) {
            return out;
        }
        match value {
            Value::Object(object) => {
                if let Some(schema) = k.unevaluated_properties {
                    self.unevaluated_properties(schema, object, path, cx, &mut out);
                }
            }
            Value::Array(items) => {
                if let Some(schema) = k.unevaluated_items {
                    self.unevaluated_items(schema, items, path, cx, &mut out);
                }
            }
            _ => {}
        }
        // Draft-07 lets a validator assert `contentMediaType` and
        // `contentEncoding` (the `jsonschema` crate does, the Python
        // package does not); 2019-09 made them annotations.
        if k.content.is_some() && value.is_string() && self.schema.dialect == Dialect::Draft7 {
            out.unsure(
                "draft-07 leaves it to the validator whether `contentMediaType` and `contentEncoding` assert".to_owned(),
            );
        }
        if self.schema.reading == Reading::Portable
            && let Some(unknown) = k.unknown
        {
            out.unsure(format!("the keyword `{}` is unknown", short_name(unknown)));
        }
        out
    }

    /// `$ref`, `$dynamicRef` (in a schema of one resource, the dynamic
    /// scope holds that resource alone, so it resolves as `$ref` does) and
    /// `$recursiveRef` (likewise).
    #[inline(never)]
    pub(super) fn reference(
        &mut self,
        keyword: &str,
        reference: &'a Value,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        let Some(reference) = reference.as_str() else {
            return self.unsure(value, format!("a `{keyword}` that is no string"));
        };
        if self.schema.embedded {
            return self.unsure(
                value,
                format!(
                    "`{keyword}` {} in a schema that embeds resources of its own (`$id`)",
                    short_str(reference)
                ),
            );
        }
        match self.schema.resolve(reference) {
            Some(target) => self.enter(target, value, path, cx.deeper()),
            None => self.unsure(
                value,
                format!(
                    "`{keyword}` {} names no schema of this one",
                    short_str(reference)
                ),
            ),
        }
    }

    #[inline(never)]
    pub(super) fn type_keyword(&self, kind: &Value, value: &Value, path: &Path<'_>) -> Outcome {
        let names: Vec<&str> = match kind {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => {
                let strings: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                if strings.len() < names.len() {
                    return self.unsure(
                        value,
                        "a `type` list with a member that is no name".to_owned(),
                    );
                }
                strings
            }
            _ => return self.unsure(value, "a `type` that is no name".to_owned()),
        };
        const KNOWN: [&str; 7] = [
            "null", "boolean", "object", "array", "number", "integer", "string",
        ];
        if let Some(unknown) = names.iter().find(|name| !KNOWN.contains(name)) {
            return self.unsure(value, format!("the type {} is unknown", short_str(unknown)));
        }
        if names.iter().any(|name| is_type(name, value)) {
            return Outcome::valid();
        }
        if names.is_empty() {
            return Outcome::broken(
                path,
                "type",
                "the `type` list is empty: no value is allowed".to_owned(),
            );
        }
        Outcome::broken(
            path,
            "type",
            format!(
                "expected {}, found {}",
                describe_types(&names),
                json_kind(value)
            ),
        )
    }

    #[inline(never)]
    pub(super) fn enum_keyword(&self, allowed: &Value, value: &Value, path: &Path<'_>) -> Outcome {
        let Some(allowed) = allowed.as_array() else {
            return self.unsure(value, "an `enum` that is no list of values".to_owned());
        };
        if allowed.iter().any(|member| json_eq(member, value)) {
            return Outcome::valid();
        }
        if allowed.is_empty() {
            return Outcome::broken(
                path,
                "enum",
                "the `enum` is empty: no value is allowed".to_owned(),
            );
        }
        const LISTED: usize = 8;
        let mut listed: Vec<String> = allowed.iter().take(LISTED).map(short).collect();
        if allowed.len() > LISTED {
            listed.push(format!("… ({} in all)", allowed.len()));
        }
        Outcome::broken(
            path,
            "enum",
            format!(
                "expected one of {}, found {}",
                listed.join(", "),
                short(value)
            ),
        )
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`.
    #[inline(never)]
    pub(super) fn applicators(
        &mut self,
        k: &Keywords<'a>,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        if let Some(all_of) = k.all_of {
            match all_of.as_array().filter(|branches| !branches.is_empty()) {
                Some(branches) => {
                    for branch in branches {
                        out.and(self.apply(branch, value, path, cx.deeper()));
                        if out.stop(cx) {
                            return;
                        }
                    }
                }
                None => {
                    out.and(self.unsure(value, "an `allOf` that is no list of schemas".to_owned()))
                }
            }
        }
        for (keyword, branches) in [("anyOf", k.any_of), ("oneOf", k.one_of)] {
            if let Some(branches) = branches {
                out.and(self.branches(keyword, branches, value, path, cx));
                if out.stop(cx) {
                    return;
                }
            }
        }
        if let Some(not) = k.not {
            let inner = self.apply(not, value, path, cx.deeper().first());
            // `not` evaluates nothing (core §10.2.1.4).
            out.and_child(match inner.status {
                Status::Valid => {
                    Outcome::broken(path, "not", "matches the schema of `not`".to_owned())
                }
                Status::Invalid => Outcome::valid(),
                Status::Unjudged => Outcome::unjudged(inner.why.unwrap_or_default()),
            });
        }
        if let Some(condition) = k.condition {
            let outcome = self.condition(condition, k.then, k.otherwise, value, path, cx);
            out.and(outcome);
        }
    }

    #[inline(never)]
    pub(super) fn branches(
        &mut self,
        keyword: &str,
        argument: &'a Value,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        let Some(branches) = argument.as_array().filter(|branches| !branches.is_empty()) else {
            return self.unsure(value, format!("a `{keyword}` that is no list of schemas"));
        };
        let mut out = Outcome::valid();
        let (mut valid, mut unjudged) = (0, 0);
        let mut why = None;
        for branch in branches {
            let outcome = self.apply(branch, value, path, cx.deeper().first());
            match outcome.status {
                Status::Valid => {
                    valid += 1;
                    out.and(outcome.evaluated_at_most(CERTAIN));
                }
                Status::Unjudged => {
                    unjudged += 1;
                    out.and(outcome.evaluated_at_most(MAYBE));
                    if why.is_none() {
                        why = outcome.why;
                    }
                }
                Status::Invalid => {}
            }
            if keyword == "anyOf" && valid > 0 && !self.schema.tracks {
                break;
            }
        }
        let n = branches.len();
        let verdict = match keyword {
            "anyOf" if valid > 0 => Outcome::valid(),
            "oneOf" if valid == 1 && unjudged == 0 => Outcome::valid(),
            "oneOf" if valid > 1 => Outcome::broken(
                path,
                keyword,
                format!("matches {valid} of the {n} schemas of `oneOf`, not exactly one"),
            ),
            _ if unjudged > 0 => Outcome::unjudged(why.unwrap_or_default()),
            _ => Outcome::broken(
                path,
                keyword,
                format!("matches none of the {n} schemas of `{keyword}`"),
            ),
        };
        out.and(verdict);
        out
    }

    /// `if`, `then` and `else`.
    #[inline(never)]
    pub(super) fn condition(
        &mut self,
        condition: &'a Value,
        then: Option<&'a Value>,
        otherwise: Option<&'a Value>,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
    ) -> Outcome {
        let test = self.apply(condition, value, path, cx.deeper().first());
        let branch = |this: &mut Self, schema: Option<&'a Value>| match schema {
            Some(schema) => this.apply(schema, value, path, cx.deeper()),
            None => Outcome::valid(),
        };
        match test.status {
            Status::Valid => {
                let mut out = test.evaluated_at_most(CERTAIN);
                out.and(branch(self, then));
                out
            }
            Status::Invalid => branch(self, otherwise),
            Status::Unjudged => {
                let when = branch(self, then);
                let unless = branch(self, otherwise);
                let mut out = test.evaluated_at_most(MAYBE);
                out.and(when.evaluated_at_most(MAYBE));
                out.and(unless.evaluated_at_most(MAYBE));
                match (when.status, unless.status) {
                    (Status::Valid, Status::Valid) => {}
                    // Whichever applies, the value fails it.
                    (Status::Invalid, Status::Invalid) => out.and_child(when),
                    _ => out.unsure(test.why.unwrap_or_default()),
                }
                out
            }
        }
    }

    /// A keyword of another dialect than the schema's: what it says when it
    /// holds, unjudged when it fails (validators differ on whether it
    /// applies); what it evaluated, maybe evaluated.
    pub(super) fn foreign(&self, keyword: &str, outcome: Outcome) -> Outcome {
        match outcome.status {
            Status::Invalid => {
                let mut out = outcome.evaluated_at_most(MAYBE);
                out.unsure(format!(
                    "`{keyword}` fails, and is no keyword of {}, the schema's dialect: validators differ on whether it applies",
                    self.schema.dialect.name()
                ));
                out
            }
            _ => {
                let mut out = outcome.evaluated_at_most(MAYBE);
                out.and_child(outcome);
                out
            }
        }
    }
}

/// Where on the stack the caller is: the address of a local.
#[inline(always)]
pub(super) fn stack_position() -> usize {
    let marker = 0u8;
    std::ptr::from_ref(std::hint::black_box(&marker)) as usize
}

/// A JSON value's address, to know it again within one judgement.
pub(super) fn address(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}
