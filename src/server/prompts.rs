//! Prompts: message templates a server offers the host's user, listed by
//! `prompts/list` and filled in by `prompts/get` (MCP server/prompts).
//!
//! A [`PromptSet`] maps names to prompts, each with a handler that turns
//! the arguments into messages. The loop checks the arguments against the
//! prompt's declared ones first: a missing required argument, one the
//! prompt does not declare, or one that is not a string is an invalid
//! params error (-32602), as is an unknown name.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::jsonrpc::json_kind;
use crate::revision::Revision;

/// One argument a prompt takes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgument {
    /// The argument's name, a key of `prompts/get`'s `arguments`.
    pub name: String,
    /// A name for people to read (2025-06-18 on).
    pub title: Option<String>,
    /// What the argument is for.
    pub description: Option<String>,
    /// Whether `prompts/get` must pass it.
    pub required: bool,
}

impl PromptArgument {
    /// An optional argument.
    pub fn optional(name: impl Into<String>) -> PromptArgument {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: false,
        }
    }

    /// A required argument.
    pub fn required(name: impl Into<String>) -> PromptArgument {
        PromptArgument {
            required: true,
            ..PromptArgument::optional(name)
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> PromptArgument {
        self.description = Some(description.into());
        self
    }

    /// With a title for people to read.
    pub fn with_title(mut self, title: impl Into<String>) -> PromptArgument {
        self.title = Some(title.into());
        self
    }
}

/// A prompt as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Prompt {
    /// The name `prompts/get` asks for.
    pub name: String,
    /// A name for people to read (2025-06-18 on).
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// The arguments it takes.
    pub arguments: Vec<PromptArgument>,
}

impl Prompt {
    /// A prompt with no arguments.
    pub fn new(name: impl Into<String>) -> Prompt {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Prompt {
        self.description = Some(description.into());
        self
    }

    /// With a title for people to read.
    pub fn with_title(mut self, title: impl Into<String>) -> Prompt {
        self.title = Some(title.into());
        self
    }

    /// With one more argument.
    pub fn with_argument(mut self, argument: PromptArgument) -> Prompt {
        self.arguments.push(argument);
        self
    }
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a filled-in prompt: a role and a text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: Role,
    /// What is said.
    pub text: String,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(text: impl Into<String>) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            text: text.into(),
        }
    }

    /// A message from the assistant.
    pub fn assistant(text: impl Into<String>) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            text: text.into(),
        }
    }
}

impl Serialize for PromptMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Text<'a> {
            r#type: &'static str,
            text: &'a str,
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", &self.role)?;
        map.serialize_entry(
            "content",
            &Text {
                r#type: "text",
                text: &self.text,
            },
        )?;
        map.end()
    }
}

/// A filled-in prompt: what `prompts/get` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GetPrompt {
    /// A description of this filling-in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl GetPrompt {
    /// A prompt made of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> GetPrompt {
        GetPrompt {
            description: None,
            messages,
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> GetPrompt {
        self.description = Some(description.into());
        self
    }
}

/// The arguments of a `prompts/get`, by name.
pub type PromptArguments = BTreeMap<String, String>;

type Handler = Box<dyn Fn(&PromptArguments) -> Result<GetPrompt, String>>;

/// The registry of prompts, in name order. Registering a name again
/// replaces the earlier prompt.
#[derive(Default)]
pub struct PromptSet {
    prompts: BTreeMap<String, (Prompt, Handler)>,
}

impl PromptSet {
    /// An empty registry.
    pub fn new() -> PromptSet {
        PromptSet::default()
    }

    /// The registry with `prompt` registered, filled in by `get`, which
    /// gets the arguments already checked against the prompt's declared
    /// ones. An `Err` from `get` is an internal error (-32603) carrying
    /// its message.
    pub fn with(
        mut self,
        prompt: Prompt,
        get: impl Fn(&PromptArguments) -> Result<GetPrompt, String> + 'static,
    ) -> PromptSet {
        self.prompts
            .insert(prompt.name.clone(), (prompt, Box::new(get)));
        self
    }

    /// Whether no prompt is registered.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The prompts, sorted by name.
    pub fn prompts(&self) -> impl Iterator<Item = &Prompt> {
        self.prompts.values().map(|(prompt, _)| prompt)
    }

    /// Fills in the prompt `name` with `arguments` (the `arguments` member
    /// of the params, when present).
    pub(crate) fn get(&self, name: &str, arguments: Option<&Value>) -> Result<GetPrompt, GetError> {
        let Some((prompt, get)) = self.prompts.get(name) else {
            return Err(GetError::Invalid(format!("unknown prompt `{name}`")));
        };
        let mut args = PromptArguments::new();
        match arguments {
            None | Some(Value::Null) => {}
            Some(Value::Object(given)) => {
                for (key, value) in given {
                    if !prompt.arguments.iter().any(|a| &a.name == key) {
                        return Err(GetError::Invalid(format!(
                            "the prompt `{name}` takes no argument `{key}`"
                        )));
                    }
                    let Value::String(value) = value else {
                        return Err(GetError::Invalid(format!(
                            "the argument `{key}` of `{name}` must be a string, found {}",
                            json_kind(value)
                        )));
                    };
                    args.insert(key.clone(), value.clone());
                }
            }
            Some(other) => {
                return Err(GetError::Invalid(format!(
                    "prompts/get `arguments` must be an object, found {}",
                    json_kind(other)
                )));
            }
        }
        let missing: Vec<&str> = prompt
            .arguments
            .iter()
            .filter(|a| a.required && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(GetError::Invalid(format!(
                "the prompt `{name}` needs the argument{} {}",
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        get(&args).map_err(GetError::Failed)
    }
}

/// Why a prompt could not be filled in.
pub(crate) enum GetError {
    /// An unknown name or bad arguments: -32602.
    Invalid(String),
    /// The handler failed: -32603.
    Failed(String),
}

impl fmt::Debug for PromptSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.prompts.keys()).finish()
    }
}

/// A prompt serialized with only the fields its revision knows.
pub(crate) struct Listed<'a> {
    pub prompt: &'a Prompt,
    pub revision: Revision,
}

impl Serialize for Listed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (p, titles) = (self.prompt, self.revision.titles());
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &p.name)?;
        if let Some(title) = p.title.as_ref().filter(|_| titles) {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &p.description {
            map.serialize_entry("description", description)?;
        }
        if !p.arguments.is_empty() {
            let arguments: Vec<_> = p
                .arguments
                .iter()
                .map(|argument| ListedArgument { argument, titles })
                .collect();
            map.serialize_entry("arguments", &arguments)?;
        }
        map.end()
    }
}

struct ListedArgument<'a> {
    argument: &'a PromptArgument,
    titles: bool,
}

impl Serialize for ListedArgument<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.argument;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &a.name)?;
        if let Some(title) = a.title.as_ref().filter(|_| self.titles) {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &a.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("required", &a.required)?;
        map.end()
    }
}
