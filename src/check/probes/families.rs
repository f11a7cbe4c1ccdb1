//! The families of methods a server declares beside its tools, each judged
//! where the server declares it, in either era: prompts (every prompt got,
//! with its arguments), resources beyond one read, subscriptions (legacy),
//! completion, logging (legacy `logging/setLevel`, 2026-07-28's `logLevel`
//! in a request's `_meta`); and what every list owes: pages that end, an
//! error for a cursor never issued, on 2026-07-28 cache hints on every
//! page, and icons of the revision's shape on what it lists.
//!
//! A method of a declared capability answered -32601 breaks
//! `capabilities-honest`; so does a list whose pages never end, which a
//! client cannot read to its end. What the specification asks with a
//! SHOULD (-32602 for an unknown prompt, a missing argument, an unknown
//! completion reference, an unknown log level or cursor) is a warning
//! under both profiles, as the unknown cursor of the tool list is.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::jsonrpc::ErrorCode;
use crate::laws::{LawId, Profile, Severity};
use crate::revision::{Revision, meta};

use super::session::{Answer, Init, Session, answer_words, error_words, short};
use super::step::{Facts, declares};
use super::steps::{asks_for_input, input_required};
use super::tools;

/// A cursor the server never issued.
const UNKNOWN_CURSOR: &str = super::steps::UNKNOWN_CURSOR;

/// A prompt no server has.
const NO_SUCH_PROMPT: &str = "mcp-replay-probe-no-such-prompt";

/// A log level no revision has.
const NO_SUCH_LEVEL: &str = "mcp-replay-probe-no-such-level";

/// The value a probe gives a prompt's required argument.
const PLACEHOLDER: &str = "mcp-replay";

/// How many prompts are got, and resources read, at most.
const MAX_EACH: usize = 4;

/// The level `logging/setLevel` sets: log messages below it should not
/// come after.
const FLOOR: &str = "warning";

/// Whether the session speaks 2026-07-28.
fn modern(init: &Init) -> bool {
    Revision::parse(&init.revision).is_some_and(Revision::is_modern)
}

/// Whether `revision` has icons (2025-11-25 on).
fn has_icons(revision: &str) -> bool {
    Revision::parse(revision).is_some_and(|revision| revision >= Revision::V2025_11_25)
}

/// The requirement that a capability's methods are served.
fn served(capability: &str) -> &'static str {
    match capability {
        "prompts" => "srv-prompts-list-served",
        "completions" => "srv-completions-served",
        "logging" => "srv-logging-set-level",
        _ => "srv-resources-list-served",
    }
}

/// `capabilities-honest`: `name` of the declared `capability` answered
/// -32601.
fn not_served(s: &mut Session<'_>, step: &str, capability: &str, name: &str) {
    s.ledger.fail(
        LawId::CapabilitiesHonest,
        step,
        format!("declares the {capability} capability, but {name} is not served (error -32601)"),
    );
    s.ledger.names(served(capability));
}

/// `invalid-params`, a SHOULD: `answer` to a request of `what` is error
/// -32602, or a warning in both profiles naming `requirement`.
fn should_be_invalid_params(
    s: &mut Session<'_>,
    step: &str,
    answer: &Answer,
    what: &str,
    requirement: &'static str,
) {
    if let Err(error) = answer
        && error.code == ErrorCode::INVALID_PARAMS
    {
        return;
    }
    s.ledger.fail_as(
        LawId::InvalidParams,
        Severity::Warning,
        step,
        format!(
            "answered {}; {what} gets error -32602",
            answer_words(answer)
        ),
    );
    s.ledger.names(requirement);
}

