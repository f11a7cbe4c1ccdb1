//! A `tools/call`: reading its params, running the tool inside the capture
//! guard, and holding its structured output to the tool's `outputSchema`.

use std::any::Any;
use std::borrow::Cow;
use std::panic::{self, AssertUnwindSafe};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::capture::{Capture, EndedRun};
use super::context::Context;
use super::tools::{Run, ToolOutput};
use super::transport::ServeError;
use crate::jsonrpc::json_kind;
use crate::schema::validate as schema;

/// The tool name and arguments of a `tools/call` (MCP-CORE r1 §2¶15).
#[derive(Deserialize)]
pub(super) struct CallParams<'p> {
    /// Borrowed from the line unless it has escapes.
    #[serde(borrow)]
    pub name: Cow<'p, str>,
    /// An object; hosts that have no arguments to pass send none, or null,
    /// which read as an empty object.
    #[serde(default)]
    pub arguments: Value,
    /// The request's `_meta`, for the notifications of the run.
    #[serde(rename = "_meta", borrow, default)]
    pub meta: Option<&'p RawValue>,
}

impl<'p> CallParams<'p> {
    /// Reads the params of a `tools/call`, or says why they are invalid
    /// params.
    pub(super) fn read(params: Option<&'p RawValue>) -> Result<CallParams<'p>, String> {
        let raw = params;
        // The usual call reads straight into the struct; anything it cannot
        // take (a missing or odd `name`, a duplicate member, params that are
        // no object) is read again as a value, to word the reason.
        // A derived struct reads from an array too, by position, so only an
        // object takes the short way.
        if let Some(params) = params
            && params.get().starts_with('{')
            && let Ok(mut call) = serde_json::from_str::<CallParams<'p>>(params.get())
        {
            match call.arguments {
                Value::Object(_) => return Ok(call),
                Value::Null => {
                    call.arguments = Value::Object(Map::new());
                    return Ok(call);
                }
                _ => {}
            }
        }
        let params = match params.map(|params| serde_json::from_str::<Value>(params.get())) {
            None => None,
            Some(Ok(params)) => Some(params),
            Some(Err(err)) => return Err(format!("tools/call params cannot be read: {err}")),
        };
        let (name, arguments) = call_params(params.as_ref())?;
        Ok(CallParams {
            name: Cow::Owned(name.to_owned()),
            arguments: arguments
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
            meta: raw.and_then(read_meta),
        })
    }
}

/// The `_meta` of params that are an object, when they have one.
pub(super) fn read_meta(params: &RawValue) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct WithMeta<'p> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'p RawValue>,
    }
    params
        .get()
        .starts_with('{')
        .then(|| serde_json::from_str::<WithMeta<'_>>(params.get()).ok())
        .flatten()
        .and_then(|with| with.meta)
}

/// The tool name and arguments of a `tools/call` read as a value, or why
/// they are invalid params.
fn call_params(params: Option<&Value>) -> Result<(&str, Option<&Value>), String> {
    let params = match params {
        Some(Value::Object(params)) => params,
        None | Some(Value::Null) => return Err("tools/call needs params with a `name`".into()),
        Some(other) => {
            return Err(format!(
                "tools/call params must be an object, found {}",
                json_kind(other)
            ));
        }
    };
    let name = match params.get("name") {
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(format!(
                "tools/call `name` must be a string, found {}",
                json_kind(other)
            ));
        }
        None => return Err("tools/call is missing the tool `name`".into()),
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => None,
        Some(args @ Value::Object(_)) => Some(args),
        Some(other) => {
            return Err(format!(
                "tools/call `arguments` must be an object, found {}",
                json_kind(other)
            ));
        }
    };
    Ok((name, args))
}

/// Runs one tool inside the capture guard; a panic becomes a failed run.
///
/// The capture comes back still live unless the tool asked for it in its
/// report; the caller finishes it once the answer is out. A failure to put
/// fd 2 back comes back too: the answer still goes out, then serving ends.
pub(super) fn run_tool<'c>(
    name: &str,
    tool: &dyn Run,
    args: &Value,
    cx: &mut Context<'_>,
    capture: Option<&'c mut Capture>,
) -> (ToolOutput, Option<EndedRun<'c>>, Option<ServeError>) {
    let mut guarded = move || panic::catch_unwind(AssertUnwindSafe(|| tool.run(args, cx)));
    let (outcome, live) = match capture {
        Some(capture) => match capture.start(guarded) {
            Ok((outcome, live)) => (outcome, Some(live)),
            // A failed redirect is no failure of the tool's, but the agent
            // still needs to read why nothing happened.
            Err(err) => {
                let report = format!("the tool `{name}` did not run: {err}");
                return (ToolOutput::error(report), None, None);
            }
        },
        None => (guarded(), None),
    };
    let mut output = outcome.unwrap_or_else(|payload| {
        ToolOutput::error(format!(
            "the tool `{name}` panicked: {}",
            panic_message(&*payload)
        ))
    });
    match live {
        Some(live) if output.append_capture => {
            let failure = live.append_to(&mut output.report).err();
            (output, None, failure)
        }
        live => (output, live, None),
    }
}

pub(super) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(a panic without a message)"
    }
}

/// Holds a successful run's structured content to the tool's
/// `outputSchema` (MCP 2025-06-18 server/tools#output-schema): content that
/// breaks it, or no content at all, turns the output into a failed run
/// whose report names each violation.
pub(super) fn check_structured(name: &str, output_schema: &Value, output: &mut ToolOutput) {
    if output.is_error {
        return;
    }
    let problems: Vec<String> = match &output.structured {
        None => vec![
            "the tool declares an `outputSchema` but answered no structured content".to_owned(),
        ],
        Some(value) => schema::validate(output_schema, value)
            .iter()
            .map(|violation| {
                let path = if violation.path.is_empty() {
                    "structuredContent"
                } else {
                    &violation.path
                };
                format!("{path}: {}", violation.message)
            })
            .collect(),
    };
    if problems.is_empty() {
        return;
    }
    let mut report = format!("the output of `{name}` breaks its outputSchema:");
    for problem in &problems {
        report.push('\n');
        report.push_str(problem);
    }
    *output = ToolOutput::error(report);
}
