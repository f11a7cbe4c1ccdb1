//! Recorded messages as they were written: one member replaced, the rest of
//! the text kept byte for byte, member order included.
//!
//! serde_json's map sorts keys in this crate, so a message read into a
//! `Value` and written back comes out reordered; a mock answers with the
//! recorded text instead, and only the id (and the few members it
//! rewrites) change.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize as _;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

/// The members of a JSON object's text, in order, each value as its text.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Collect;
        impl<'de> Visitor<'de> for Collect {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Collect)
    }
}

fn members(object: &str) -> Option<Members<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(object);
    let members = Members::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(members)
}

/// The text of member `key` of the JSON object `object`.
pub(crate) fn member<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    members(object)?
        .0
        .into_iter()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.get())
}

/// `object` with member `key` set to `value` (JSON text) where it stands,
/// or added last; `None` when `object` is no JSON object.
pub(crate) fn set_member(object: &str, key: &str, value: &str) -> Option<String> {
    let members = members(object)?;
    let mut out = String::with_capacity(object.len() + value.len());
    out.push('{');
    let mut found = false;
    for (index, (name, text)) in members.0.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name).expect("a string serializes"));
        out.push(':');
        if name == key && !found {
            found = true;
            out.push_str(value);
        } else {
            out.push_str(text.get());
        }
    }
    if !found {
        if !members.0.is_empty() {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).expect("a string serializes"));
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_replaced_in_place_and_the_rest_kept() {
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"z":1, "a":[2]}}"#;
        assert_eq!(
            set_member(text, "id", r#""x""#).unwrap(),
            r#"{"jsonrpc":"2.0","id":"x","result":{"z":1, "a":[2]}}"#
        );
        assert_eq!(member(text, "result"), Some(r#"{"z":1, "a":[2]}"#));
        assert_eq!(
            set_member(r#"{"method":"m"}"#, "id", "7").unwrap(),
            r#"{"method":"m","id":7}"#
        );
        assert_eq!(set_member("{}", "id", "7").unwrap(), r#"{"id":7}"#);
        assert!(set_member("[1]", "id", "7").is_none());
        assert!(member(r#"{"a":1} x"#, "a").is_none());
    }
}