/// The list `method` of the declared `capability`, its items under `key`,
/// every page: served (not -32601), its pages ending (`capabilities-honest`,
/// a warning, as it is that law's), a cursor it never issued refused with
/// -32602 (a warning of `invalid-params`), on 2026-07-28 each page's cache
/// hints (`list-cache-hints`) with the same scope on every page, and the
/// icons of what it lists. Returns the items; `None` when the list is not
/// served or the session ended.
pub(super) fn list(
    s: &mut Session<'_>,
    init: &Init,
    capability: &str,
    method: &str,
    key: &str,
) -> Option<Vec<Value>> {
    let step = s.step(method);
    let law = LawId::CapabilitiesHonest;
    let listing = match tools::list_of(s, law, method, key)? {
        Ok(listing) => listing,
        // Templates are optional in the specification (a server may have
        // none, and the resources page asks no method of one that has
        // none): not served is a finding under `core` alone, whose library
        // serves the list.
        Err(error)
            if error.code == ErrorCode::METHOD_NOT_FOUND
                && method == "resources/templates/list" =>
        {
            if s.ledger.profile() == Profile::Core {
                s.ledger.fail_core_only(
                    law,
                    &step,
                    "declares the resources capability, but resources/templates/list is not served (error -32601); the specification makes templates optional, the core library serves the list",
                );
            }
            return None;
        }
        Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            not_served(s, &step, capability, method);
            return None;
        }
        Err(_) => return None,
    };
    for problem in &listing.problems {
        s.ledger.fail(
            law,
            &step,
            format!("{method}: {problem}, so a client cannot list it to its end"),
        );
        s.ledger.names("srv-pagination-stable-cursors");
    }
    if modern(init) {
        page_hints(s, &step, method, &listing.results);
    }
    if !listing.problems.is_empty() {
        s.miss(
            "srv-pagination-invalid-cursor",
            format!("the pages of {method} do not end"),
        );
    } else if listing.pages > 1 {
        unknown_cursor(s, method);
    } else {
        s.miss(
            "srv-pagination-invalid-cursor",
            "every list fits one page: it issued no cursor to hold another one to",
        );
    }
    icons(s, &init.revision, method, &listing.tools);
    Some(listing.tools)
}

