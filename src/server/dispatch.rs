//! One request's answer, in the era the process serves: the built-in
//! methods, the registries' lists, reads and calls, and the hooks.

use std::panic::{self, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::call::{CallParams, check_structured, panic_message, read_meta, run_tool};
use super::capture::Capture;
use super::context::{Announced, Context, LogGate, LogLevel};
use super::era::{self, Session};
use super::prompts::{self, GetError};
use super::resources::{self, ResourceError};
use super::transport::{ServeError, Transport};
use super::wire::{Answer, WireId, error_line, method_not_found, refusal_line, result_line};
use super::{CacheScope, Server, State, ToolOutput, tools};
use crate::jsonrpc::{ErrorCode, RequestId, json_kind, method};
use crate::revision::Revision;
use crate::schema::validate as schema;

/// What every modern result carries besides its own fields: `resultType`,
/// the cache hints on the cacheable ones, and the server's `_meta` (MCP
/// 2026-07-28 server/utilities/caching; basic/index#resulttype).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Modern<'a> {
    result_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

/// The `uri` of a `resources/read`.
#[derive(Deserialize)]
struct ReadParams<'p> {
    #[serde(borrow)]
    uri: std::borrow::Cow<'p, str>,
}

impl Server {
    /// The answer to one request, written into `buf`, in the era the
    /// process serves (or enters with this request).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn dispatch<'c>(
        &self,
        state: &mut State,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, ServeError> {
        let revision = match state.session {
            Session::Legacy(revision) => revision,
            Session::Modern => {
                return self.dispatch_modern(id, method, params, buf, transport, capture);
            }
            Session::Undecided => {
                if method != method::INITIALIZE && era::speaks_modern(method, params) {
                    state.session = Session::Modern;
                    return self.dispatch_modern(id, method, params, buf, transport, capture);
                }
                Revision::V2024_11_05
            }
        };
        let gate = if self.logging {
            LogGate::Legacy(state.log_level)
        } else {
            LogGate::Off
        };
        let line = match method {
            method::INITIALIZE => {
                let (revision, result) = self.initialize_result(params);
                state.session = Session::Legacy(revision);
                result_line(&id, &result, buf)
            }
            method::PING => result_line(&id, &json!({}), buf),
            method::LOGGING_SET_LEVEL if self.logging => match set_level(params) {
                Ok(level) => {
                    state.log_level = Some(level);
                    result_line(&id, &json!({}), buf)
                }
                Err(message) => invalid_params(&id, &message, buf),
            },
            other => {
                return self
                    .dispatch_common(id, revision, other, params, gate, buf, transport, capture);
            }
        };
        Ok(Answer::line(line))
    }

