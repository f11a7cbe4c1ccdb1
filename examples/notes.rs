//! A notes server on mcp-replay's core library: a typed tool, a tool that
//! reports progress, resources (a listed index and a template for each
//! note), a prompt and a method of its own. `docs/server-library.md` walks
//! through it.

use std::process::ExitCode;

use mcp_replay::{
    Context, GetPrompt, MethodError, Prompt, PromptArgument, PromptMessage, PromptSet, Resource,
    ResourceContents, ResourceError, ResourceSet, ResourceTemplate, Server, ToolDescriptor,
    ToolOutput, ToolSet,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// The notes, by id: the server's whole state, fixed at start.
const NOTES: &[(&str, &str, &str)] = &[
    ("1", "Groceries", "Milk, eggs, bread."),
    (
        "2",
        "Ideas",
        "A server that answers every request exactly once.",
    ),
    (
        "3",
        "Reading",
        "The MCP specification, revision 2025-06-18.",
    ),
];

fn note(id: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    NOTES.iter().find(|(note_id, _, _)| *note_id == id)
}

/// The arguments of `search`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Search {
    query: String,
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_limit() -> usize {
    10
}

/// `search {query, limit?}`: the notes whose title or text holds the query.
fn search(args: Search, _cx: &mut Context<'_>) -> ToolOutput {
    let query = args.query.to_lowercase();
    let found: Vec<Value> = NOTES
        .iter()
        .filter(|(_, title, text)| {
            title.to_lowercase().contains(&query) || text.to_lowercase().contains(&query)
        })
        .take(args.limit)
        .map(|(id, title, _)| json!({"id": id, "title": title}))
        .collect();
    ToolOutput::structured(json!({ "notes": found }))
}

/// `count-words`: counts the words of every note, reporting progress note
/// by note when the host asked for it.
fn count_words(_: Value, cx: &mut Context<'_>) -> ToolOutput {
    let total = NOTES.len() as f64;
    let mut words = 0;
    for (done, (_, title, text)) in NOTES.iter().enumerate() {
        words += text.split_whitespace().count();
        let message = format!("counted {title}");
        cx.progress(done as f64 + 1.0, Some(total), Some(&message));
    }
    ToolOutput::ok(format!("{words} words in {} notes", NOTES.len()))
}

fn tools() -> ToolSet {
    let search_schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "the words to look for"},
            "limit": {"type": "integer", "minimum": 1}
        },
        "required": ["query"]
    });
    let found_schema = json!({
        "type": "object",
        "properties": {"notes": {"type": "array"}},
        "required": ["notes"]
    });
    ToolSet::new()
        .with_typed(
            ToolDescriptor::new(
                "search",
                "Finds the notes that mention a query.",
                search_schema,
            )
            .with_title("Search notes")
            .with_output_schema(found_schema),
            search,
        )
        .with_typed(
            ToolDescriptor::new(
                "count-words",
                "Counts the words of every note.",
                json!({"type": "object"}),
            ),
            count_words,
        )
}

fn resources() -> ResourceSet {
    ResourceSet::new()
        .with(
            Resource::new("notes://index", "index")
                .with_description("Every note's id and title")
                .with_mime_type("text/plain"),
            |uri| {
                let index: Vec<String> = NOTES
                    .iter()
                    .map(|(id, title, _)| format!("{id}: {title}"))
                    .collect();
                Ok(vec![
                    ResourceContents::text(uri, index.join("\n")).with_mime_type("text/plain"),
                ])
            },
        )
        .with_template(
            ResourceTemplate::new("notes://{id}", "note")
                .with_description("One note's text")
                .with_mime_type("text/plain"),
            |uri| {
                let id = uri.strip_prefix("notes://").unwrap_or_default();
                let (_, _, text) = note(id).ok_or(ResourceError::NotFound)?;
                Ok(vec![
                    ResourceContents::text(uri, *text).with_mime_type("text/plain"),
                ])
            },
        )
}

fn prompts() -> PromptSet {
    PromptSet::new().with(
        Prompt::new("summarize")
            .with_description("Asks for a summary of one note")
            .with_argument(PromptArgument::required("id").with_description("the note's id"))
            .with_argument(PromptArgument::optional("style")),
        |args| {
            let id = &args["id"];
            let Some((_, title, text)) = note(id) else {
                return Err(format!("there is no note {id}"));
            };
            let style = args.get("style").map_or("in one sentence", String::as_str);
            Ok(GetPrompt::new(vec![PromptMessage::user(format!(
                "Summarize the note \"{title}\" {style}:\n\n{text}"
            ))])
            .with_description(format!("A summary of note {id}")))
        },
    )
}

/// The notes server: its tools, resources and prompts, and `notes/count`.
pub fn server() -> Server {
    Server::new("notes", env!("CARGO_PKG_VERSION"), tools())
        .with_resources(resources())
        .with_prompts(prompts())
        .with_instructions("Notes to search, read and summarize.")
        // A method of the server's own: `notes/count` answers how many notes
        // there are.
        .with_method("notes/count", |params, _cx| {
            if !params.is_null() && !params.is_object() {
                return Err(MethodError::invalid_params("notes/count takes an object"));
            }
            Ok(json!({ "count": NOTES.len() }))
        })
}

/// Serves the notes on stdio until stdin ends, then exits 0.
// A server's own binary says on stderr why it could not serve.
#[allow(clippy::print_stderr)]
fn main() -> ExitCode {
    match server().serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        // The host hung up: a clean end for a server (MCP-CORE r1 §1¶10).
        Err(err) if err.is_hang_up() => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("notes: error: {err}");
            ExitCode::FAILURE
        }
    }
}

// A binary crate's in-process tests live in the binary itself, where the
// function that builds its `Server` is in scope: an integration test under
// `tests/` sees only a library's public items.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_replay::laws::Profile;
    use mcp_replay::testing::{Replay, TestingError};

    use super::server;

    #[test]
    fn the_recorded_session_still_holds() {
        mcp_replay::testing::assert_replays(
            &server(),
            "examples/notes/transcripts/python-sdk.jsonl",
        );
    }

    #[test]
    fn the_session_holds_under_the_spec_profile() -> Result<(), TestingError> {
        let verdict = Replay::new("examples/notes/transcripts/python-sdk.jsonl")
            .profile(Profile::Spec)
            .timeout(Duration::from_secs(10))
            .bless(false)
            .run(&server())?;
        assert!(verdict.passed(), "{verdict}");
        Ok(())
    }
}