/// `list-cache-hints` for every page of a 2026-07-28 list: its cache
/// hints, and one cache scope across the pages (the caching page: a list's
/// pages are one result to a cache).
pub(super) fn page_hints(s: &mut Session<'_>, step: &str, method: &str, pages: &[Value]) {
    let law = LawId::ListCacheHints;
    for page in pages {
        super::modern::hints(s, law, step, method, page);
    }
    let scopes: BTreeSet<&str> = pages
        .iter()
        .filter_map(|page| page.get("cacheScope").and_then(Value::as_str))
        .collect();
    if scopes.len() > 1 {
        s.ledger.fail(
            law,
            step,
            format!(
                "the pages of {method} carry different cacheScopes ({}); every page of one list has the same",
                scopes.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
        s.ledger.names("srv-caching-scope-every-page");
    }
}

/// `invalid-params`: a cursor the list never issued gets an error (-32602
/// by the pagination page), not a page a client cannot tell from the
/// first. A SHOULD: a warning in both profiles.
fn unknown_cursor(s: &mut Session<'_>, method: &str) {
    let step = s.step(format!(
        "{method} with the unknown cursor {UNKNOWN_CURSOR:?}"
    ));
    let params = s.params(Some(json!({ "cursor": UNKNOWN_CURSOR })));
    if let Some(Ok(_)) = s.call(LawId::InvalidParams, method, params) {
        s.ledger.fail_as(
            LawId::InvalidParams,
            Severity::Warning,
            &step,
            "answered a page to a cursor it never issued, which a client cannot tell from a first page; an invalid cursor should get error -32602",
        );
        s.ledger.names("srv-pagination-invalid-cursor");
    }
}

/// `schema`: the icons of `items` (listed by `method`) in a revision that
/// has them (2025-11-25 on): each `src` a URI, an https address or a
/// `data:` URI (another scheme is a warning: the revision names those
/// two), each of its `sizes` `WxH` or `any` (a SHOULD: a warning). The
/// icons' shape otherwise is the schema's. Where the revision has none, or
/// nothing listed carries one, the requirements are not observed.
pub(super) fn icons(s: &mut Session<'_>, revision: &str, method: &str, items: &[Value]) {
    const IDS: [&str; 2] = ["srv-icons-src-uri", "srv-icons-sizes"];
    if !has_icons(revision) {
        for id in IDS {
            s.miss(id, format!("the revision spoken, {revision}, has no icons"));
        }
        return;
    }
    let law = LawId::Schema;
    let step = format!("the icons of {method}");
    let mut seen = 0;
    for item in items {
        let name = item
            .get("name")
            .or_else(|| item.get("uri"))
            .or_else(|| item.get("uriTemplate"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        let Some(list) = item.get("icons").and_then(Value::as_array) else {
            continue;
        };
        for icon in list {
            seen += 1;
            if let Some(src) = icon.get("src").and_then(Value::as_str) {
                match scheme(src) {
                    None => {
                        s.ledger.fail(
                            law,
                            &step,
                            format!(
                                "`{name}` has an icon whose src {} is no URI; an icon's src is an https address or a data: URI",
                                short(&json!(src))
                            ),
                        );
                        s.ledger.names(IDS[0]);
                    }
                    Some(scheme) if !matches!(scheme.as_str(), "https" | "http" | "data") => {
                        s.ledger.fail_as(
                            law,
                            Severity::Warning,
                            &step,
                            format!(
                                "`{name}` has an icon whose src is a {scheme}: URI; an icon's src is an https address or a data: URI"
                            ),
                        );
                        s.ledger.names(IDS[0]);
                    }
                    Some(_) => {}
                }
            }
            let sizes = icon.get("sizes").and_then(Value::as_array);
            for size in sizes.into_iter().flatten() {
                if let Some(size) = size.as_str()
                    && !is_size(size)
                {
                    s.ledger.fail_as(
                        law,
                        Severity::Warning,
                        &step,
                        format!(
                            "`{name}` has an icon of size {}; a size is WxH (48x48) or any",
                            short(&json!(size))
                        ),
                    );
                    s.ledger.names(IDS[1]);
                }
            }
        }
    }
    if seen == 0 {
        for id in IDS {
            s.miss(id, format!("nothing {method} listed carries an icon"));
        }
    }
}

/// The scheme of a URI, lowercase; `None` for what is no URI (RFC 3986:
/// a letter, then letters, digits, `+`, `-` or `.`, then `:`).
fn scheme(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

/// Whether `size` is `any` or `WxH` in digits.
fn is_size(size: &str) -> bool {
    if size == "any" {
        return true;
    }
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    size.split_once('x')
        .is_some_and(|(width, height)| digits(width) && digits(height))
}

/// Prompts, where the server declares them: `prompts/list` to its last
/// page, `prompts/get` of each prompt listed (at most [`MAX_EACH`]), its
/// required arguments given a placeholder, an `input_required` answer
/// retried as MRTR asks; then `prompts/get` of a prompt the server does
/// not have, and of a listed prompt without the argument it requires: each
/// -32602 (a SHOULD).
pub(super) fn prompts(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    let Some(init) = facts.init.clone() else {
        return;
    };
    let Some(prompts) = list(s, &init, "prompts", "prompts/list", "prompts") else {
        return;
    };
    facts.prompts.clone_from(&prompts);
    let mut retried = false;
    for prompt in prompts.iter().take(MAX_EACH) {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else {
            continue;
        };
        let step = s.step(format!("prompts/get of `{name}`"));
        let arguments: serde_json::Map<String, Value> = required_arguments(prompt)
            .into_iter()
            .map(|argument| (argument, json!(PLACEHOLDER)))
            .collect();
        let request = json!({"name": name, "arguments": arguments});
        let params = s.params(Some(request.clone()));
        match s.call(LawId::CapabilitiesHonest, "prompts/get", params) {
            None => return,
            Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                not_served(s, &step, "prompts", "prompts/get");
                for id in ["srv-prompts-errors", "srv-prompts-errors"] {
                    s.miss(id, "prompts/get is not served");
                }
                return;
            }
            Some(Ok(result)) if asks_for_input(&result) && !retried => {
                retried = true;
                input_required(s, "prompts/get", &request, &result);
            }
            _ => {}
        }
    }
    let step = s.step(format!(
        "prompts/get of the unknown prompt {NO_SUCH_PROMPT}"
    ));
    let params = s.params(Some(json!({"name": NO_SUCH_PROMPT, "arguments": {}})));
    let Some(answer) = s.call(LawId::InvalidParams, "prompts/get", params) else {
        return;
    };
    should_be_invalid_params(
        s,
        &step,
        &answer,
        "a prompt the server does not have",
        "srv-prompts-errors",
    );
    let needy = prompts.iter().find_map(|prompt| {
        let name = prompt.get("name")?.as_str()?;
        let argument = required_arguments(prompt).into_iter().next()?;
        Some((name.to_owned(), argument))
    });
    let Some((name, argument)) = needy else {
        s.miss(
            "srv-prompts-errors",
            "no prompt listed requires an argument",
        );
        return;
    };
    let step = s.step(format!(
        "prompts/get of `{name}` without its required argument `{argument}`"
    ));
    let params = s.params(Some(json!({"name": name, "arguments": {}})));
    if let Some(answer) = s.call(LawId::InvalidParams, "prompts/get", params) {
        should_be_invalid_params(
            s,
            &step,
            &answer,
            "a prompt got without an argument it requires",
            "srv-prompts-errors",
        );
    }
}

/// The names of the arguments `prompt` requires.
fn required_arguments(prompt: &Value) -> Vec<String> {
    prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|argument| argument.get("required") == Some(&Value::Bool(true)))
        .filter_map(|argument| argument.get("name")?.as_str().map(str::to_owned))
        .collect()
}

/// Resources, where the server declares them: `resources/list` and
/// `resources/templates/list` to their last pages, `resources/read` of
/// each resource listed (at most [`MAX_EACH`]), which must be read (the
/// server listed it), on 2026-07-28 with cache hints, an `input_required`
/// answer retried; and under `invalid-params` a resource the server does
/// not have.
pub(super) fn resources(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    let Some(init) = facts.init.clone() else {
        return;
    };
    let listed = list(s, &init, "resources", "resources/list", "resources");
    if let Some(templates) = list(
        s,
        &init,
        "resources",
        "resources/templates/list",
        "resourceTemplates",
    ) {
        facts.templates = templates;
    }
    let Some(resources) = listed else {
        super::steps::unknown_resource(s, &init);
        return;
    };
    facts.resources.clone_from(&resources);
    let law = LawId::CapabilitiesHonest;
    let mut retried = false;
    let uris = resources
        .iter()
        .filter_map(|resource| resource.get("uri").and_then(Value::as_str));
    let mut read = 0;
    for uri in uris.take(MAX_EACH) {
        read += 1;
        let step = s.step(format!("resources/read of the listed {uri}"));
        let request = json!({ "uri": uri });
        let params = s.params(Some(request.clone()));
        match s.call(law, "resources/read", params) {
            None => return,
            Some(Ok(result)) if asks_for_input(&result) => {
                if !retried {
                    retried = true;
                    input_required(s, "resources/read", &request, &result);
                }
            }
            Some(Ok(result)) => {
                if modern(&init) {
                    super::modern::hints(
                        s,
                        LawId::ListCacheHints,
                        &step,
                        "resources/read",
                        &result,
                    );
                }
            }
            Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                not_served(s, &step, "resources", "resources/read");
                break;
            }
            Some(Err(error)) => {
                s.ledger.fail(
                    law,
                    &step,
                    format!(
                        "lists the resource {uri}, but reading it answered {}",
                        error_words(&error)
                    ),
                );
                s.ledger.names("srv-resources-listed-readable");
            }
        }
    }
    if read == 0 {
        s.miss(
            "srv-resources-listed-readable",
            "the server lists no resource to read",
        );
    }
    super::steps::unknown_resource(s, &init);
}

/// Subscriptions (2024-11-05 to 2025-11-25), where the server declares
/// `resources.subscribe`: `resources/subscribe` to the first resource
/// listed and `resources/unsubscribe` from it, each answered with a result
/// (-32601, or an error for a resource the server lists, breaks
/// `capabilities-honest`); an update for a resource not subscribed to is a
/// warning of the same law (the watch of the session judges it).
pub(super) fn subscriptions(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    let updates = "notifications/resources/updated";
    let Some(uri) = facts
        .resources
        .iter()
        .find_map(|resource| resource.get("uri").and_then(Value::as_str))
        .map(str::to_owned)
    else {
        for id in [
            "srv-resources-subscribe-served",
            "srv-resources-updated-subscribed",
        ] {
            s.miss(id, "the server lists no resource to subscribe to");
        }
        return;
    };
    let before = s.notifications().get(updates).copied().unwrap_or(0);
    for name in ["resources/subscribe", "resources/unsubscribe"] {
        let step = s.step(format!("{name} for the listed {uri}"));
        let params = s.params(Some(json!({ "uri": uri })));
        match s.call(LawId::CapabilitiesHonest, name, params) {
            None => return,
            Some(Ok(_)) => {}
            Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                s.ledger.fail(
                    LawId::CapabilitiesHonest,
                    &step,
                    format!(
                        "declares resources.subscribe, but {name} is not served (error -32601)"
                    ),
                );
                s.ledger.names("srv-resources-subscribe-served");
                return;
            }
            Some(Err(error)) => {
                s.ledger.fail(
                    LawId::CapabilitiesHonest,
                    &step,
                    format!(
                        "declares resources.subscribe, but {name} for the listed {uri} answered {}",
                        error_words(&error)
                    ),
                );
                s.ledger.names("srv-resources-subscribe-served");
                return;
            }
        }
        if name == "resources/subscribe" {
            s.watched().subscribed = Some(BTreeSet::from([uri.clone()]));
            // An update that follows the answer comes before the answer to
            // the request behind it.
            s.step(format!("ping after resources/subscribe for {uri}"));
            if s.fenced(LawId::CapabilitiesHonest, &[]).is_none() {
                return;
            }
        }
    }
    if s.notifications().get(updates).copied().unwrap_or(0) == before {
        s.miss(
            "srv-resources-updated-subscribed",
            "the server sent no resource update while subscribed",
        );
    }
}

/// Completion, where the server declares `completions`:
/// `completion/complete` of the first argument of a prompt listed, or of
/// a resource template's first variable, answered with at most 100 values
/// (-32601 breaks `capabilities-honest`; the shape is the schema's); then
/// of a prompt the server does not have, -32602 (a SHOULD).
pub(super) fn completion(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    const IDS: [&str; 3] = [
        "srv-completions-served",
        "srv-completions-result",
        "srv-completions-errors",
    ];
    let Some(init) = facts.init.clone() else {
        return;
    };
    let prompt = facts.prompts.iter().find_map(|prompt| {
        let name = prompt.get("name")?.as_str()?;
        let argument = prompt
            .get("arguments")?
            .as_array()?
            .first()?
            .get("name")?
            .as_str()?;
        Some((
            json!({"type": "ref/prompt", "name": name}),
            argument.to_owned(),
            format!("the argument `{argument}` of the prompt `{name}`"),
        ))
    });
    let template = || {
        facts.templates.iter().find_map(|template| {
            let uri = template.get("uriTemplate")?.as_str()?;
            let variable = uri.split_once('{')?.1.split_once('}')?.0;
            let variable = variable.trim_start_matches(['+', '#', '/', '?', '&', '.', ';']);
            let variable = variable.split([',', '*', ':']).next()?;
            Some((
                json!({"type": "ref/resource", "uri": uri}),
                variable.to_owned(),
                format!("the variable `{variable}` of the template {uri}"),
            ))
        })
    };
    let Some((reference, argument, what)) = prompt.or_else(template) else {
        for id in IDS {
            s.miss(
                id,
                "nothing to complete: no prompt with an argument and no resource template is listed",
            );
        }
        return;
    };
    let step = s.step(format!("completion/complete of {what}"));
    let request = json!({"ref": reference, "argument": {"name": argument, "value": ""}});
    let params = s.params(Some(request));
    match s.call(LawId::CapabilitiesHonest, "completion/complete", params) {
        None => return,
        Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            not_served(s, &step, "completions", "completion/complete");
            return;
        }
        Some(Ok(result)) => {
            // 2026-07-28's schema bounds the values itself.
            let values = result
                .pointer("/completion/values")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if values > 100 && !modern(&init) {
                s.ledger.fail(
                    LawId::Schema,
                    &step,
                    format!("answered {values} values; a completion answers at most 100"),
                );
                s.ledger.names(IDS[1]);
            }
        }
        Some(Err(_)) => {}
    }
    let step = s.step(format!(
        "completion/complete of the unknown prompt {NO_SUCH_PROMPT}"
    ));
    let request = json!({
        "ref": {"type": "ref/prompt", "name": NO_SUCH_PROMPT},
        "argument": {"name": argument, "value": ""},
    });
    let params = s.params(Some(request));
    if let Some(answer) = s.call(LawId::InvalidParams, "completion/complete", params) {
        should_be_invalid_params(
            s,
            &step,
            &answer,
            "a completion of a prompt the server does not have",
            IDS[2],
        );
    }
}