    /// The answer to a request of the stateless revision: its `_meta` is
    /// checked first, and the methods 2026-07-28 removed are unknown.
    fn dispatch_modern<'c>(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, ServeError> {
        let checked = if method == method::INITIALIZE {
            Err(era::initialize_refused(params))
        } else {
            era::check_modern(params)
        };
        let revision = match checked {
            Ok(revision) => revision,
            Err(refusal) => return Ok(Answer::line(refusal_line(&id, &refusal, buf))),
        };
        if method == method::SERVER_DISCOVER {
            return Ok(Answer::line(result_line(&id, &self.discover_result(), buf)));
        }
        if revision.removed_methods().contains(&method) {
            return Ok(Answer::line(method_not_found(&id, method, buf)));
        }
        let gate = if self.logging {
            LogGate::Modern
        } else {
            LogGate::Off
        };
        self.dispatch_common(id, revision, method, params, gate, buf, transport, capture)
    }

    /// The methods both eras answer alike: the lists, tool calls, reads
    /// and hooks.
    #[allow(clippy::too_many_arguments)]
    fn dispatch_common<'c>(
        &self,
        id: RequestId,
        revision: Revision,
        method: &str,
        params: Option<&RawValue>,
        gate: LogGate,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, ServeError> {
        let resources = !self.resources.is_empty();
        let prompts = !self.prompts.is_empty();
        let line = match method {
            method::TOOLS_CALL => {
                return self.call(id, revision, params, gate, buf, transport, capture);
            }
            method::TOOLS_LIST => result_line(&id, &self.tools_list(revision), buf),
            method::RESOURCES_LIST if resources => {
                result_line(&id, &self.resources_list(revision), buf)
            }
            method::RESOURCES_TEMPLATES_LIST if resources => {
                result_line(&id, &self.templates_list(revision), buf)
            }
            method::RESOURCES_READ if resources => self.read(&id, revision, params, buf),
            method::PROMPTS_LIST if prompts => result_line(&id, &self.prompts_list(revision), buf),
            method::PROMPTS_GET if prompts => self.get_prompt(&id, revision, params, buf),
            other => match self.hooks.request(other) {
                Some(_) => self.hook(&id, revision, other, params, gate, buf, transport)?,
                None => method_not_found(&id, other, buf),
            },
        };
        Ok(Answer::line(line))
    }

    /// The `initialize` answer, and the revision it negotiated (MCP-CORE r1
    /// §2¶15; MCP lifecycle#version-negotiation).
    fn initialize_result(&self, params: Option<&RawValue>) -> (Revision, Value) {
        let params = params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
        let requested = params
            .as_ref()
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let revision = era::negotiate(requested);
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "serverInfo": {"name": self.name, "version": self.version},
            "capabilities": self.capabilities(),
        });
        if let Some(instructions) = &self.instructions {
            result["instructions"] = json!(instructions);
        }
        (revision, result)
    }

    /// The capabilities: `tools` always, `resources` and `prompts` when
    /// something is registered, `logging` when the server logs.
    fn capabilities(&self) -> Value {
        let changes = self.list_changed;
        let mut capabilities = json!({"tools": {"listChanged": changes}});
        if !self.resources.is_empty() {
            capabilities["resources"] = json!({"subscribe": false, "listChanged": changes});
        }
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": changes});
        }
        if self.logging {
            capabilities["logging"] = json!({});
        }
        capabilities
    }

    fn announced(&self) -> Announced {
        Announced {
            tools: self.list_changed,
            resources: self.list_changed && !self.resources.is_empty(),
            prompts: self.list_changed && !self.prompts.is_empty(),
        }
    }

    /// The `server/discover` answer (MCP 2026-07-28 server/discover).
    fn discover_result(&self) -> impl Serialize + '_ {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Discover<'a> {
            supported_versions: Vec<&'static str>,
            capabilities: Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            instructions: Option<&'a str>,
            #[serde(flatten)]
            modern: Option<Modern<'a>>,
        }
        Discover {
            supported_versions: era::modern_revisions(),
            capabilities: self.capabilities(),
            instructions: self.instructions.as_deref(),
            modern: self.modern(Revision::LATEST, method::SERVER_DISCOVER),
        }
    }

    /// The fields a result of `method` carries under `revision` besides its
    /// own: none before 2026-07-28.
    fn modern(&self, revision: Revision, method: &str) -> Option<Modern<'_>> {
        revision.requires_result_type().then(|| {
            let cacheable = revision.cacheable(method);
            Modern {
                result_type: "complete",
                ttl_ms: cacheable.then_some(self.ttl_ms),
                cache_scope: cacheable.then_some(self.cache_scope),
                meta: &self.result_meta,
            }
        })
    }

    /// The `tools/list` answer under `revision`: the descriptors sorted by
    /// name, each with the fields the revision knows, and on the modern
    /// revision the result type, the cache hints and the server's `_meta`.
    fn tools_list(&self, revision: Revision) -> impl Serialize + '_ {
        #[derive(Serialize)]
        struct ToolList<'a> {
            tools: Vec<tools::Listed<'a>>,
            #[serde(flatten)]
            modern: Option<Modern<'a>>,
        }
        ToolList {
            tools: self
                .tools
                .descriptors()
                .map(|descriptor| descriptor.listed(revision))
                .collect(),
            modern: self.modern(revision, method::TOOLS_LIST),
        }
    }

    /// The `resources/list` answer: the resources sorted by URI.
    fn resources_list(&self, revision: Revision) -> impl Serialize + '_ {
        #[derive(Serialize)]
        struct ResourceList<'a> {
            resources: Vec<resources::Listed<'a, resources::Resource>>,
            #[serde(flatten)]
            modern: Option<Modern<'a>>,
        }
        ResourceList {
            resources: self
                .resources
                .resources()
                .map(|item| resources::Listed { item, revision })
                .collect(),
            modern: self.modern(revision, method::RESOURCES_LIST),
        }
    }

    /// The `resources/templates/list` answer: the templates sorted by URI
    /// template.
    fn templates_list(&self, revision: Revision) -> impl Serialize + '_ {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct TemplateList<'a> {
            resource_templates: Vec<resources::Listed<'a, resources::ResourceTemplate>>,
            #[serde(flatten)]
            modern: Option<Modern<'a>>,
        }
        TemplateList {
            resource_templates: self
                .resources
                .templates()
                .map(|item| resources::Listed { item, revision })
                .collect(),
            modern: self.modern(revision, method::RESOURCES_TEMPLATES_LIST),
        }
    }

    /// The `prompts/list` answer: the prompts sorted by name.
    fn prompts_list(&self, revision: Revision) -> impl Serialize + '_ {
        #[derive(Serialize)]
        struct PromptList<'a> {
            prompts: Vec<prompts::Listed<'a>>,
            #[serde(flatten)]
            modern: Option<Modern<'a>>,
        }
        PromptList {
            prompts: self
                .prompts
                .prompts()
                .map(|prompt| prompts::Listed { prompt, revision })
                .collect(),
            modern: self.modern(revision, method::PROMPTS_LIST),
        }
    }

    /// The `resources/read` answer: the contents, or the error for a URI
    /// that names nothing (MCP server/resources#error-handling: -32002
    /// through 2025-11-25, -32602 on 2026-07-28, which forbids -32002).
    fn read(
        &self,
        id: &RequestId,
        revision: Revision,
        params: Option<&RawValue>,
        buf: Vec<u8>,
    ) -> Vec<u8> {
        let uri = match params
            .filter(|params| params.get().starts_with('{'))
            .map(|params| serde_json::from_str::<ReadParams<'_>>(params.get()))
        {
            Some(Ok(read)) => read.uri,
            _ => return invalid_params(id, "resources/read needs params with a string `uri`", buf),
        };
        match self.resources.read(&uri) {
            Ok(contents) => {
                #[derive(Serialize)]
                struct Read<'a> {
                    contents: Vec<resources::ResourceContents>,
                    #[serde(flatten)]
                    modern: Option<Modern<'a>>,
                }
                let read = Read {
                    contents,
                    modern: self.modern(revision, method::RESOURCES_READ),
                };
                result_line(id, &read, buf)
            }
            Err(ResourceError::NotFound) => {
                let code = if revision.is_modern() {
                    ErrorCode::INVALID_PARAMS
                } else {
                    ErrorCode::RESOURCE_NOT_FOUND
                };
                let message = format!("resource not found: {uri}");
                let data = json!({ "uri": uri });
                error_line(WireId::Id(id), code, &message, Some(&data), buf)
            }
            Err(ResourceError::Failed(message)) => error_line(
                WireId::Id(id),
                ErrorCode::INTERNAL_ERROR,
                &format!("cannot read {uri}: {message}"),
                None,
                buf,
            ),
        }
    }

    /// The `prompts/get` answer: the filled-in prompt, -32602 for an
    /// unknown name or bad arguments, -32603 when filling in fails (MCP
    /// server/prompts#error-handling).
    fn get_prompt(
        &self,
        id: &RequestId,
        revision: Revision,
        params: Option<&RawValue>,
        buf: Vec<u8>,
    ) -> Vec<u8> {
        let params = params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
        let Some(name) = params
            .as_ref()
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
        else {
            return invalid_params(id, "prompts/get needs params with a string `name`", buf);
        };
        let arguments = params.as_ref().and_then(|params| params.get("arguments"));
        match self.prompts.get(name, arguments) {
            Ok(prompt) => {
                #[derive(Serialize)]
                struct Get<'a> {
                    #[serde(flatten)]
                    prompt: prompts::GetPrompt,
                    #[serde(flatten)]
                    modern: Option<Modern<'a>>,
                }
                let get = Get {
                    prompt,
                    modern: self.modern(revision, method::PROMPTS_GET),
                };
                result_line(id, &get, buf)
            }
            Err(GetError::Invalid(message)) => invalid_params(id, &message, buf),
            Err(GetError::Failed(message)) => error_line(
                WireId::Id(id),
                ErrorCode::INTERNAL_ERROR,
                &format!("the prompt `{name}` failed: {message}"),
                None,
                buf,
            ),
        }
    }

    /// The answer of the hook for `name`: its result, with `resultType`
    /// and the server's `_meta` on 2026-07-28, or its error.
    #[allow(clippy::too_many_arguments)]
    fn hook(
        &self,
        id: &RequestId,
        revision: Revision,
        name: &str,
        params: Option<&RawValue>,
        gate: LogGate,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
    ) -> Result<Vec<u8>, ServeError> {
        let Some(hook) = self.hooks.request(name) else {
            return Ok(method_not_found(id, name, buf));
        };
        let value = params
            .and_then(|params| serde_json::from_str::<Value>(params.get()).ok())
            .unwrap_or(Value::Null);
        // A hook may take long: what is written so far goes out first.
        transport.flush()?;
        let meta = params.and_then(read_meta);
        let mut cx = Context::new(transport, revision, meta, gate, self.announced());
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| hook(&value, &mut cx)));
        if let Some(err) = cx.into_failure() {
            return Err(err.into());
        }
        let internal = |message: String, buf| {
            error_line(
                WireId::Id(id),
                ErrorCode::INTERNAL_ERROR,
                &message,
                None,
                buf,
            )
        };
        Ok(match outcome {
            Ok(Ok(Value::Object(mut result))) => {
                if revision.requires_result_type() {
                    result.insert("resultType".to_owned(), json!("complete"));
                    if !result.contains_key("_meta") {
                        let meta = serde_json::from_str(self.result_meta.get())
                            .unwrap_or_else(|_| Value::Object(Map::new()));
                        result.insert("_meta".to_owned(), meta);
                    }
                }
                result_line(id, &result, buf)
            }
            Ok(Ok(other)) => internal(
                format!(
                    "the handler of `{name}` answered {}, not an object",
                    json_kind(&other)
                ),
                buf,
            ),
            Ok(Err(err)) => {
                let code = if revision.is_modern() {
                    err.modern_code()
                } else {
                    err.code
                };
                error_line(WireId::Id(id), code, &err.message, err.data.as_ref(), buf)
            }
            Err(payload) => internal(
                format!(
                    "the handler of `{name}` panicked: {}",
                    panic_message(&*payload)
                ),
                buf,
            ),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn call<'c>(
        &self,
        id: RequestId,
        revision: Revision,
        params: Option<&RawValue>,
        gate: LogGate,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, ServeError> {
        let call = match CallParams::read(params) {
            Ok(call) => call,
            Err(message) => return Ok(Answer::line(invalid_params(&id, &message, buf))),
        };
        let (name, args) = (&*call.name, &call.arguments);
        let meta = self.result_meta.get();
        let Some((descriptor, tool)) = self.tools.get(name) else {
            let message = format!("unknown tool `{name}`");
            let error = error_line(
                WireId::Id(&id),
                ErrorCode::METHOD_NOT_FOUND,
                &message,
                None,
                buf,
            );
            return Ok(Answer::line(error));
        };
        let violations = schema::validate(&descriptor.input_schema, args);
        if !violations.is_empty() {
            let mut report = format!("invalid arguments for `{name}`:");
            for violation in &violations {
                report.push('\n');
                report.push_str(&violation.to_string());
            }
            let output = ToolOutput::error(report);
            return Ok(Answer::line(output.answer_line(&id, revision, meta, buf)));
        }
        // A tool may take long, or end the process: the answers written so
        // far go out before it runs, so none of them waits for it or is
        // lost with it.
        transport.flush()?;
        let mut cx = Context::new(transport, revision, call.meta, gate, self.announced());
        let (mut output, live, failure) = run_tool(name, tool, args, &mut cx, capture);
        if let Some(err) = cx.into_failure() {
            return Err(err.into());
        }
        if let Some(output_schema) = &descriptor.output_schema {
            check_structured(name, output_schema, &mut output);
        }
        Ok(Answer {
            line: output.answer_line(&id, revision, meta, buf),
            live,
            failure,
        })
    }
}

/// -32602 with `message`.
fn invalid_params(id: &RequestId, message: &str, buf: Vec<u8>) -> Vec<u8> {
    error_line(
        WireId::Id(id),
        ErrorCode::INVALID_PARAMS,
        message,
        None,
        buf,
    )
}

/// The level of a `logging/setLevel`, or why it is none (MCP
/// server/utilities/logging#error-handling: -32602).
fn set_level(params: Option<&RawValue>) -> Result<LogLevel, String> {
    let params = params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
    match params.as_ref().and_then(|params| params.get("level")) {
        Some(Value::String(level)) => level.parse(),
        Some(other) => Err(format!(
            "logging/setLevel `level` must be a string, found {}",
            json_kind(other)
        )),
        None => Err("logging/setLevel needs params with a `level`".to_owned()),
    }
}
