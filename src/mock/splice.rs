//! Recorded messages as they were written: one member replaced, the rest of
//! the text kept byte for byte, member order included.
//!
//! serde_json's map sorts keys in this crate, so a message read into a
//! `Value` and written back comes out reordered; a mock answers with the
//! recorded text instead, and only the id (and the few members it
//! rewrites) change.
//!
//! A recorded object may name a member twice (`{"id":7,…,"id":1}`), and
//! JSON parsers disagree on which one counts: serde_json and most others
//! take the last, some the first. A line the mock sends names each member
//! once, with the value serde_json read when the mock matched the
//! recording (the last), so no client can read a recorded id, method or
//! result where the mock meant another.

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

/// The text of member `key` of the JSON object `object`: its last
/// occurrence, as serde_json reads it.
pub(crate) fn member<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    members(object)?
        .0
        .into_iter()
        .rev()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.get())
}

/// `object` with member `key` set to `value` (JSON text) where it first
/// stands, or added last, and every other member named once (see
/// [`unique`]); `None` when `object` is no JSON object.
pub(crate) fn set_member(object: &str, key: &str, value: &str) -> Option<String> {
    let members = members(object)?;
    Some(rebuild(&members, Some((key, value))))
}

/// `object` with each member named once: where a name comes again, its
/// first place keeps the last value. Borrowed when no name comes twice;
/// `None` when `object` is no JSON object.
pub(crate) fn unique(object: &str) -> Option<Cow<'_, str>> {
    let members = members(object)?;
    let mut names: Vec<&str> = members.0.iter().map(|(name, _)| name.as_ref()).collect();
    names.sort_unstable();
    if names.windows(2).all(|pair| pair[0] != pair[1]) {
        return Some(Cow::Borrowed(object));
    }
    Some(Cow::Owned(rebuild(&members, None)))
}

/// The text of an object with `members`, each name once (its first place,
/// its last value), and `set` given its value.
fn rebuild(members: &Members<'_>, set: Option<(&str, &str)>) -> String {
    let mut kept: Vec<(&str, &str)> = Vec::with_capacity(members.0.len() + 1);
    for (name, text) in &members.0 {
        match kept.iter_mut().find(|(known, _)| known == name) {
            Some(known) => known.1 = text.get(),
            None => kept.push((name.as_ref(), text.get())),
        }
    }
    if let Some((key, value)) = set {
        match kept.iter_mut().find(|(known, _)| *known == key) {
            Some(known) => known.1 = value,
            None => kept.push((key, value)),
        }
    }
    let len = kept.iter().map(|(name, text)| name.len() + text.len() + 4);
    let mut out = String::with_capacity(len.sum::<usize>() + 2);
    out.push('{');
    for (index, (name, text)) in kept.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name).expect("a string serializes"));
        out.push(':');
        out.push_str(text);
    }
    out.push('}');
    out
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

    /// A member named twice is named once on the way out, with the value
    /// serde_json reads, however its name is escaped: a client that takes
    /// the first and one that takes the last read the same.
    // See: #25
    #[test]
    fn a_member_named_twice_goes_out_once() {
        let text = r#"{"jsonrpc":"2.0","id":7,"result":{},"\u0069d":1}"#;
        assert_eq!(member(text, "id"), Some("1"));
        assert_eq!(
            set_member(text, "id", "42").unwrap(),
            r#"{"jsonrpc":"2.0","id":42,"result":{}}"#
        );
        let notification = r#"{"method":"notifications/progress","params":{},"method":"x"}"#;
        assert_eq!(
            unique(notification).unwrap(),
            r#"{"method":"x","params":{}}"#
        );
        let plain = r#"{"jsonrpc":"2.0", "method":"m"}"#;
        assert!(matches!(unique(plain), Some(Cow::Borrowed(same)) if same == plain));
        assert!(unique("[1]").is_none());
    }
}