/// Logging in the legacy revisions, where the server declares `logging`:
/// `logging/setLevel` is served (-32601 breaks `capabilities-honest`), a
/// level no revision has is -32602 (a SHOULD), and [`FLOOR`] gets an empty
/// result; from then on the session's watch holds every log message to
/// that level.
pub(super) fn set_level(s: &mut Session<'_>, _: &mut Facts<'_>) {
    let step = s.step(format!(
        "logging/setLevel to the unknown level {NO_SUCH_LEVEL}"
    ));
    let params = s.params(Some(json!({ "level": NO_SUCH_LEVEL })));
    let Some(answer) = s.call(LawId::InvalidParams, "logging/setLevel", params) else {
        return;
    };
    if let Err(error) = &answer
        && error.code == ErrorCode::METHOD_NOT_FOUND
    {
        not_served(s, &step, "logging", "logging/setLevel");
        s.miss(
            "srv-logging-invalid-level",
            "logging/setLevel is not served",
        );
        return;
    }
    should_be_invalid_params(
        s,
        &step,
        &answer,
        "a log level no revision has",
        "srv-logging-invalid-level",
    );
    let step = s.step(format!("logging/setLevel to {FLOOR}"));
    let params = s.params(Some(json!({ "level": FLOOR })));
    match s.call(LawId::CapabilitiesHonest, "logging/setLevel", params) {
        None => {}
        Some(Ok(_)) => {
            s.watched().log_floor = super::watch::LEVELS.iter().position(|l| *l == FLOOR);
        }
        Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            not_served(s, &step, "logging", "logging/setLevel");
        }
        Some(Err(error)) => {
            s.ledger.fail(
                LawId::CapabilitiesHonest,
                &step,
                format!(
                    "declares logging, but logging/setLevel to {FLOOR} answered {}",
                    error_words(&error)
                ),
            );
            s.ledger.names("srv-logging-set-level");
        }
    }
}

