//! Values and strings shortened for messages: what every part of the
//! room quotes in its reasons.

use serde_json::Value;

/// A value as short JSON text, for messages.
pub(crate) fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        return text;
    }
    let start: String = text.chars().take(57).collect();
    format!("{start}…")
}

/// A string as short JSON text, for messages.
pub(crate) fn short_str(text: &str) -> String {
    short(&Value::String(text.chars().take(64).collect()))
}
