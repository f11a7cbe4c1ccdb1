//! The cases of one tool: arguments drawn from its `inputSchema`,
//! boundaries first, then random ones from the run's seed, each labelled
//! by the judge (`schema.rs`): valid, invalid (with the keyword it breaks)
//! or unjudged.
//!
//! The boundaries come first and in a fixed order, so that a small run
//! already tries the values that break tools most often: the required
//! arguments alone, each required one missing, an extra property, then for
//! each property in turn (round-robin, so every property gets its first
//! boundary before any gets its second) empty and long text, non-ASCII
//! text, each bound and one past it, the wrong types, each branch of an
//! `anyOf`, nested objects with their optional members absent and present.
//! The random cases that follow mix values meant to be valid (three in
//! four) with one meant to break a single member.
//!
//! Drawing is bounded whatever the schema asks (`minLength: 1e9`, arrays
//! of arrays of a hundred items, references that fan out): one value
//! weighs at most [`MAX_VALUE`] (about its size in memory), and one tool's
//! drawing at most [`MAX_DRAWN`] in all, after which it stops. A value cut
//! short by its bound is judged as it is, so a case that no longer meets
//! the schema is labelled invalid, never valid; and the tool's
//! `not_generated_for` says that the bound was reached.

use std::cell::Cell;
use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Number, Value, json};

pub(crate) use super::bounds::{LONG_ARRAY, LONG_TEXT};
use super::judge::{self as schema, Schema, Verdict, escape_token, format_values};
use super::pattern;
use super::rng::Rng;

/// No case's arguments are longer than this, as JSON.
const MAX_ARGUMENTS: usize = 64 * 1024;

/// How deep generation descends into nested schemas.
const MAX_DEPTH: usize = 6;

/// The most one value drawn for a case weighs (see [`weigh`]): about the
/// memory it takes.
pub(crate) const MAX_VALUE: usize = 64 * 1024;

/// The most one tool's drawing weighs in all, every value and copy drawn
/// counted (and every schema read, as a node): past it, drawing stops.
pub(crate) const MAX_DRAWN: usize = 16 << 20;

/// What one JSON node weighs: the size of a `serde_json::Value`.
const NODE: usize = 32;

/// What reading one schema object into a view weighs.
const VIEW: usize = 256;

/// The property an extra-property case adds.
pub(crate) const EXTRA: &str = "mcp_replay_extra";

/// One call's arguments, with how they were made and what the schema says
/// of them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// The `arguments` member; `None` sends none.
    pub arguments: Option<Value>,
    /// How the case was made, in words (`/limit: one past the maximum 50`).
    pub what: String,
    /// The judge's verdict.
    pub verdict: Verdict,
}

/// The cases of one tool and what its schema uses that fuzz does not
/// generate for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Generated {
    /// The cases, in the order they are sent.
    pub cases: Vec<Case>,
    /// See [`schema::not_generated_for`].
    pub not_generated_for: Vec<String>,
}

/// Up to `n` cases for a tool named `tool` with `input_schema`, from `seed`.
pub(crate) fn cases(input_schema: &Value, seed: u64, tool: &str, n: usize) -> Generated {
    let schema = Schema::new(input_schema);
    let generator = Generator {
        schema: &schema,
        fuel: Cell::new(MAX_DRAWN),
        cut: Cell::new(false),
    };
    let root = generator.view(input_schema, 0);
    let mut rng = Rng::for_name(seed, tool);
    let mut out = Cases::new(&schema, n);

    generator.boundaries(&root, &mut out);
    // Random cases until `n`; a schema that allows few distinct values
    // stops short of it.
    let mut misses = 0;
    while !out.full() && misses < 64 && !generator.spent() {
        let before = out.cases.len();
        let valid_aimed = rng.chance(3, 4);
        let mut value = generator.random(&root, &mut rng, 0);
        let what = if valid_aimed {
            "random arguments".to_owned()
        } else {
            match generator.break_one(&root, &mut value, &mut rng) {
                Some(what) => format!("random arguments, {what}"),
                None => "random arguments".to_owned(),
            }
        };
        out.push(Some(value), what);
        if out.cases.len() == before {
            misses += 1;
        } else {
            misses = 0;
        }
    }
    let mut not_generated_for = schema::not_generated_for(&schema);
    if generator.cut.get() {
        not_generated_for.push(format!(
            "values larger than the {} KiB fuzz draws for one argument (docs/limits.md)",
            MAX_VALUE >> 10
        ));
    }
    if generator.spent() {
        not_generated_for.push(format!(
            "more than the {} MiB fuzz draws for one tool: drawing stopped at {} cases (docs/limits.md)",
            MAX_DRAWN >> 20,
            out.cases.len()
        ));
    }
    Generated {
        cases: out.cases,
        not_generated_for,
    }
}

/// What `value` weighs, about the memory it takes: [`NODE`] a node, and
/// the bytes of its strings and keys; `None` once past `limit` (the walk
/// stops there).
pub(crate) fn weigh(value: &Value, limit: usize) -> Option<usize> {
    fn walk(value: &Value, total: &mut usize, limit: usize) -> bool {
        *total += NODE;
        match value {
            Value::String(text) => *total += text.len(),
            Value::Array(items) => {
                for item in items {
                    if *total > limit || !walk(item, total, limit) {
                        return false;
                    }
                }
            }
            Value::Object(members) => {
                for (key, member) in members {
                    *total += key.len() + NODE;
                    if *total > limit || !walk(member, total, limit) {
                        return false;
                    }
                }
            }
            _ => {}
        }
        *total <= limit
    }
    let mut total = 0;
    walk(value, &mut total, limit).then_some(total)
}

/// The cases so far, without repeats.
struct Cases<'s, 'a> {
    schema: &'s Schema<'a>,
    cases: Vec<Case>,
    seen: HashSet<String>,
    limit: usize,
}

impl<'s, 'a> Cases<'s, 'a> {
    fn new(schema: &'s Schema<'a>, limit: usize) -> Cases<'s, 'a> {
        Cases {
            schema,
            cases: Vec::new(),
            seen: HashSet::new(),
            limit,
        }
    }

    fn full(&self) -> bool {
        self.cases.len() >= self.limit
    }

    fn push(&mut self, arguments: Option<Value>, what: String) {
        let key = match &arguments {
            Some(value) => value.to_string(),
            None => String::new(),
        };
        if key.len() > MAX_ARGUMENTS || !self.seen.insert(key) {
            return;
        }
        let judged = arguments.clone().unwrap_or_else(|| json!({}));
        let verdict = self.schema.judge(&judged);
        self.cases.push(Case {
            arguments,
            what,
            verdict,
        });
    }
}

/// A numeric bound.
#[derive(Debug, Clone, Copy)]
struct Bound {
    value: f64,
    exclusive: bool,
}

/// What one schema (its `$ref`s and `allOf` merged in) asks of a value,
/// as the generator aims at it.
#[derive(Debug, Clone, Default)]
struct View<'a> {
    /// No value is allowed (`false`).
    never: bool,
    types: Option<BTreeSet<&'a str>>,
    enumeration: Option<Vec<&'a Value>>,
    constant: Option<&'a Value>,
    properties: Vec<(&'a str, Vec<&'a Value>)>,
    required: Vec<&'a str>,
    additional: Option<&'a Value>,
    items: Vec<&'a Value>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique: bool,
    min_length: Option<u64>,
    max_length: Option<u64>,
    patterns: Vec<&'a str>,
    format: Option<&'a str>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    multiple_of: Option<f64>,
    /// `anyOf` and `oneOf` groups: a value takes one branch of each.
    choices: Vec<Vec<&'a Value>>,
}