/// Logging on 2026-07-28, where the server declares `logging`: a request
/// whose `_meta` asks for a log level no revision has gets -32602 (a
/// SHOULD). That a log message comes only while a request that asked for
/// one is in flight, the session's watch holds all along.
pub(super) fn log_level(s: &mut Session<'_>, _: &mut Facts<'_>) {
    let step = s.step(format!(
        "tools/list with `_meta` `{}` {NO_SUCH_LEVEL}",
        meta::LOG_LEVEL
    ));
    let mut params = s.params(Some(json!({}))).unwrap_or_else(|| json!({}));
    if let Some(request_meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        request_meta.insert(meta::LOG_LEVEL.to_owned(), json!(NO_SUCH_LEVEL));
    }
    if let Some(answer) = s.call(LawId::InvalidParams, "tools/list", Some(params)) {
        should_be_invalid_params(
            s,
            &step,
            &answer,
            "a log level no revision has",
            "srv-logging-unknown-level",
        );
    }
}

/// The lists in the revision the negotiation probe's `initialize`
/// answered, where it has icons (2025-11-25 on): the tools, and the
/// prompts and resources the server declares, their icons held to the
/// revision's shape.
pub(super) fn lists_answered(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    let Some(init) = facts.init.clone() else {
        return;
    };
    if !has_icons(&init.revision) {
        icons(s, &init.revision, "tools/list", &[]);
        return;
    }
    let mut items = Vec::new();
    for (capability, method, key) in [
        ("tools", "tools/list", "tools"),
        ("prompts", "prompts/list", "prompts"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
    ] {
        if !declares(&init.capabilities, capability) {
            continue;
        }
        s.step(format!("{method} in revision {}", init.revision));
        match tools::list_of(s, LawId::RequestAnsweredOnce, method, key) {
            None => return,
            Some(Ok(listing)) => items.extend(listing.tools),
            Some(Err(_)) => {}
        }
    }
    icons(s, &init.revision, "the lists", &items);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_has_a_scheme() {
        assert_eq!(
            scheme("https://example.com/a.png").as_deref(),
            Some("https")
        );
        assert_eq!(
            scheme("data:image/png;base64,AAA=").as_deref(),
            Some("data")
        );
        assert_eq!(scheme("HTTP://x").as_deref(), Some("http"));
        assert_eq!(scheme("icon.png"), None);
        assert_eq!(scheme("/icons/a.png"), None);
        assert_eq!(scheme("1x:y"), None);
    }

    #[test]
    fn sizes_are_w_by_h_or_any() {
        for size in ["48x48", "any", "1024x768"] {
            assert!(is_size(size), "{size}");
        }
        for size in ["48", "big", "x48", "48x", "48X48", ""] {
            assert!(!is_size(size), "{size}");
        }
    }
}
