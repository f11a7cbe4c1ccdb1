//! Which recorded request answers a live one.
//!
//! The strategies, tried in order (`docs/mock.md` has them for users):
//!
//! 1. exact: the same method and the same normalized params (see
//!    [`normalize`]);
//! 2. by name (not in strict mode): the same method naming the same object
//!    (a tool's or a prompt's `name`, a resource's `uri`, a completion's
//!    `ref`), whatever its other params;
//! 3. by method (not in strict mode, and only for methods that name no
//!    object): the same method, whatever its params.
//!
//! `initialize` is matched by method in strict mode too: its params name
//! the client, and the handshake is no call under test.
//!
//! Within a strategy the first candidate not yet used answers, in recorded
//! order; once all are used, the last one answers again. So identical
//! requests get the recorded answers in order, then the last one for ever.
//! A recorded request of the other era is a candidate only for a method
//! both eras define with the same meaning (`ping`, `initialize` and
//! `server/discover` belong to one era each).

use serde_json::Value;

use super::recorded::{Call, Recorded, Source, key, normalize};
use crate::jsonrpc::method;
use crate::revision::{Era, Revision};

/// A live request, as the matching sees it.
pub(crate) struct Request<'a> {
    /// The method.
    pub method: &'a str,
    /// The params, if any.
    pub params: Option<&'a Value>,
    /// The era the client speaks.
    pub era: Era,
}

/// Which recorded requests have answered.
#[derive(Debug)]
pub(crate) struct Matcher {
    used: Vec<bool>,
    strict: bool,
}

impl Matcher {
    /// A matcher over `recorded`; `strict` keeps to exact matches.
    pub fn new(recorded: &Recorded, strict: bool) -> Matcher {
        Matcher {
            used: vec![false; recorded.calls.len()],
            strict,
        }
    }

    /// The recorded request that answers `request` by the exact strategy,
    /// marked used.
    pub fn exact(&mut self, recorded: &Recorded, request: &Request<'_>) -> Option<usize> {
        let mut live = LiveParams::new(request, &recorded.sources);
        self.pick(recorded, request, |call| {
            live.normalized(call.source) == call.normalized
        })
    }

    /// The recorded request that answers `request` by name or by method,
    /// marked used; `None` in strict mode, but for `initialize`, whose
    /// params name the client and so never match another client's.
    pub fn loose(&mut self, recorded: &Recorded, request: &Request<'_>) -> Option<usize> {
        if self.strict && request.method != method::INITIALIZE {
            return None;
        }
        match key(request.method, request.params) {
            Some(name) => self.pick(recorded, request, |call| call.key.as_ref() == Some(&name)),
            None => self.pick(recorded, request, |_| true),
        }
    }

    /// Whether any recorded request of `request`'s method could answer it
    /// (the era allowing).
    pub fn method_recorded(recorded: &Recorded, request: &Request<'_>) -> bool {
        recorded.calls.iter().any(|call| candidate(call, request))
    }

    /// The recorded request most like `request`, for the error that says
    /// none matched: the same method first, then the same object, then the
    /// longest common start of the normalized params (or of the method).
    pub fn closest(recorded: &Recorded, request: &Request<'_>) -> Option<usize> {
        let mut live = LiveParams::new(request, &recorded.sources);
        let name = key(request.method, request.params);
        let mut best: Option<(usize, usize)> = None;
        for (index, call) in recorded.calls.iter().enumerate() {
            let score = if call.method == request.method {
                let same_name = name.is_some() && call.key == name;
                let common = common_prefix(live.normalized(call.source), &call.normalized);
                1_000_000 + usize::from(same_name) * 100_000 + common.min(99_999)
            } else {
                common_prefix(request.method, &call.method)
            };
            if best.is_none_or(|(_, top)| score > top) {
                best = Some((index, score));
            }
        }
        best.map(|(index, _)| index)
    }

    /// The first unused candidate that `fits`, else the last one that
    /// does; marked used.
    fn pick(
        &mut self,
        recorded: &Recorded,
        request: &Request<'_>,
        mut fits: impl FnMut(&Call) -> bool,
    ) -> Option<usize> {
        let mut last = None;
        for (index, call) in recorded.calls.iter().enumerate() {
            if !candidate(call, request) || !fits(call) {
                continue;
            }
            if !self.used[index] {
                self.used[index] = true;
                return Some(index);
            }
            last = Some(index);
        }
        last
    }
}

/// Whether `call` may answer `request` at all: the same method, recorded
/// in the same era or of a method both eras define alike.
fn candidate(call: &Call, request: &Request<'_>) -> bool {
    call.method == request.method && (call.era == request.era || crosses_eras(request.method))
}

/// Whether `method` means the same in both eras: a standard method both
/// define, or one neither does (an extension).
fn crosses_eras(method: &str) -> bool {
    let legacy = Revision::LATEST_LEGACY.client_methods().contains(&method);
    let modern = Revision::LATEST.client_methods().contains(&method);
    legacy == modern
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// A live request's normalized params under each transcript's rules and
/// redactions, computed when first asked for.
struct LiveParams<'a> {
    request: &'a Request<'a>,
    sources: &'a [Source],
    normalized: Vec<Option<String>>,
}

impl<'a> LiveParams<'a> {
    fn new(request: &'a Request<'a>, sources: &'a [Source]) -> LiveParams<'a> {
        LiveParams {
            request,
            sources,
            normalized: vec![None; sources.len()],
        }
    }

    fn normalized(&mut self, source: usize) -> &str {
        let (request, sources) = (self.request, self.sources);
        self.normalized[source].get_or_insert_with(|| {
            let Source {
                rules, redactor, ..
            } = &sources[source];
            // A secret the recording replaced by its placeholder is
            // compared as the placeholder.
            let redacted = request
                .params
                .filter(|_| !redactor.is_empty())
                .and_then(|params| {
                    let text = params.to_string();
                    serde_json::from_slice::<Value>(&redactor.redact(text.as_bytes())).ok()
                });
            normalize(request.method, redacted.as_ref().or(request.params), rules)
        })
    }
}

/// A short excerpt of normalized params, for messages.
pub(crate) fn excerpt(normalized: &str) -> String {
    const MOST: usize = 80;
    if normalized.chars().count() <= MOST {
        return normalized.to_owned();
    }
    let mut short: String = normalized.chars().take(MOST).collect();
    short.push('…');
    short
}

/// The normalized params of a live request under the first transcript's
/// rules, for messages.
pub(crate) fn live_normalized(recorded: &Recorded, request: &Request<'_>) -> String {
    if recorded.sources.is_empty() {
        return normalize(request.method, request.params, &Default::default());
    }
    LiveParams::new(request, &recorded.sources)
        .normalized(0)
        .to_owned()
}