impl<'a> View<'a> {
    /// Adds what `other` asks too.
    fn merge(&mut self, other: View<'a>) {
        self.never |= other.never;
        self.types = match (self.types.take(), other.types) {
            (Some(a), Some(b)) => {
                let mut both: BTreeSet<&str> = a.intersection(&b).copied().collect();
                // `integer` is a `number`.
                if a.contains("integer") && b.contains("number")
                    || a.contains("number") && b.contains("integer")
                {
                    both.insert("integer");
                }
                Some(both)
            }
            (a, b) => a.or(b),
        };
        self.enumeration = self.enumeration.take().or(other.enumeration);
        self.constant = self.constant.or(other.constant);
        // Indexed, so that two schemas of many members merge in linear
        // time.
        if self.properties.is_empty() {
            self.properties = other.properties;
        } else {
            let mut index: std::collections::HashMap<&str, usize> = self
                .properties
                .iter()
                .enumerate()
                .map(|(at, (name, _))| (*name, at))
                .collect();
            for (name, schemas) in other.properties {
                match index.get(name) {
                    Some(&at) => self.properties[at].1.extend(schemas),
                    None => {
                        index.insert(name, self.properties.len());
                        self.properties.push((name, schemas));
                    }
                }
            }
        }
        let mut required: HashSet<&str> = self.required.iter().copied().collect();
        for name in other.required {
            if required.insert(name) {
                self.required.push(name);
            }
        }
        self.additional = self.additional.or(other.additional);
        self.items.extend(other.items);
        self.min_items = max_of(self.min_items, other.min_items);
        self.max_items = min_of(self.max_items, other.max_items);
        self.unique |= other.unique;
        self.min_length = max_of(self.min_length, other.min_length);
        self.max_length = min_of(self.max_length, other.max_length);
        self.patterns.extend(other.patterns);
        self.format = self.format.or(other.format);
        self.minimum = match (self.minimum, other.minimum) {
            (Some(a), Some(b)) if b.value > a.value => Some(b),
            (a, b) => a.or(b),
        };
        self.maximum = match (self.maximum, other.maximum) {
            (Some(a), Some(b)) if b.value < a.value => Some(b),
            (a, b) => a.or(b),
        };
        self.multiple_of = self.multiple_of.or(other.multiple_of);
        self.choices.extend(other.choices);
    }

    fn allows(&self, kind: &str) -> bool {
        match &self.types {
            None => true,
            Some(types) => types.contains(kind) || (kind == "integer" && types.contains("number")),
        }
    }

    /// The type a value of this view is made of, when it must be picked.
    fn main_type(&self) -> &'a str {
        if let Some(types) = &self.types {
            for kind in [
                "object", "string", "integer", "number", "array", "boolean", "null",
            ] {
                if types.contains(kind) {
                    return kind;
                }
            }
        }
        if !self.properties.is_empty() || !self.required.is_empty() {
            "object"
        } else if !self.items.is_empty() || self.min_items.is_some() || self.max_items.is_some() {
            "array"
        } else if self.minimum.is_some() || self.maximum.is_some() || self.multiple_of.is_some() {
            "number"
        } else {
            "string"
        }
    }
}

