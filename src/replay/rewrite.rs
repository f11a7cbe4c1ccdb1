//! Rewriting one member of a JSON line without disturbing the rest of it.

use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The top-level members of a JSON object, in order, their values as
/// written.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Members, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// The object `line` with member `key` set to `value`, every other member
/// kept as written and in its place; `None` when `line` is not an object.
pub(super) fn with_member(line: &[u8], key: &str, value: &Value) -> Option<Vec<u8>> {
    let Members(members) = serde_json::from_slice(line).ok()?;
    let mut out = String::with_capacity(line.len() + 16);
    out.push('{');
    let mut replaced = false;
    for (index, (name, raw)) in members.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&Value::from(name.as_str()).to_string());
        out.push(':');
        if name == key {
            replaced = true;
            write!(out, "{value}").expect("writing to a String cannot fail");
        } else {
            out.push_str(raw.get());
        }
    }
    if !replaced {
        if !members.is_empty() {
            out.push(',');
        }
        write!(out, "{}:{value}", Value::from(key)).expect("writing to a String cannot fail");
    }
    out.push('}');
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_rewrite_keeps_order_and_text() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"b":1, "a":2}}"#;
        assert_eq!(
            String::from_utf8(with_member(line, "id", &Value::from(9)).unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"b":1, "a":2}}"#
        );
        assert_eq!(with_member(b"[1]", "id", &Value::from(9)), None);
    }
}
