//! A judgement while it is being reached: the outcome of a schema on a
//! value (a status, the keywords broken, why a part is unjudged, what was
//! evaluated), where the value sits, and how the schema is applied.

use super::{Broken, MAX_BROKEN, MAX_POINTER, escape_token};

/// A verdict while it is being reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Status {
    Valid,
    Unjudged,
    Invalid,
}

/// Whether a keyword evaluated a property or an item: not, maybe (through
/// a subschema left unjudged), or certainly.
pub(super) const NOT: u8 = 0;
pub(super) const MAYBE: u8 = 1;
pub(super) const CERTAIN: u8 = 2;

/// What the keywords applied to one value evaluated of it, property by
/// property and item by item, in the value's order (JSON Schema 2020-12
/// core §11: what `unevaluatedProperties` and `unevaluatedItems` read).
#[derive(Debug, Clone, Default)]
pub(super) struct Evaluated {
    pub(super) properties: Vec<u8>,
    pub(super) items: Vec<u8>,
}

impl Evaluated {
    pub(super) fn mark(states: &mut Vec<u8>, index: usize, state: u8) {
        if states.len() <= index {
            states.resize(index + 1, NOT);
        }
        states[index] = states[index].max(state);
    }

    pub(super) fn merge(&mut self, other: &Evaluated, cap: u8) {
        for (index, &state) in other.properties.iter().enumerate() {
            Evaluated::mark(&mut self.properties, index, state.min(cap));
        }
        for (index, &state) in other.items.iter().enumerate() {
            Evaluated::mark(&mut self.items, index, state.min(cap));
        }
    }
}

/// What one schema said of one value so far.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    pub(super) status: Status,
    /// The broken keywords, when invalid.
    pub(super) broken: Vec<Broken>,
    /// Why a part was left unjudged: the first reason.
    pub(super) why: Option<String>,
    /// What it evaluated, when the schema tracks it.
    pub(super) evaluated: Option<Box<Evaluated>>,
}

impl Outcome {
    pub(super) fn valid() -> Outcome {
        Outcome {
            status: Status::Valid,
            broken: Vec::new(),
            why: None,
            evaluated: None,
        }
    }

    pub(super) fn broken(path: &Path<'_>, keyword: &str, message: String) -> Outcome {
        let mut pointer = String::new();
        path.render(&mut pointer);
        if pointer.len() > MAX_POINTER {
            let mut cut = MAX_POINTER;
            while !pointer.is_char_boundary(cut) {
                cut -= 1;
            }
            pointer.truncate(cut);
            pointer.push('…');
        }
        Outcome {
            status: Status::Invalid,
            broken: vec![Broken {
                pointer,
                keyword: keyword.to_owned(),
                message,
            }],
            why: None,
            evaluated: None,
        }
    }

    pub(super) fn unjudged(why: String) -> Outcome {
        Outcome {
            status: Status::Unjudged,
            broken: Vec::new(),
            why: Some(why),
            evaluated: None,
        }
    }

    pub(super) fn is_invalid(&self) -> bool {
        self.status == Status::Invalid
    }

    /// Whether the keywords left may be skipped: the value is invalid and
    /// only the first failure is asked for.
    pub(super) fn stop(&self, cx: Cx) -> bool {
        !cx.all && self.is_invalid()
    }

    /// Both outcomes at once, of the same value: what each evaluated
    /// counts.
    pub(super) fn and(&mut self, other: Outcome) {
        if let Some(evaluated) = &other.evaluated {
            self.evaluated
                .get_or_insert_with(Default::default)
                .merge(evaluated, CERTAIN);
        }
        self.and_child(other);
    }

    /// Both outcomes at once, the other of a value inside this one.
    pub(super) fn and_child(&mut self, other: Outcome) {
        self.status = self.status.max(other.status);
        if self.why.is_none() {
            self.why = other.why;
        }
        // A keyword broken at the same place is one, however many
        // applicators reach it.
        for broken in other.broken {
            if self.broken.len() >= MAX_BROKEN {
                break;
            }
            if !self.broken.contains(&broken) {
                self.broken.push(broken);
            }
        }
    }

    /// Leaves the outcome unjudged for `why`, unless it is invalid.
    pub(super) fn unsure(&mut self, why: String) {
        self.and_child(Outcome::unjudged(why));
    }

    pub(super) fn mark_property(&mut self, index: usize, state: u8) {
        let evaluated = self.evaluated.get_or_insert_with(Default::default);
        Evaluated::mark(&mut evaluated.properties, index, state);
    }

    pub(super) fn mark_item(&mut self, index: usize, state: u8) {
        let evaluated = self.evaluated.get_or_insert_with(Default::default);
        Evaluated::mark(&mut evaluated.items, index, state);
    }

    pub(super) fn property(&self, index: usize) -> u8 {
        self.evaluated
            .as_ref()
            .and_then(|e| e.properties.get(index).copied())
            .unwrap_or(NOT)
    }

    pub(super) fn item(&self, index: usize) -> u8 {
        self.evaluated
            .as_ref()
            .and_then(|e| e.items.get(index).copied())
            .unwrap_or(NOT)
    }

    /// What it evaluated, at most `cap` sure.
    pub(super) fn evaluated_at_most(&self, cap: u8) -> Outcome {
        let mut out = Outcome::valid();
        if let Some(evaluated) = &self.evaluated {
            let mut capped = Evaluated::default();
            capped.merge(evaluated, cap);
            out.evaluated = Some(Box::new(capped));
        }
        out
    }
}

/// Where a value sits inside the value judged: a chain of tokens on the
/// stack, rendered as a JSON Pointer only when a keyword breaks, so that a
/// valid value costs no allocation for its paths.
#[derive(Clone, Copy)]
pub(super) enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    pub(super) fn render(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.render(out);
                out.push('/');
                out.push_str(&escape_token(key));
            }
            Path::Index(parent, index) => {
                parent.render(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

/// How a schema is applied.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cx {
    /// How deep applications nest.
    pub(super) depth: usize,
    /// Whether the value lives in the value judged (its address says which
    /// it is), so that outcomes may be remembered by it.
    pub(super) memo: bool,
    /// Whether every failure is asked for, or the first.
    pub(super) all: bool,
}

impl Cx {
    pub(super) fn deeper(self) -> Cx {
        Cx {
            depth: self.depth + 1,
            ..self
        }
    }

    /// Only whether the value is valid is asked for (a branch, a `not`).
    pub(super) fn first(self) -> Cx {
        Cx { all: false, ..self }
    }
}