fn max_of(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn min_of(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A sample value of one member, with how it was made.
type Sample = (Value, String);

struct Generator<'s, 'a> {
    schema: &'s Schema<'a>,
    /// What the tool's drawing may still weigh (see [`MAX_DRAWN`]).
    fuel: Cell<usize>,
    /// Some value was cut short by [`MAX_VALUE`].
    cut: Cell<bool>,
}

/// What one value being drawn may still weigh (see [`MAX_VALUE`]).
struct Room {
    left: usize,
}

impl Room {
    fn new() -> Room {
        Room { left: MAX_VALUE }
    }
}

impl<'a> Generator<'_, 'a> {
    /// Whether the tool's drawing has used up [`MAX_DRAWN`].
    fn spent(&self) -> bool {
        self.fuel.get() == 0
    }

    /// Spends `weight` of the tool's drawing; `false` once it is used up.
    fn burn(&self, weight: usize) -> bool {
        let left = self.fuel.get().saturating_sub(weight);
        self.fuel.set(left);
        left > 0
    }

    /// Takes `weight` from `room` (and the tool's drawing); `false`, and
    /// the room closed, when it does not fit.
    fn take(&self, room: &mut Room, weight: usize) -> bool {
        if room.left < weight {
            room.left = 0;
            self.cut.set(true);
            return false;
        }
        if !self.burn(weight) {
            room.left = 0;
            return false;
        }
        room.left -= weight;
        true
    }

    /// A copy of `value` for another sample, paid for; `null` when it no
    /// longer fits the tool's drawing.
    fn copy(&self, value: &Value) -> Value {
        match weigh(value, MAX_VALUE * 4) {
            Some(weight) if self.burn(weight) => value.clone(),
            _ => Value::Null,
        }
    }

    /// A value of the schema (a `const`, an `enum` member) for `room`;
    /// `null` when it does not fit.
    fn literal(&self, value: &Value, room: &mut Room) -> Value {
        match weigh(value, room.left) {
            Some(weight) if self.take(room, weight) => value.clone(),
            Some(_) => Value::Null,
            None => {
                self.cut.set(true);
                room.left = 0;
                Value::Null
            }
        }
    }

    /// A string of `n` times `ch`, within `room`: as many as fit.
    fn repeat(&self, ch: char, n: usize, room: &mut Room) -> String {
        let n = n.min(room.left.saturating_sub(NODE) / ch.len_utf8());
        if !self.take(room, NODE + n * ch.len_utf8()) {
            return String::new();
        }
        std::iter::repeat_n(ch, n).collect()
    }

    /// The view of `node`.
    fn view(&self, node: &'a Value, depth: usize) -> View<'a> {
        let mut view = View::default();
        if !self.burn(VIEW) {
            return view;
        }
        let map = match node {
            Value::Object(map) => map,
            Value::Bool(false) => {
                view.never = true;
                return view;
            }
            _ => return view,
        };
        if depth > MAX_DEPTH * 4 {
            return view;
        }
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| self.schema.resolve(reference))
        {
            view.merge(self.view(target, depth + 1));
            if self.schema.ref_overrides() {
                return view;
            }
        }
        let mut own = View::default();
        for (keyword, argument) in map {
            match (keyword.as_str(), argument) {
                ("type", Value::String(kind)) => own.types = Some(BTreeSet::from([kind.as_str()])),
                ("type", Value::Array(kinds)) => {
                    own.types = Some(kinds.iter().filter_map(Value::as_str).collect());
                }
                ("enum", Value::Array(members)) => own.enumeration = Some(members.iter().collect()),
                ("const", constant) => own.constant = Some(constant),
                ("properties", Value::Object(properties)) => {
                    if !self.burn(properties.len() * NODE) {
                        return view;
                    }
                    own.properties = properties
                        .iter()
                        .map(|(name, schema)| (name.as_str(), vec![schema]))
                        .collect();
                }
                ("required", Value::Array(names)) => {
                    own.required = names.iter().filter_map(Value::as_str).collect();
                }
                ("additionalProperties", additional) => own.additional = Some(additional),
                ("items", items) if !items.is_array() => own.items = vec![items],
                ("minItems", n) => own.min_items = n.as_u64(),
                ("maxItems", n) => own.max_items = n.as_u64(),
                ("uniqueItems", Value::Bool(unique)) => own.unique = *unique,
                ("minLength", n) => own.min_length = n.as_u64(),
                ("maxLength", n) => own.max_length = n.as_u64(),
                ("pattern", Value::String(pattern)) => own.patterns.push(pattern),
                ("format", Value::String(format)) => own.format = Some(format),
                ("minimum", Value::Number(n)) => {
                    let exclusive = map.get("exclusiveMinimum") == Some(&Value::Bool(true));
                    own.minimum = merge_bound(own.minimum, n, exclusive, true);
                }
                ("exclusiveMinimum", Value::Number(n)) => {
                    own.minimum = merge_bound(own.minimum, n, true, true);
                }
                ("maximum", Value::Number(n)) => {
                    let exclusive = map.get("exclusiveMaximum") == Some(&Value::Bool(true));
                    own.maximum = merge_bound(own.maximum, n, exclusive, false);
                }
                ("exclusiveMaximum", Value::Number(n)) => {
                    own.maximum = merge_bound(own.maximum, n, true, false);
                }
                ("multipleOf", Value::Number(n)) => own.multiple_of = n.as_f64(),
                ("anyOf" | "oneOf", Value::Array(branches)) if !branches.is_empty() => {
                    own.choices.push(branches.iter().collect());
                }
                ("allOf", Value::Array(branches)) => {
                    for branch in branches {
                        own.merge(self.view(branch, depth + 1));
                    }
                }
                _ => {}
            }
        }
        view.merge(own);
        view
    }

    /// The view of a property or item that several schemas describe.
    fn view_all(&self, schemas: &[&'a Value], depth: usize) -> View<'a> {
        let mut view = View::default();
        for schema in schemas {
            view.merge(self.view(schema, depth));
        }
        view
    }

    /// `view` with the first branch of each choice taken.
    fn settled(&self, view: &View<'a>, depth: usize) -> View<'a> {
        let mut settled = view.clone();
        let choices = std::mem::take(&mut settled.choices);
        for branches in choices {
            settled.merge(self.view(branches[0], depth + 1));
        }
        settled
    }

    /// The boundary cases, in order, into `out` until it is full.
    fn boundaries(&self, root: &View<'a>, out: &mut Cases<'_, '_>) {
        let root = self.settled(root, 0);
        let base = self.base(&root, 0);
        let Value::Object(base_map) = &base else {
            // A schema whose arguments are no object has only samples.
            out.push(
                Some(base),
                "the simplest value the schema allows".to_owned(),
            );
            return;
        };
        if root.required.is_empty() {
            out.push(Some(json!({})), "no arguments".to_owned());
            out.push(None, "no `arguments` member".to_owned());
        } else {
            out.push(
                Some(base.clone()),
                "the required arguments alone".to_owned(),
            );
        }
        if out.full() {
            return;
        }
        let mut full = self.copy_map(base_map);
        let mut room = Room::new();
        for (name, schemas) in &root.properties {
            if room.left == 0 || self.spent() {
                break;
            }
            if !full.contains_key(*name) {
                let view = self.view_all(schemas, 1);
                if !view.never && self.take(&mut room, NODE + name.len()) {
                    full.insert((*name).to_owned(), self.base_in(&view, 1, &mut room));
                }
            }
        }
        out.push(
            Some(Value::Object(full)),
            "every optional argument present".to_owned(),
        );
        for name in &root.required {
            if out.full() || self.spent() {
                return;
            }
            // A member the base lacks (cut short by its bound) is missing
            // from every case already.
            if !base_map.contains_key(*name) {
                continue;
            }
            let mut without = self.copy_map(base_map);
            without.remove(*name);
            out.push(
                Some(Value::Object(without)),
                format!("the required `{name}` missing"),
            );
        }
        let mut extra = self.copy_map(base_map);
        extra.insert(EXTRA.to_owned(), json!("x"));
        out.push(
            Some(Value::Object(extra)),
            format!("an extra property `{EXTRA}`"),
        );
        if out.full() {
            return;
        }
        // Each property's samples, in turn: the samples are of the member
        // alone, the arguments made of them as each is sent.
        let mut lists: Vec<(&str, Vec<Sample>)> = Vec::new();
        for (name, schemas) in &root.properties {
            if self.spent() {
                break;
            }
            let view = self.view_all(schemas, 1);
            let at = format!("/{}", escape_token(name));
            lists.push((name, self.samples(&view, &at, 1)));
        }
        let longest = lists.iter().map(|(_, list)| list.len()).max().unwrap_or(0);
        for index in 0..longest {
            for (name, list) in &lists {
                if out.full() || self.spent() {
                    return;
                }
                if let Some((value, what)) = list.get(index) {
                    let mut arguments = self.copy_map(base_map);
                    arguments.insert((*name).to_owned(), value.clone());
                    out.push(Some(Value::Object(arguments)), what.clone());
                }
            }
        }
        drop(lists);
        // The whole arguments as a wrong type is a malformed request, the
        // probes' `invalid-params`; the branches of a top-level choice are
        // samples here.
        for branches in &root.choices {
            for (number, branch) in branches.iter().enumerate().skip(1) {
                if out.full() || self.spent() {
                    return;
                }
                let view = self.view(branch, 1);
                let value = self.base(&view, 1);
                out.push(
                    Some(value),
                    format!("branch {} of a top-level choice", number + 1),
                );
            }
        }
    }

    /// A copy of an object's members for another case, paid for (empty
    /// once the tool's drawing is used up).
    fn copy_map(&self, map: &Map<String, Value>) -> Map<String, Value> {
        let weight = map.iter().try_fold(NODE, |total, (key, member)| {
            Some(total + NODE + key.len() + weigh(member, MAX_VALUE * 4)?)
        });
        match weight {
            Some(weight) if weight <= MAX_VALUE * 4 && self.burn(weight) => map.clone(),
            _ => Map::new(),
        }
    }

    /// The boundary samples of one member at `at`, with nested ones.
    fn samples(&self, view: &View<'a>, at: &str, depth: usize) -> Vec<Sample> {
        self.samples_of(view, at, depth, true)
    }

    /// [`Generator::samples`]; `wrong_types` adds a value of each type the
    /// view does not allow (left to the caller for the branches of a
    /// choice, which allow each other's types).
    fn samples_of(
        &self,
        view: &View<'a>,
        at: &str,
        depth: usize,
        wrong_types: bool,
    ) -> Vec<Sample> {
        let mut out: Vec<Sample> = Vec::new();
        if view.never || depth > MAX_DEPTH || self.spent() {
            return out;
        }
        // A choice: each branch's samples in turn, then the types no branch
        // allows.
        if let Some(branches) = view.choices.first() {
            let mut rest = view.clone();
            rest.choices.remove(0);
            let mut allowed: Option<BTreeSet<&'a str>> = Some(BTreeSet::new());
            for (number, branch) in branches.iter().enumerate() {
                if self.spent() {
                    break;
                }
                let mut taken = rest.clone();
                taken.merge(self.view(branch, depth + 1));
                match (&mut allowed, &taken.types) {
                    (Some(all), Some(types)) => all.extend(types.iter().copied()),
                    _ => allowed = None,
                }
                let taken = self.settled(&taken, depth);
                out.push((
                    self.base(&taken, depth),
                    format!("{at}: branch {} of a choice", number + 1),
                ));
                out.extend(self.samples_of(&taken, at, depth, false));
            }
            if wrong_types && let Some(types) = allowed {
                out.extend(wrong_type_samples(&types, at));
            }
            return out;
        }
        let mut add = |value: Value, what: String| out.push((value, format!("{at}: {what}")));
        if let Some(constant) = view.constant {
            add(
                self.literal(constant, &mut Room::new()),
                "the `const` value".to_owned(),
            );
        }
        if let Some(members) = &view.enumeration {
            for member in members {
                if self.spent() {
                    break;
                }
                add(
                    self.literal(member, &mut Room::new()),
                    format!("the `enum` value {}", schema::short(member)),
                );
            }
            add(
                json!("mcp-replay-not-a-member"),
                "a value outside the `enum`".to_owned(),
            );
        }
        let view = &self.settled(view, depth);
        if view.allows("array") && view.main_type() == "array" {
            out.extend(self.array_samples(view, at, depth));
        }
        if view.allows("object") && view.main_type() == "object" {
            out.extend(self.object_samples(view, at, depth));
        }
        let mut add = |value: Value, what: String| out.push((value, format!("{at}: {what}")));
        let pinned = view.constant.is_some() || view.enumeration.is_some();
        if !pinned {
            if view.allows("string") {
                for (value, what) in self.string_samples(view) {
                    add(value, what);
                }
            }
            if view.allows("integer") || view.allows("number") {
                for (value, what) in number_samples(view) {
                    add(value, what);
                }
            }
            if view.allows("boolean") {
                add(json!(true), "true".to_owned());
                add(json!(false), "false".to_owned());
            }
            if view.allows("null") && view.types.is_some() {
                add(Value::Null, "null".to_owned());
            }
        }
        if wrong_types && let Some(types) = &view.types {
            out.extend(wrong_type_samples(types, at));
        }
        out
    }

    fn string_samples(&self, view: &View<'a>) -> Vec<(Value, String)> {
        let mut out = Vec::new();
        let mut string = |text: String, what: String| {
            if self.burn(NODE + text.len()) {
                out.push((Value::String(text), what));
            }
        };
        let fits = |n: usize| {
            view.min_length.is_none_or(|min| n as u64 >= min)
                && view.max_length.is_none_or(|max| n as u64 <= max)
        };
        if let Some(format) = view.format
            && let Some(values) = format_values(format)
        {
            for value in values {
                string((*value).to_owned(), format!("a {format} value"));
            }
            string(
                "mcp-replay".to_owned(),
                format!("text that is no {format} value"),
            );
        }
        for pattern in &view.patterns {
            if let Some(example) = self.schema.example(pattern) {
                string(
                    example.to_owned(),
                    format!(
                        "the smallest match of the pattern {}",
                        schema::quoted(pattern)
                    ),
                );
            }
            // A string the pattern does not match.
            if let Some(regex) = self.schema.regex(pattern)
                && let Some(miss) = ["", "!", "mcp-replay", "0", "a b", "ZZ"]
                    .into_iter()
                    .find(|miss| !regex.is_match(miss))
            {
                string(
                    miss.to_owned(),
                    format!(
                        "text the pattern {} does not match",
                        schema::quoted(pattern)
                    ),
                );
            }
        }
        string(String::new(), "empty text".to_owned());
        // Lengths past the long text are left out: a bound of a billion
        // characters is not met, and says so (the judge labels the case).
        let long = LONG_TEXT as u64;
        if let Some(min) = view.min_length.filter(|min| *min > 0) {
            if min <= long {
                let min = min as usize;
                string(
                    "a".repeat(min),
                    format!("the shortest text `minLength` {min} allows"),
                );
                string(
                    "a".repeat(min - 1),
                    format!("one character short of `minLength` {min}"),
                );
            } else {
                string(
                    "a".repeat(LONG_TEXT),
                    format!("10,000 characters, the most fuzz sends, short of `minLength` {min}"),
                );
            }
        }
        if let Some(max) = view.max_length {
            let shown = max.min(long) as usize;
            string(
                "a".repeat(shown),
                format!("the longest text `maxLength` {max} allows"),
            );
            if max <= long {
                string(
                    "a".repeat(shown + 1),
                    format!("one character past `maxLength` {max}"),
                );
            }
        }
        for (text, what) in [
            ("é", "non-ASCII text"),
            ("日本語のテキスト", "CJK text"),
            ("🎉🚀", "emoji outside the BMP"),
            ("e\u{301}", "a combining accent"),
            ("שלום עולם", "right-to-left text"),
            ("\u{0}", "a NUL character"),
            ("   ", "whitespace only"),
            ("line one\nline two", "a newline"),
            ("\"quoted\" \\ back\\slash", "quotes and backslashes"),
        ] {
            // Kept to the schema's length where that keeps their point.
            let n = text.chars().count();
            if fits(n) {
                string(text.to_owned(), what.to_owned());
            } else if let Some(min) = view.min_length
                && n < min as usize
                && min <= long
                && view.max_length.is_none_or(|max| max >= min)
            {
                let padded: String = text
                    .chars()
                    .chain(std::iter::repeat('a'))
                    .take(min as usize)
                    .collect();
                string(padded, format!("{what}, padded to `minLength` {min}"));
            } else {
                string(text.to_owned(), what.to_owned());
            }
        }
        if view.max_length.is_none_or(|max| max >= long) {
            string("x".repeat(LONG_TEXT), "10,000 characters".to_owned());
        }
        out
    }

    fn array_samples(&self, view: &View<'a>, at: &str, depth: usize) -> Vec<Sample> {
        let item_view = self.view_all(&view.items, depth + 1);
        let item_view = self.settled(&item_view, depth + 1);
        let base_item = self.base(&item_view, depth + 1);
        let distinct = |n: usize| -> Value {
            Value::Array(self.distinct_items(
                &item_view,
                &base_item,
                n,
                depth + 1,
                &mut Room::new(),
            ))
        };
        let mut out: Vec<Sample> = Vec::new();
        let mut add = |value: Value, what: String| out.push((value, format!("{at}: {what}")));
        add(json!([]), "an empty array".to_owned());
        add(distinct(1), "one item".to_owned());
        if let Some(min) = view.min_items.filter(|min| *min > 0) {
            let shown = min.min(LONG_ARRAY as u64) as usize;
            add(
                distinct(shown),
                format!("the fewest items `minItems` {min} allows"),
            );
            add(
                distinct(shown - 1),
                format!("one item short of `minItems` {min}"),
            );
        }
        if let Some(max) = view.max_items {
            let shown = max.min(LONG_ARRAY as u64) as usize;
            add(
                distinct(shown),
                format!("the most items `maxItems` {max} allows"),
            );
            add(
                distinct(shown + 1),
                format!("one item past `maxItems` {max}"),
            );
        } else {
            add(distinct(LONG_ARRAY), format!("{LONG_ARRAY} items"));
        }
        if view.unique {
            add(
                json!([self.copy(&base_item), self.copy(&base_item)]),
                "a repeated item where items are unique".to_owned(),
            );
        }
        // The item's own samples, as the first item.
        let item_at = format!("{at}/0");
        for (value, what) in self.samples(&item_view, &item_at, depth + 1) {
            out.push((json!([value]), what));
        }
        out
    }

    /// `n` items, distinct where the schema asks for it (as far as the
    /// samples allow), as many as fit `room`.
    fn distinct_items(
        &self,
        view: &View<'a>,
        base: &Value,
        n: usize,
        depth: usize,
        room: &mut Room,
    ) -> Vec<Value> {
        if n == 0 {
            return Vec::new();
        }
        let mut items = vec![self.literal(base, room)];
        let mut rng = Rng::new(n as u64);
        let mut tries = 0;
        while items.len() < n && tries < n * 4 && room.left > 0 {
            tries += 1;
            let item = self.random_in(view, &mut rng, depth, room);
            if !items.iter().any(|known| schema::json_eq(known, &item)) {
                items.push(item);
            }
        }
        while items.len() < n && room.left > 0 {
            items.push(self.literal(base, room));
        }
        items
    }

    fn object_samples(&self, view: &View<'a>, at: &str, depth: usize) -> Vec<Sample> {
        let base = self.base(view, depth);
        let Value::Object(base) = base else {
            return Vec::new();
        };
        let mut out: Vec<Sample> = Vec::new();
        let required: Vec<&str> = view.required.clone();
        out.push((
            Value::Object(self.copy_map(&base)),
            format!("{at}: the nested object with its required members alone"),
        ));
        let mut full = self.copy_map(&base);
        let mut room = Room::new();
        for (name, schemas) in &view.properties {
            if room.left == 0 || self.spent() {
                break;
            }
            if !full.contains_key(*name) {
                let child = self.view_all(schemas, depth + 1);
                if !child.never && self.take(&mut room, NODE + name.len()) {
                    full.insert(
                        (*name).to_owned(),
                        self.base_in(&child, depth + 1, &mut room),
                    );
                }
            }
        }
        if full.len() > base.len() {
            out.push((
                Value::Object(full),
                format!("{at}: the nested object with every optional member present"),
            ));
        }
        for name in &required {
            if self.spent() {
                break;
            }
            if !base.contains_key(*name) {
                continue;
            }
            let mut without = self.copy_map(&base);
            without.remove(*name);
            out.push((
                Value::Object(without),
                format!("{at}: the nested object without its required `{name}`"),
            ));
        }
        let mut extra = self.copy_map(&base);
        extra.insert(EXTRA.to_owned(), json!("x"));
        out.push((
            Value::Object(extra),
            format!("{at}: the nested object with an extra property"),
        ));
        for (name, schemas) in &view.properties {
            if self.spent() {
                break;
            }
            let child = self.view_all(schemas, depth + 1);
            let child_at = format!("{at}/{}", escape_token(name));
            for (value, what) in self.samples(&child, &child_at, depth + 1) {
                let mut nested = self.copy_map(&base);
                nested.insert((*name).to_owned(), value);
                out.push((Value::Object(nested), what));
            }
        }
        out
    }

    /// The simplest value `view` allows, within a value's bound.
    fn base(&self, view: &View<'a>, depth: usize) -> Value {
        self.base_in(view, depth, &mut Room::new())
    }

    /// [`Generator::base`], within `room`.
    fn base_in(&self, view: &View<'a>, depth: usize, room: &mut Room) -> Value {
        if let Some(constant) = view.constant {
            return self.literal(constant, room);
        }
        if let Some(first) = view
            .enumeration
            .as_ref()
            .and_then(|members| members.first())
        {
            return self.literal(first, room);
        }
        if !view.choices.is_empty() {
            return self.base_in(&self.settled(view, depth), depth, room);
        }
        if depth > MAX_DEPTH || !self.take(room, NODE) {
            return Value::Null;
        }
        match view.main_type() {
            "object" => {
                let mut object = Map::new();
                for name in &view.required {
                    if !self.take(room, NODE + name.len()) {
                        break;
                    }
                    let schemas: Vec<&Value> = view
                        .properties
                        .iter()
                        .find(|(known, _)| known == name)
                        .map(|(_, schemas)| schemas.clone())
                        .unwrap_or_default();
                    let child = self.view_all(&schemas, depth + 1);
                    object.insert((*name).to_owned(), self.base_in(&child, depth + 1, room));
                }
                Value::Object(object)
            }
            "array" => {
                let n = view.min_items.unwrap_or(0).min(LONG_ARRAY as u64) as usize;
                let item = self.settled(&self.view_all(&view.items, depth + 1), depth + 1);
                if n == 0 {
                    return Value::Array(Vec::new());
                }
                let base = self.base_in(&item, depth + 1, room);
                Value::Array(if view.unique {
                    self.distinct_items(&item, &base, n, depth + 1, room)
                } else {
                    let mut items = vec![base];
                    while items.len() < n {
                        let copy = self.literal(&items[0], room);
                        if room.left == 0 {
                            break;
                        }
                        items.push(copy);
                    }
                    items
                })
            }
            "integer" => integer_in(view, 0).map_or_else(|| number_in(view, 0.0), Value::from),
            "number" => number_in(view, 0.0),
            "boolean" => json!(false),
            "null" => Value::Null,
            _ => json!(self.base_string(view, room)),
        }
    }

    fn base_string(&self, view: &View<'a>, room: &mut Room) -> String {
        if let Some(values) = view.format.and_then(format_values) {
            return values[0].to_owned();
        }
        if let Some(pattern) = view.patterns.first()
            && let Some(example) = self.schema.example(pattern)
            && self.take(room, example.len())
        {
            return example.to_owned();
        }
        let min = view.min_length.unwrap_or(1).max(1).min(LONG_TEXT as u64);
        let n = view.max_length.map_or(min, |max| min.min(max));
        self.repeat('a', n as usize, room)
    }

    /// A random value meant to be valid, within a value's bound.
    fn random(&self, view: &View<'a>, rng: &mut Rng, depth: usize) -> Value {
        self.random_in(view, rng, depth, &mut Room::new())
    }

    /// [`Generator::random`], within `room`.
    fn random_in(&self, view: &View<'a>, rng: &mut Rng, depth: usize, room: &mut Room) -> Value {
        if let Some(constant) = view.constant {
            return self.literal(constant, room);
        }
        if let Some(members) = &view.enumeration
            && !members.is_empty()
        {
            return self.literal(members[rng.index(members.len())], room);
        }
        if !view.choices.is_empty() {
            let mut taken = view.clone();
            let choices = std::mem::take(&mut taken.choices);
            for branches in choices {
                let branch = branches[rng.index(branches.len())];
                taken.merge(self.view(branch, depth + 1));
            }
            return self.random_in(&taken, rng, depth, room);
        }
        if depth > MAX_DEPTH {
            return self.base_in(view, depth, room);
        }
        if !self.take(room, NODE) {
            return Value::Null;
        }
        let kind = match &view.types {
            Some(types) if types.len() > 1 => {
                let kinds: Vec<&str> = types.iter().copied().collect();
                kinds[rng.index(kinds.len())]
            }
            _ => view.main_type(),
        };
        match kind {
            "object" => {
                let mut object = Map::new();
                for (name, schemas) in &view.properties {
                    if room.left == 0 {
                        break;
                    }
                    if view.required.contains(name) || rng.chance(1, 2) {
                        let child = self.view_all(schemas, depth + 1);
                        if !child.never && self.take(room, NODE + name.len()) {
                            object.insert(
                                (*name).to_owned(),
                                self.random_in(&child, rng, depth + 1, room),
                            );
                        }
                    }
                }
                for name in &view.required {
                    if !object.contains_key(*name) && self.take(room, NODE + name.len()) {
                        object.insert((*name).to_owned(), json!("a"));
                    }
                }
                match view.additional {
                    Some(Value::Bool(false)) => {}
                    Some(schema) if rng.chance(1, 4) => {
                        let child = self.view(schema, depth + 1);
                        object.insert(
                            format!("extra_{}", rng.below(100)),
                            self.random_in(&child, rng, depth + 1, room),
                        );
                    }
                    None if rng.chance(1, 8) => {
                        let text = self.random_string(&View::default(), rng, room);
                        object.insert(format!("extra_{}", rng.below(100)), json!(text));
                    }
                    _ => {}
                }
                Value::Object(object)
            }
            "array" => {
                let min = view.min_items.unwrap_or(0).min(LONG_ARRAY as u64);
                let max = view.max_items.unwrap_or(min + 5).min(min + 5);
                let n = rng.between(min as i64, max as i64) as usize;
                let item = self.view_all(&view.items, depth + 1);
                let mut items: Vec<Value> = Vec::new();
                let mut tries = 0;
                while items.len() < n && tries < n * 4 + 4 && room.left > 0 {
                    tries += 1;
                    let value = self.random_in(&item, rng, depth + 1, room);
                    if view.unique && items.iter().any(|known| schema::json_eq(known, &value)) {
                        continue;
                    }
                    items.push(value);
                }
                Value::Array(items)
            }
            "integer" => random_integer(view, rng),
            "number" => {
                if rng.chance(1, 2) {
                    random_integer(view, rng)
                } else {
                    random_number(view, rng)
                }
            }
            "boolean" => json!(rng.chance(1, 2)),
            "null" => Value::Null,
            _ => json!(self.random_string(view, rng, room)),
        }
    }

    fn random_string(&self, view: &View<'a>, rng: &mut Rng, room: &mut Room) -> String {
        if let Some(values) = view.format.and_then(format_values) {
            return values[rng.index(values.len())].to_owned();
        }
        if let Some(pattern) = view.patterns.first() {
            if let Some(hir) = self.schema.hir(pattern) {
                for _ in 0..8 {
                    if let Some(text) = pattern::random(hir, rng) {
                        let n = text.chars().count() as u64;
                        if view.min_length.is_none_or(|min| n >= min)
                            && view.max_length.is_none_or(|max| n <= max)
                            && self.take(room, text.len())
                        {
                            return text;
                        }
                    }
                }
            }
            return self.base_string(view, room);
        }
        let min = view.min_length.unwrap_or(0).min(LONG_TEXT as u64);
        let max = view.max_length.unwrap_or(min + 24).min(min + 24).max(min);
        let n = rng.between(min as i64, max as i64) as usize;
        // Four bytes a character at most.
        let n = n.min(room.left / 4);
        if !self.take(room, n * 4) {
            return String::new();
        }
        const ASCII: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        const MARKS: &str = " -_./:,;!?@#%&*()[]{}'\"\\+=<>|~`$^";
        const WIDE: &[char] = &[
            'é', 'ß', 'Ж', 'ع', 'א', '日', '本', '한', '🎉', '\u{301}', '\u{200b}',
        ];
        (0..n)
            .map(|_| match rng.below(20) {
                0..=13 => ASCII.as_bytes()[rng.index(ASCII.len())] as char,
                14..=16 => MARKS.as_bytes()[rng.index(MARKS.len())] as char,
                _ => WIDE[rng.index(WIDE.len())],
            })
            .collect()
    }

    /// Breaks one member of `value` (random arguments meant to be valid):
    /// a required one left out, or a sample of another kind put in; returns
    /// what was done.
    fn break_one(&self, root: &View<'a>, value: &mut Value, rng: &mut Rng) -> Option<String> {
        let root = self.settled(root, 0);
        let object = value.as_object_mut()?;
        if !root.required.is_empty() && rng.chance(1, 5) {
            let name = root.required[rng.index(root.required.len())];
            object.remove(name);
            return Some(format!("the required `{name}` missing"));
        }
        if root.properties.is_empty() {
            return None;
        }
        let (name, schemas) = &root.properties[rng.index(root.properties.len())];
        let view = self.view_all(schemas, 1);
        let at = format!("/{}", escape_token(name));
        let samples = self.samples(&view, &at, 1);
        if samples.is_empty() {
            return None;
        }
        let (sample, what) = samples[rng.index(samples.len())].clone();
        object.insert((*name).to_owned(), sample);
        Some(what)
    }
}

/// The tighter of a bound and another.
fn merge_bound(known: Option<Bound>, n: &Number, exclusive: bool, lower: bool) -> Option<Bound> {
    let value = n.as_f64()?;
    let bound = Bound { value, exclusive };
    match known {
        Some(known) if (lower && known.value > value) || (!lower && known.value < value) => {
            Some(known)
        }
        Some(known) if known.value == value => Some(Bound {
            value,
            exclusive: known.exclusive || exclusive,
        }),
        _ => Some(bound),
    }
}

/// The integer range of `view`, inclusive.
fn integer_range(view: &View<'_>) -> (Option<i64>, Option<i64>) {
    let low = view.minimum.map(|bound| {
        let n = bound.value.ceil();
        let n = if bound.exclusive && n == bound.value {
            n + 1.0
        } else {
            n
        };
        n.clamp(i64::MIN as f64, i64::MAX as f64) as i64
    });
    let high = view.maximum.map(|bound| {
        let n = bound.value.floor();
        let n = if bound.exclusive && n == bound.value {
            n - 1.0
        } else {
            n
        };
        n.clamp(i64::MIN as f64, i64::MAX as f64) as i64
    });
    (low, high)
}

/// The integer nearest `target` that `view` allows, a multiple of its
/// `multipleOf` where that is whole.
fn integer_in(view: &View<'_>, target: i64) -> Option<i64> {
    let (low, high) = integer_range(view);
    if let (Some(low), Some(high)) = (low, high)
        && low > high
    {
        return None;
    }
    let mut n = target.clamp(low.unwrap_or(i64::MIN), high.unwrap_or(i64::MAX));
    if let Some(step) = view
        .multiple_of
        .filter(|step| step.fract() == 0.0 && *step >= 1.0)
    {
        let step = step as i64;
        let rem = n.rem_euclid(step);
        if rem != 0 {
            n = n.saturating_add(step - rem);
        }
        if high.is_some_and(|high| n > high) {
            n = n.saturating_sub(step);
        }
    }
    Some(n)
}

fn number_in(view: &View<'_>, target: f64) -> Value {
    let mut n = target;
    if let Some(bound) = view.minimum
        && (n < bound.value || (bound.exclusive && n <= bound.value))
    {
        n = if bound.exclusive {
            bound.value + 1.0
        } else {
            bound.value
        };
    }
    if let Some(bound) = view.maximum
        && (n > bound.value || (bound.exclusive && n >= bound.value))
    {
        n = if bound.exclusive {
            bound.value - 1.0
        } else {
            bound.value
        };
    }
    if let Some(step) = view.multiple_of.filter(|step| *step > 0.0) {
        n = (n / step).ceil() * step;
    }
    float(n)
}

/// A float as JSON: whole floats as integers, so that `1` is not sent as
/// `1.0`.
fn float(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

fn number_samples(view: &View<'_>) -> Vec<(Value, String)> {
    let integer =
        !view.allows("number") || view.types.as_ref().is_some_and(|t| !t.contains("number"));
    let mut out: Vec<(Value, String)> = Vec::new();
    out.push((json!(0), "zero".to_owned()));
    out.push((json!(1), "one".to_owned()));
    out.push((json!(-1), "a negative number".to_owned()));
    let bound_words = |bound: &Bound, name: &str| {
        let keyword = if bound.exclusive {
            format!("exclusive{name}")
        } else {
            name.to_lowercase()
        };
        format!("`{keyword}` {}", float(bound.value))
    };
    if let Some(bound) = view.minimum {
        let words = bound_words(&bound, "Minimum");
        if bound.exclusive {
            out.push((float(bound.value), format!("{words} itself")));
            if integer {
                out.push((
                    float(bound.value.floor() + 1.0),
                    format!("the least integer above {words}"),
                ));
            }
        } else {
            out.push((float(bound.value), format!("{words} itself")));
        }
        out.push((float(bound.value - 1.0), format!("one below {words}")));
    }
    if let Some(bound) = view.maximum {
        let words = bound_words(&bound, "Maximum");
        if bound.exclusive {
            out.push((float(bound.value), format!("{words} itself")));
            if integer {
                out.push((
                    float(bound.value.ceil() - 1.0),
                    format!("the greatest integer below {words}"),
                ));
            }
        } else {
            out.push((float(bound.value), format!("{words} itself")));
        }
        out.push((float(bound.value + 1.0), format!("one above {words}")));
    }
    if let Some(step) = view.multiple_of.filter(|step| *step > 0.0) {
        if let Some(n) = integer_in(view, 0) {
            out.push((
                float(n as f64 + step),
                format!("a multiple of {}", float(step)),
            ));
        }
        let off = if step.fract() == 0.0 { 1.0 } else { step / 2.0 };
        out.push((float(step + off), format!("no multiple of {}", float(step))));
    }
    if view.maximum.is_none() {
        out.push((
            json!(9_007_199_254_740_993_u64),
            "2^53 + 1, past a double's integers".to_owned(),
        ));
        out.push((json!(i64::MAX), "the largest 64-bit integer".to_owned()));
    }
    if view.minimum.is_none() {
        out.push((json!(-9_007_199_254_740_993_i64), "-(2^53 + 1)".to_owned()));
    }
    if !integer {
        out.push((json!(0.5), "a fraction".to_owned()));
        out.push((json!(-0.5), "a negative fraction".to_owned()));
        if view.maximum.is_none() {
            out.push((json!(1e308), "1e308".to_owned()));
        }
        if view.minimum.is_none() {
            out.push((json!(-1e308), "-1e308".to_owned()));
        }
        out.push((json!(5e-324), "the smallest positive double".to_owned()));
    }
    out
}

fn random_integer(view: &View<'_>, rng: &mut Rng) -> Value {
    let (low, high) = integer_range(view);
    if integer_in(view, 0).is_none() {
        return random_number(view, rng);
    }
    let (low, high) = match (low, high) {
        (Some(low), Some(high)) => (low, high),
        (Some(low), None) => (low, low.saturating_add(1000)),
        (None, Some(high)) => (high.saturating_sub(1000), high),
        (None, None) => (-1000, 1000),
    };
    let n = match rng.below(4) {
        0 => low,
        1 => high,
        _ => rng.between(low, high),
    };
    integer_in(view, n).map_or(json!(n), Value::from)
}

fn random_number(view: &View<'_>, rng: &mut Rng) -> Value {
    let low = view.minimum.map_or(-1000.0, |bound| bound.value);
    let high = view
        .maximum
        .map_or(low.max(-1000.0) + 2000.0, |bound| bound.value);
    let n = low + (high - low) * rng.unit();
    number_in(view, n)
}

/// One value of each type `types` does not allow.
fn wrong_type_samples(types: &BTreeSet<&str>, at: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for (kind, wrong) in [
        ("string", json!("mcp-replay")),
        ("number", json!(12345)),
        ("boolean", json!(true)),
        ("null", Value::Null),
        ("array", json!([])),
        ("object", json!({})),
    ] {
        let allowed = types.contains(kind) || (kind == "number" && types.contains("integer"));
        if !allowed {
            out.push((
                wrong,
                format!(
                    "{at}: {} where {} belongs",
                    kind_words(kind),
                    type_words(types)
                ),
            ));
        }
    }
    if types.contains("integer") && !types.contains("number") {
        out.push((
            json!(1.5),
            format!("{at}: a fraction where an integer belongs"),
        ));
    }
    out
}

fn kind_words(kind: &str) -> &'static str {
    match kind {
        "string" => "text",
        "number" => "a number",
        "boolean" => "a boolean",
        "null" => "null",
        "array" => "an array",
        _ => "an object",
    }
}

fn type_words(types: &BTreeSet<&str>) -> String {
    let words: Vec<&str> = types.iter().copied().collect();
    if words.is_empty() {
        "nothing".to_owned()
    } else {
        words.join(" or ")
    }
}

/// A number's words in a case (`12`, `1.5`), for tests.
#[cfg(test)]
fn number_text(value: &Value) -> String {
    match value.as_number() {
        Some(n) if schema::is_integer(n) => n.to_string(),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 200},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "filter": {
                    "type": "object",
                    "properties": {"lang": {"enum": ["en", "fr"]}, "since": {"type": "string", "format": "date"}},
                    "required": ["lang"],
                    "additionalProperties": false
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    #[test]
    fn boundaries_come_first_in_a_fixed_order() {
        let generated = cases(&search(), 1, "search", 12);
        let whats: Vec<&str> = generated
            .cases
            .iter()
            .map(|case| case.what.as_str())
            .collect();
        assert_eq!(
            whats,
            [
                "the required arguments alone",
                "every optional argument present",
                "the required `query` missing",
                "an extra property `mcp_replay_extra`",
                // Round-robin: each property's first sample before any second.
                "/filter: the nested object with its required members alone",
                "/limit: zero",
                "/query: empty text",
                "/tags: an empty array",
                "/filter: the nested object with every optional member present",
                "/limit: one",
                // `query`'s shortest text is the base case's "a": a repeat.
                "/tags: one item",
                "/filter: the nested object without its required `lang`",
            ]
        );
        assert_eq!(generated.cases[0].arguments, Some(json!({"query": "a"})));
        assert_eq!(generated.cases[0].verdict, Verdict::Valid);
        assert!(matches!(generated.cases[2].verdict, Verdict::Invalid(_)));
        assert!(matches!(generated.cases[3].verdict, Verdict::Invalid(_)));
        // limit 0 is below the minimum.
        assert!(matches!(generated.cases[5].verdict, Verdict::Invalid(_)));
        assert!(generated.not_generated_for.is_empty());
    }

    #[test]
    fn the_same_seed_draws_the_same_cases() {
        let a = cases(&search(), 42, "search", 150);
        let b = cases(&search(), 42, "search", 150);
        let c = cases(&search(), 43, "search", 150);
        assert_eq!(a.cases, b.cases);
        assert_eq!(a.cases.len(), 150);
        assert_ne!(a.cases, c.cases);
        // Another tool's name draws other random cases from the same seed.
        let d = cases(&search(), 42, "other", 150);
        assert_ne!(a.cases, d.cases);
    }

    #[test]
    fn boundaries_include_each_bound_and_one_past() {
        let generated = cases(&search(), 1, "search", 500);
        let find = |what: &str| {
            generated
                .cases
                .iter()
                .find(|case| case.what == what)
                .unwrap_or_else(|| panic!("no case `{what}`"))
        };
        let over = find("/limit: one above `maximum` 50");
        assert_eq!(over.arguments.as_ref().unwrap()["limit"], json!(51));
        assert!(matches!(&over.verdict, Verdict::Invalid(broken) if broken.keyword == "maximum"));
        let at = find("/limit: `maximum` 50 itself");
        assert_eq!(at.verdict, Verdict::Valid);
        let long = find("/query: one character past `maxLength` 200");
        assert!(matches!(&long.verdict, Verdict::Invalid(broken) if broken.keyword == "maxLength"));
        let wrong = find("/query: a number where string belongs");
        assert!(matches!(&wrong.verdict, Verdict::Invalid(broken) if broken.keyword == "type"));
        let date = find("/filter/since: a date value");
        assert_eq!(date.verdict, Verdict::Valid);
        let odd = find("/filter/since: text that is no date value");
        assert!(matches!(odd.verdict, Verdict::Unjudged(_)));
        let nested = find("/filter: the nested object without its required `lang`");
        assert!(matches!(nested.verdict, Verdict::Invalid(_)));
        let _ = number_text(&json!(1));
    }

    /// Schemas that ask for more than any bounded generator makes: a
    /// billion characters or items, arrays of a hundred arrays without
    /// end, a pattern of a billion repetitions, references that fan out,
    /// and 20,000 required members of 10,000 characters each.
    fn hostile() -> Vec<(&'static str, Value)> {
        let one = |schema: Value| json!({"type": "object", "properties": {"x": schema}, "required": ["x"]});
        let names: Vec<String> = (0..20_000).map(|n| format!("m{n:05}")).collect();
        let wide: Map<String, Value> = names
            .iter()
            .map(|name| (name.clone(), json!({"type": "string", "minLength": 10_000})))
            .collect();
        vec![
            (
                "min-length",
                one(json!({"type": "string", "minLength": 1_000_000_000})),
            ),
            (
                "min-items",
                one(
                    json!({"type": "array", "minItems": 1_000_000_000, "items": {
                "type": "array", "minItems": 1_000_000, "uniqueItems": true,
                "items": {"type": "string", "minLength": 100_000}}}),
                ),
            ),
            (
                "min-properties",
                one(json!({"type": "object", "minProperties": 1_000_000_000})),
            ),
            (
                "multiple-of",
                one(json!({"type": "number", "multipleOf": 1e-300, "minimum": 1e300})),
            ),
            (
                "nesting",
                json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}, "required": ["x"],
                "$defs": {"n": {"type": "array", "minItems": 100, "items": {"$ref": "#/$defs/n"}}}}),
            ),
            (
                "repetition",
                one(json!({"type": "string", "pattern": "^a{1000000000}$"})),
            ),
            (
                "nested-repetition",
                one(json!({"type": "string", "pattern": "^((a{1000}){1000}){1000}$"})),
            ),
            (
                "references",
                json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}, "required": ["x"],
                "$defs": {"n": {"anyOf": [{"$ref": "#/$defs/n"}, {"$ref": "#/$defs/n"}],
                                "allOf": [{"$ref": "#/$defs/n"}, {"$ref": "#/$defs/n"}]}}}),
            ),
            (
                "wide",
                json!({"type": "object", "properties": wide, "required": names}),
            ),
        ]
    }

    // See: #25
    #[test]
    fn drawing_is_bounded_whatever_the_schema_asks() {
        for (kind, schema) in hostile() {
            let started = std::time::Instant::now();
            let generated = cases(&schema, 3, kind, 100);
            let took = started.elapsed();
            assert!(
                took < std::time::Duration::from_secs(20),
                "{kind}: drawing took {took:?}"
            );
            let drawn: usize = generated
                .cases
                .iter()
                .map(|case| case.arguments.as_ref().map_or(0, |a| a.to_string().len()))
                .sum();
            assert!(drawn <= 100 * MAX_ARGUMENTS, "{kind}: {drawn} bytes");
            for case in &generated.cases {
                if let Some(arguments) = &case.arguments {
                    assert!(
                        weigh(arguments, 4 * MAX_VALUE).is_some(),
                        "{kind}: {}",
                        case.what
                    );
                }
            }
            // Nothing within the bounds meets these: no case is called
            // valid, and the tool says what it was not generated for.
            if [
                "min-length",
                "min-items",
                "nesting",
                "repetition",
                "nested-repetition",
                "wide",
            ]
            .contains(&kind)
            {
                assert!(
                    generated
                        .cases
                        .iter()
                        .all(|case| case.verdict != Verdict::Valid),
                    "{kind}"
                );
                assert!(!generated.not_generated_for.is_empty(), "{kind}");
                assert_eq!(super::super::valid_arguments(&schema, kind), None, "{kind}");
            }
        }
    }

    // See: #25
    #[test]
    fn a_judgement_that_fans_out_is_unjudged_within_its_steps() {
        let (_, schema) = hostile()
            .into_iter()
            .find(|(kind, _)| *kind == "references")
            .unwrap();
        let judge = Schema::new(&schema);
        let started = std::time::Instant::now();
        let verdict = judge.judge(&json!({"x": 1}));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(matches!(&verdict, Verdict::Unjudged(_)), "{verdict:?}");
    }
}

