//! The keywords of each type of value: numbers, strings, arrays and
//! objects, and the `unevaluated*` keywords that read what the others
//! evaluated.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use super::numbers::{compare, multiple_of};
use super::outcome::{CERTAIN, Cx, MAYBE, NOT, Outcome, Path, Status};
use super::run::{Keywords, Run};
use super::{Dialect, Reading, format_values, short, short_name, short_str};
use crate::schema::ecma::Match;

impl<'a> Run<'_, 'a> {
    #[inline(never)]
    pub(super) fn numbers(
        &mut self,
        k: &Keywords<'a>,
        number: &Number,
        path: &Path<'_>,
        out: &mut Outcome,
    ) {
        let exclusive = |flag: Option<&Value>| flag == Some(&Value::Bool(true));
        for (keyword, bound) in [
            ("minimum", k.minimum),
            ("maximum", k.maximum),
            ("exclusiveMinimum", k.exclusive_minimum),
            ("exclusiveMaximum", k.exclusive_maximum),
        ] {
            let Some(bound) = bound else {
                continue;
            };
            let bound = match bound {
                Value::Number(bound) => bound,
                // Draft-04's flag, read with `minimum` or `maximum`.
                Value::Bool(_) if self.schema.draft4 => continue,
                _ => {
                    out.unsure(format!("a `{keyword}` that is no number"));
                    continue;
                }
            };
            let order = compare(number, bound);
            let (broken, how) = match keyword {
                "minimum" if self.schema.draft4 && exclusive(k.exclusive_minimum) => {
                    (order.is_le(), ", exclusive")
                }
                "maximum" if self.schema.draft4 && exclusive(k.exclusive_maximum) => {
                    (order.is_ge(), ", exclusive")
                }
                "minimum" => (order.is_lt(), ""),
                "maximum" => (order.is_gt(), ""),
                "exclusiveMinimum" => (order.is_le(), ""),
                _ => (order.is_ge(), ""),
            };
            if broken {
                out.and(Outcome::broken(
                    path,
                    keyword,
                    format!("{number} is out of bounds: `{keyword}` is {bound}{how}"),
                ));
            }
        }
        if let Some(divisor) = k.multiple_of {
            match divisor.as_number() {
                Some(divisor) if compare(divisor, &Number::from(0)).is_gt() => {
                    match multiple_of(number, divisor) {
                        Some(true) => {}
                        Some(false) => out.and(Outcome::broken(
                            path,
                            "multipleOf",
                            format!("{number} is not a multiple of {divisor}"),
                        )),
                        None => out.unsure(format!(
                            "whether {number} is a multiple of {divisor} depends on how a validator reads fractions"
                        )),
                    }
                }
                _ => out.unsure("a `multipleOf` that is no positive number".to_owned()),
            }
        }
    }

    #[inline(never)]
    pub(super) fn strings(
        &mut self,
        k: &Keywords<'a>,
        text: &str,
        value: &Value,
        path: &Path<'_>,
        out: &mut Outcome,
    ) {
        let length = || text.chars().count() as u64;
        for (keyword, bound) in [("minLength", k.min_length), ("maxLength", k.max_length)] {
            let Some(bound) = bound else {
                continue;
            };
            let Some(bound) = whole(bound) else {
                out.unsure(format!("a `{keyword}` that is no whole number"));
                continue;
            };
            let n = length();
            let broken = match keyword {
                "minLength" => n < bound,
                _ => n > bound,
            };
            if broken {
                out.and(Outcome::broken(
                    path,
                    keyword,
                    format!("{n} characters, against the `{keyword}` {bound}"),
                ));
            }
        }
        if let Some(pattern) = k.pattern {
            match pattern.as_str() {
                Some(pattern) => match self.schema.patterns.matches(pattern, text) {
                    Match::Yes => {}
                    Match::No => out.and(Outcome::broken(
                        path,
                        "pattern",
                        format!(
                            "{} does not match the pattern {}",
                            short(value),
                            short_str(pattern)
                        ),
                    )),
                    Match::Unsure(why) => out.unsure(why),
                },
                None => out.unsure("a `pattern` that is no string".to_owned()),
            }
        }
        if let Some(format) = k.format
            && self.schema.reading == Reading::Portable
        {
            let Some(format) = format.as_str() else {
                out.unsure("a `format` that is no string".to_owned());
                return;
            };
            // A string of a known format is valid when it is one of the
            // examples fuzz draws: a validator that asserts formats may be
            // stricter than any check written here.
            match format_values(format) {
                Some(values) if values.contains(&text) => {}
                Some(_) => out.unsure(format!(
                    "whether {} is of the format {} is the validator's to say",
                    short(value),
                    short_str(format)
                )),
                None => out.unsure(format!("the format {} is unknown", short_str(format))),
            }
        }
    }

    #[inline(never)]
    pub(super) fn arrays(
        &mut self,
        k: &Keywords<'a>,
        items: &[Value],
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        let dialect = self.schema.dialect;
        let tracks = self.schema.tracks;
        // The items a list of schemas applies to, each to its own.
        let tuple = |this: &mut Self, schemas: &'a [Value], out: &mut Outcome| {
            for (index, (schema, item)) in schemas.iter().zip(items).enumerate() {
                out.and_child(this.apply(schema, item, &Path::Index(path, index), cx.deeper()));
                if tracks {
                    out.mark_item(index, CERTAIN);
                }
                if out.stop(cx) {
                    return;
                }
            }
        };
        let mut prefix = 0;
        if let Some(prefix_items) = k.prefix_items {
            match prefix_items.as_array() {
                Some(schemas) if dialect == Dialect::Draft2020 => {
                    prefix = schemas.len();
                    tuple(self, schemas, out);
                }
                Some(schemas) => {
                    let mut own = Outcome::valid();
                    tuple(self, schemas, &mut own);
                    out.and(self.foreign("prefixItems", own));
                }
                None => out.unsure("a `prefixItems` that is no list of schemas".to_owned()),
            }
        }
        if out.stop(cx) {
            return;
        }
        // The items from `from` on, each to `schema`.
        let rest = |this: &mut Self, schema: &'a Value, from: usize, out: &mut Outcome| {
            for (index, item) in items.iter().enumerate().skip(from) {
                out.and_child(this.apply(schema, item, &Path::Index(path, index), cx.deeper()));
                if tracks {
                    out.mark_item(index, CERTAIN);
                }
                if out.stop(cx) {
                    return;
                }
            }
        };
        match k.items {
            // The list form of draft-07 and 2019-09 (a malformed `items` in
            // 2020-12, read as the generators that emit it mean it).
            Some(Value::Array(schemas)) => {
                tuple(self, schemas, out);
                if let Some(additional) = k.additional_items {
                    rest(self, additional, schemas.len(), out);
                }
            }
            Some(schema) => rest(self, schema, prefix, out),
            None => {}
        }
        if out.stop(cx) {
            return;
        }
        if let Some(contains) = k.contains {
            self.contains(k, contains, items, path, cx, out);
        }
        for (keyword, bound) in [("minItems", k.min_items), ("maxItems", k.max_items)] {
            let Some(bound) = bound else {
                continue;
            };
            let Some(bound) = whole(bound) else {
                out.unsure(format!("a `{keyword}` that is no whole number"));
                continue;
            };
            let n = items.len() as u64;
            let broken = match keyword {
                "minItems" => n < bound,
                _ => n > bound,
            };
            if broken {
                out.and(Outcome::broken(
                    path,
                    keyword,
                    format!("{n} items, against the `{keyword}` {bound}"),
                ));
            }
        }
        match k.unique_items {
            Some(Value::Bool(true)) => {
                let mut seen = HashSet::new();
                for (index, item) in items.iter().enumerate() {
                    let mut key = String::new();
                    canonical(item, &mut key);
                    if !seen.insert(key) {
                        out.and(Outcome::broken(
                            path,
                            "uniqueItems",
                            format!("item {index} repeats an earlier item"),
                        ));
                        break;
                    }
                }
            }
            Some(Value::Bool(false)) | None => {}
            Some(_) => out.unsure("a `uniqueItems` that is no boolean".to_owned()),
        }
    }

    /// `contains`, with `minContains` and `maxContains`.
    #[inline(never)]
    fn contains(
        &mut self,
        k: &Keywords<'a>,
        schema: &'a Value,
        items: &[Value],
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        let bound = |keyword: &str, argument: Option<&Value>| match argument {
            None => Ok(None),
            Some(argument) => whole(argument)
                .map(Some)
                .ok_or_else(|| format!("a `{keyword}` that is no whole number")),
        };
        let (min, max) = match (
            bound("minContains", k.min_contains),
            bound("maxContains", k.max_contains),
        ) {
            (Ok(min), Ok(max)) => (min, max),
            (Err(why), _) | (_, Err(why)) => {
                out.unsure(why);
                return;
            }
        };
        let (mut matched, mut unsure) = (0u64, 0u64);
        let mut why = None;
        // `contains` evaluates the items it matches in 2020-12; whether it
        // does in 2019-09, validators differ.
        let sure = match self.schema.dialect {
            Dialect::Draft2020 => CERTAIN,
            _ => MAYBE,
        };
        let annotates = self.schema.tracks;
        for (index, item) in items.iter().enumerate() {
            let outcome = self.apply(schema, item, &Path::Index(path, index), cx.deeper().first());
            match outcome.status {
                Status::Valid => {
                    matched += 1;
                    if annotates {
                        out.mark_item(index, sure);
                    }
                }
                Status::Unjudged => {
                    unsure += 1;
                    if annotates {
                        out.mark_item(index, MAYBE);
                    }
                    if why.is_none() {
                        why = outcome.why;
                    }
                }
                Status::Invalid => {}
            }
        }
        // Whether between `matched` and `matched + unsure` matches meet
        // the bounds.
        let decide = |min: u64, max: Option<u64>| {
            let (low, high) = (matched, matched + unsure);
            if low >= min && max.is_none_or(|max| high <= max) {
                Status::Valid
            } else if high < min || max.is_some_and(|max| low > max) {
                Status::Invalid
            } else {
                Status::Unjudged
            }
        };
        let modern = decide(min.unwrap_or(1), max);
        let status = match self.schema.dialect {
            Dialect::Draft7 if min.is_some() || max.is_some() => {
                let old = decide(1, None);
                if old != modern {
                    out.unsure(
                        "`minContains` and `maxContains` are no keywords of draft-07, the schema's dialect, and the value meets `contains` by one reading only"
                            .to_owned(),
                    );
                    return;
                }
                old
            }
            Dialect::Draft7 => decide(1, None),
            _ => modern,
        };
        match status {
            Status::Valid => {}
            Status::Unjudged => out.unsure(why.unwrap_or_default()),
            Status::Invalid => {
                let mut wanted = format!("at least {}", min.unwrap_or(1));
                if let Some(max) = max {
                    let _ = write!(wanted, " and at most {max}");
                }
                out.and(Outcome::broken(
                    path,
                    "contains",
                    format!(
                        "{matched} of the {} items match the schema of `contains`, against {wanted}",
                        items.len()
                    ),
                ));
            }
        }
    }

    #[inline(never)]
    pub(super) fn objects(
        &mut self,
        k: &Keywords<'a>,
        object: &Map<String, Value>,
        value: &Value,
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        let dialect = self.schema.dialect;
        if let Some(required) = k.required {
            match required.as_array() {
                Some(names) => {
                    for name in names {
                        match name.as_str() {
                            Some(name) if !object.contains_key(name) => {
                                out.and(Outcome::broken(
                                    path,
                                    "required",
                                    format!("missing required property `{}`", short_name(name)),
                                ));
                            }
                            Some(_) => {}
                            None => out.unsure("a `required` name that is no string".to_owned()),
                        }
                    }
                }
                None => out.unsure("a `required` that is no list".to_owned()),
            }
        }
        if out.stop(cx) {
            return;
        }
        self.members(k, object, path, cx, out);
        if out.stop(cx) {
            return;
        }
        if let Some(schema) = k.property_names {
            for name in object.keys() {
                let key = Path::Key(path, name);
                let name_value = Value::String(name.clone());
                // The name is no part of the value judged: its outcome is
                // not remembered by its address.
                let scratch = Cx {
                    memo: false,
                    ..cx.deeper().first()
                };
                let outcome = self.apply(schema, &name_value, &key, scratch);
                match outcome.status {
                    Status::Valid => {}
                    Status::Invalid => out.and(Outcome::broken(
                        &key,
                        "propertyNames",
                        format!(
                            "the property name `{}` breaks `propertyNames`: {}",
                            short_name(name),
                            outcome
                                .broken
                                .first()
                                .map_or("", |broken| broken.message.as_str())
                        ),
                    )),
                    Status::Unjudged => out.unsure(outcome.why.unwrap_or_default()),
                }
                if out.stop(cx) {
                    return;
                }
            }
        }
        for (keyword, bound) in [
            ("minProperties", k.min_properties),
            ("maxProperties", k.max_properties),
        ] {
            let Some(bound) = bound else {
                continue;
            };
            let Some(bound) = whole(bound) else {
                out.unsure(format!("a `{keyword}` that is no whole number"));
                continue;
            };
            let n = object.len() as u64;
            let broken = match keyword {
                "minProperties" => n < bound,
                _ => n > bound,
            };
            if broken {
                out.and(Outcome::broken(
                    path,
                    keyword,
                    format!("{n} properties, against the `{keyword}` {bound}"),
                ));
            }
        }
        for (keyword, argument, native) in [
            (
                "dependentRequired",
                k.dependent_required,
                dialect != Dialect::Draft7,
            ),
            (
                "dependentSchemas",
                k.dependent_schemas,
                dialect != Dialect::Draft7,
            ),
            ("dependencies", k.dependencies, dialect == Dialect::Draft7),
        ] {
            let Some(argument) = argument else {
                continue;
            };
            let Some(dependencies) = argument.as_object() else {
                out.unsure(format!("a `{keyword}` that is no object"));
                continue;
            };
            let mut own = Outcome::valid();
            for (name, dependency) in dependencies {
                if !object.contains_key(name) {
                    continue;
                }
                match (keyword, dependency) {
                    ("dependentRequired" | "dependencies", Value::Array(needed)) => {
                        for needed in needed {
                            match needed.as_str() {
                                Some(needed) if !object.contains_key(needed) => {
                                    own.and(Outcome::broken(
                                        path,
                                        keyword,
                                        format!(
                                            "`{}` is present, so `{}` is required",
                                            short_name(name),
                                            short_name(needed)
                                        ),
                                    ));
                                }
                                Some(_) => {}
                                None => own.unsure(format!("a `{keyword}` name that is no string")),
                            }
                        }
                    }
                    ("dependentRequired", _) => {
                        own.unsure("a `dependentRequired` entry that is no list".to_owned());
                    }
                    (_, schema) => own.and(self.apply(schema, value, path, cx.deeper())),
                }
                if own.stop(cx) {
                    break;
                }
            }
            match native {
                true => out.and(own),
                false => out.and(self.foreign(keyword, own)),
            }
            if out.stop(cx) {
                return;
            }
        }
    }

    /// `properties`, `patternProperties` and `additionalProperties`, in
    /// one pass over the members.
    #[inline(never)]
    fn members(
        &mut self,
        k: &Keywords<'a>,
        object: &Map<String, Value>,
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        if k.properties.is_none()
            && k.pattern_properties.is_none()
            && k.additional_properties.is_none()
        {
            return;
        }
        let tracks = self.schema.tracks;
        let properties = match k.properties {
            Some(Value::Object(properties)) => Some(properties),
            Some(_) => {
                out.unsure("a `properties` that is no object".to_owned());
                None
            }
            None => None,
        };
        let patterns = match k.pattern_properties {
            Some(Value::Object(patterns)) => Some(patterns),
            Some(_) => {
                out.unsure("a `patternProperties` that is no object".to_owned());
                None
            }
            None => None,
        };
        for (index, (name, item)) in object.iter().enumerate() {
            if !self.step() {
                out.unsure(format!(
                    "judging the value takes more than {} steps",
                    self.schema.max_steps()
                ));
                return;
            }
            let key = Path::Key(path, name);
            let mut named = false;
            if let Some(schema) = properties.and_then(|properties| properties.get(name)) {
                named = true;
                out.and_child(self.apply(schema, item, &key, cx.deeper()));
                if tracks {
                    out.mark_property(index, CERTAIN);
                }
            }
            // Whether some pattern matches the name: yes, no, or unsure
            // (with why).
            let mut matched = Ok(false);
            for (pattern, schema) in patterns.into_iter().flatten() {
                match self.schema.patterns.matches(pattern, name) {
                    Match::Yes => {
                        matched = Ok(true);
                        out.and_child(self.apply(schema, item, &key, cx.deeper()));
                        if tracks {
                            out.mark_property(index, CERTAIN);
                        }
                    }
                    Match::No => {}
                    Match::Unsure(why) => {
                        // The schema applies if the pattern matches: it
                        // matters only where it fails.
                        let outcome = self.apply(schema, item, &key, cx.deeper().first());
                        if outcome.status != Status::Valid {
                            out.unsure(why.clone());
                        }
                        if tracks {
                            out.mark_property(index, MAYBE);
                        }
                        if matched == Ok(false) {
                            matched = Err(why);
                        }
                    }
                }
            }
            if let Some(additional) = k.additional_properties
                && !named
            {
                let outcome = |this: &mut Self, cx: Cx| match additional {
                    Value::Bool(false) => Outcome::broken(
                        &key,
                        "additionalProperties",
                        "unexpected property".to_owned(),
                    ),
                    schema => this.apply(schema, item, &key, cx.deeper()),
                };
                match matched {
                    Ok(true) => {}
                    Ok(false) => {
                        let outcome = outcome(self, cx);
                        out.and_child(outcome);
                        if tracks {
                            out.mark_property(index, CERTAIN);
                        }
                    }
                    Err(why) => {
                        let outcome = outcome(self, cx.first());
                        if outcome.status != Status::Valid {
                            out.unsure(format!(
                                "whether `{}` is an additional property depends on a pattern: {why}",
                                short_name(name)
                            ));
                        }
                        if tracks {
                            out.mark_property(index, MAYBE);
                        }
                    }
                }
            }
            if out.stop(cx) {
                return;
            }
        }
    }

    #[inline(never)]
    pub(super) fn unevaluated_properties(
        &mut self,
        schema: &'a Value,
        object: &Map<String, Value>,
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        let mut own = Outcome::valid();
        let cap = self.evaluated_cap();
        for (index, (name, item)) in object.iter().enumerate() {
            let state = out.property(index).min(cap);
            if state == CERTAIN {
                continue;
            }
            let key = Path::Key(path, name);
            let outcome = match schema {
                Value::Bool(false) => Outcome::broken(
                    &key,
                    "unevaluatedProperties",
                    "unexpected property".to_owned(),
                ),
                schema => self.apply(schema, item, &key, cx.deeper()),
            };
            if state == NOT {
                own.and_child(outcome);
            } else if outcome.status != Status::Valid {
                own.unsure(format!(
                    "whether `{}` was evaluated depends on a keyword left unjudged",
                    short_name(name)
                ));
            }
            own.mark_property(index, CERTAIN);
            if own.stop(cx) {
                break;
            }
        }
        self.unevaluated(out, own, "unevaluatedProperties");
    }

    #[inline(never)]
    pub(super) fn unevaluated_items(
        &mut self,
        schema: &'a Value,
        items: &[Value],
        path: &Path<'_>,
        cx: Cx,
        out: &mut Outcome,
    ) {
        let mut own = Outcome::valid();
        let cap = self.evaluated_cap();
        for (index, item) in items.iter().enumerate() {
            let state = out.item(index).min(cap);
            if state == CERTAIN {
                continue;
            }
            let at = Path::Index(path, index);
            let outcome = self.apply(schema, item, &at, cx.deeper());
            if state == NOT {
                own.and_child(outcome);
            } else if outcome.status != Status::Valid {
                own.unsure(format!(
                    "whether item {index} was evaluated depends on a keyword left unjudged"
                ));
            }
            own.mark_item(index, CERTAIN);
            if own.stop(cx) {
                break;
            }
        }
        self.unevaluated(out, own, "unevaluatedItems");
    }

    /// How sure what the other keywords evaluated is, for `unevaluated*`:
    /// in 2019-09 validators read the annotations differently (the Python
    /// package leaves out some that nested subschemas make), so a member
    /// they evaluated is only maybe evaluated there.
    fn evaluated_cap(&self) -> u8 {
        match self.schema.dialect {
            Dialect::Draft2019 => MAYBE,
            _ => CERTAIN,
        }
    }

    /// `unevaluated*`'s own outcome into the schema's; draft-07 has no
    /// such keyword.
    fn unevaluated(&self, out: &mut Outcome, own: Outcome, keyword: &str) {
        match self.schema.dialect {
            Dialect::Draft7 => out.and(self.foreign(keyword, own)),
            _ => out.and(own),
        }
    }
}

/// A whole number ≥ 0 (`2` or `2.0`).
pub(super) fn whole(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    number.as_u64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

/// A value's text under JSON Schema's equality: numbers by value (`1` and
/// `1.0` alike), object members in order of their names.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => {
            let integral = number.as_f64().filter(|f| {
                f.fract() == 0.0 && f.abs() < 1.7e38 && !number.is_i64() && !number.is_u64()
            });
            match integral {
                Some(f) => {
                    let _ = write!(out, "{}", f as i128);
                }
                None => {
                    let _ = write!(out, "{number}");
                }
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(object) => {
            let mut members: Vec<(&String, &Value)> = object.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (name, member) in members {
                let _ = write!(out, "{}:", Value::String(name.clone()));
                canonical(member, out);
                out.push(',');
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}