/// The judge held to a full JSON Schema validator: over a corpus of tool
/// schemas as servers write them (hand-written, zod's, pydantic's,
/// schemars'), every case labelled valid is valid and every case labelled
/// invalid is invalid, for several seeds.
#[cfg(test)]
mod crosscheck {
    use super::*;

    fn corpus() -> Vec<Value> {
        vec![
            // Hand-written, with every keyword the generator aims at.
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z ]+$"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "multipleOf": 5},
                    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
                    "mode": {"enum": ["fast", "exact", 3, null]},
                    "fixed": {"const": {"a": [1, 2]}},
                    "when": {"type": "string", "format": "date-time"},
                    "nested": {
                        "type": "object",
                        "properties": {"depth": {"type": "integer"}, "flag": {"type": "boolean"}},
                        "required": ["depth"],
                        "additionalProperties": false
                    }
                },
                "required": ["query", "limit"],
                "additionalProperties": false
            }),
            // zod-to-json-schema, draft-07.
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "head": {"type": "number", "description": "the first N lines"},
                    "edits": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                        "required": ["oldText", "newText"],
                        "additionalProperties": false
                    }},
                    "dryRun": {"type": "boolean", "default": false}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            // pydantic, with $defs, anyOf for optional and a title on each.
            json!({
                "type": "object",
                "title": "fetchArguments",
                "properties": {
                    "url": {"type": "string", "format": "uri", "minLength": 1, "title": "Url"},
                    "max_length": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000000, "default": 5000},
                    "raw": {"type": "boolean", "default": false},
                    "timezone": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                    "point": {"$ref": "#/$defs/Point"}
                },
                "required": ["url"],
                "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}}
            }),
            // schemars, with oneOf of tagged variants and allOf.
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "shape": {"oneOf": [
                        {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number", "minimum": 0}}, "required": ["kind", "r"]},
                        {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
                    ]},
                    "count": {"allOf": [{"type": "integer"}, {"minimum": -3, "maximum": 3}]},
                    "any": {},
                    "nothing": false,
                    "either": {"type": ["string", "integer"], "maxLength": 2, "minimum": 10}
                },
                "required": ["shape"]
            }),
            // The keywords judged but not aimed at.
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "not": {"const": "a"}},
                    "b": {"type": "integer", "if": {"minimum": 10}, "then": {"multipleOf": 2}, "else": {"maximum": 5}},
                    "c": {"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "propertyNames": {"maxLength": 4}, "minProperties": 1, "maxProperties": 2},
                    "d": {"type": "array", "prefixItems": [{"type": "string"}], "contains": {"type": "integer"}, "maxContains": 1},
                    "e": {"type": "string"}
                },
                "dependentRequired": {"a": ["e"]},
                "required": ["b"]
            }),
            // Untyped and loose.
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"x": {"type": "array"}}, "additionalProperties": {"type": "integer"}}),
        ]
    }

    #[test]
    fn labels_agree_with_a_full_validator() {
        for (index, schema) in corpus().iter().enumerate() {
            let validator = jsonschema::validator_for(schema).expect("the corpus schema compiles");
            let mut labelled = 0;
            for seed in [1, 2, 3] {
                let generated = cases(schema, seed, "tool", 300);
                for case in &generated.cases {
                    let arguments = case.arguments.clone().unwrap_or_else(|| json!({}));
                    let valid = validator.is_valid(&arguments);
                    match &case.verdict {
                        Verdict::Valid => assert!(
                            valid,
                            "schema {index}: `{}` labelled valid, but the validator says no: {arguments}",
                            case.what
                        ),
                        Verdict::Invalid(broken) => assert!(
                            !valid,
                            "schema {index}: `{}` labelled invalid ({broken}), but the validator accepts it: {arguments}",
                            case.what
                        ),
                        Verdict::Unjudged(_) => continue,
                    }
                    labelled += 1;
                }
            }
            // A schema with properties has many cases; a loose one few.
            let least = if schema.get("properties").is_some() {
                50
            } else {
                3
            };
            assert!(
                labelled > least,
                "schema {index}: only {labelled} cases labelled"
            );
        }
    }

    /// Both labels occur for every schema that constrains anything, and most
    /// cases of the hand-written schema are labelled.
    #[test]
    fn each_schema_gets_valid_and_invalid_cases() {
        for (index, schema) in corpus().iter().enumerate().take(5) {
            let generated = cases(schema, 9, "tool", 200);
            let valid = generated
                .cases
                .iter()
                .filter(|c| c.verdict == Verdict::Valid)
                .count();
            let invalid = generated
                .cases
                .iter()
                .filter(|c| matches!(c.verdict, Verdict::Invalid(_)))
                .count();
            assert!(
                valid >= 20 && invalid >= 20,
                "schema {index}: {valid} valid, {invalid} invalid"
            );
        }
    }
}
