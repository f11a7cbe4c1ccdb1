//! What a session watches for in the notifications a server sends on its
//! own, whatever step is under way: progress that names a request in
//! flight and increases, log messages where the client allowed them, and
//! resource updates for the resources subscribed to.
//!
//! The session tells the watch each request it sends (its progress token,
//! the log level its `_meta` asks for) and each notification it reads; the
//! watch says what the notification breaks, and the session makes each a
//! finding at the step under way.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::jsonrpc::{RequestId, method};
use crate::laws::{LawId, Severity};
use crate::revision::meta;

/// The log levels, from the least severe (RFC 5424's, as MCP names them).
pub(super) const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What one notification breaks.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Noticed {
    /// The law it breaks.
    pub law: LawId,
    /// The requirement of the registry it shows broken.
    pub requirement: &'static str,
    /// Its severity, where it is not the law's (a SHOULD).
    pub severity: Option<Severity>,
    /// What it did, in words.
    pub message: String,
}

/// The notifications of one process, watched.
#[derive(Debug, Default)]
pub(super) struct Watch {
    /// The progress token of each request sent with one (as JSON text),
    /// with the request and the last progress it got.
    progress: HashMap<String, (RequestId, Option<f64>)>,
    /// How many progress notifications came.
    pub progress_seen: usize,
    /// The level `logging/setLevel` set, as an index of [`LEVELS`], once it
    /// was answered with a result.
    pub log_floor: Option<usize>,
    /// How many log messages came once a level was set.
    pub logs_after_floor: usize,
    /// The requests whose `_meta` asked for log messages (2026-07-28).
    log_asked: Vec<RequestId>,
    /// The resources subscribed to, when the session subscribes.
    pub subscribed: Option<BTreeSet<String>>,
}

impl Watch {
    /// A request `id` was sent with `params`.
    pub fn sent(&mut self, id: &RequestId, params: Option<&Value>) {
        let request_meta = params.and_then(|params| params.get("_meta"));
        if let Some(token) = request_meta.and_then(|m| m.get(meta::PROGRESS_TOKEN)) {
            self.progress.insert(token.to_string(), (id.clone(), None));
        }
        if request_meta.and_then(|m| m.get(meta::LOG_LEVEL)).is_some() {
            self.log_asked.push(id.clone());
        }
    }

    /// The notification `name` with `params` came while the requests
    /// `pending` were in flight, in a session that speaks 2026-07-28
    /// statelessly when `modern`; returns what it breaks.
    pub fn notice(
        &mut self,
        name: &str,
        params: Option<&Value>,
        pending: &[RequestId],
        modern: bool,
    ) -> Vec<Noticed> {
        match name {
            method::PROGRESS => self.progress(params, pending),
            method::LOG_MESSAGE => self.log(params, pending, modern),
            "notifications/resources/updated" => self.updated(params),
            _ => Vec::new(),
        }
    }

    /// `request-answered-once`: progress names the token of a request in
    /// flight, and increases.
    fn progress(&mut self, params: Option<&Value>, pending: &[RequestId]) -> Vec<Noticed> {
        // A notification without a token is the schema's to judge.
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            return Vec::new();
        };
        self.progress_seen += 1;
        let progress = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        let key = token.to_string();
        let mut noticed = Vec::new();
        let Some((request, last)) = self.progress.get_mut(&key) else {
            noticed.push(Noticed {
                law: LawId::RequestAnsweredOnce,
                requirement: "srv-progress-known-token",
                severity: None,
                message: format!(
                    "sent notifications/progress for the token {key}, which no request carried"
                ),
            });
            return noticed;
        };
        if !pending.contains(request) {
            noticed.push(Noticed {
                law: LawId::RequestAnsweredOnce,
                requirement: "srv-progress-stops",
                severity: None,
                message: format!(
                    "sent notifications/progress for the token {key} after its request was answered; progress stops once the request is answered"
                ),
            });
        }
        if let (Some(progress), Some(before)) = (progress, *last)
            && progress <= before
        {
            noticed.push(Noticed {
                law: LawId::RequestAnsweredOnce,
                requirement: "srv-progress-increases",
                severity: None,
                message: format!(
                    "sent progress {progress} after {before} for the token {key}; progress increases with every notification"
                ),
            });
        }
        *last = progress.or(*last);
        noticed
    }

    /// `capabilities-honest`: a log message below the level the client set
    /// (a SHOULD), or, on 2026-07-28, while no request in flight asked for
    /// log messages (a MUST).
    fn log(&mut self, params: Option<&Value>, pending: &[RequestId], modern: bool) -> Vec<Noticed> {
        let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
        let mut noticed = Vec::new();
        if modern && !self.log_asked.iter().any(|id| pending.contains(id)) {
            noticed.push(Noticed {
                law: LawId::CapabilitiesHonest,
                requirement: "srv-logging-only-when-asked",
                severity: Some(Severity::Error),
                message: format!(
                    "sent a log message ({}) while no request in flight asked for one with `_meta` `{}`",
                    level.unwrap_or("no level"),
                    meta::LOG_LEVEL
                ),
            });
        }
        if let Some(floor) = self.log_floor {
            self.logs_after_floor += 1;
            let index = level.and_then(|level| LEVELS.iter().position(|l| *l == level));
            if let Some(index) = index
                && index < floor
            {
                noticed.push(Noticed {
                    law: LawId::CapabilitiesHonest,
                    requirement: "srv-logging-respects-level",
                    severity: Some(Severity::Warning),
                    message: format!(
                        "sent a log message at level `{}` after logging/setLevel `{}`; messages below the level set should not be sent",
                        LEVELS[index], LEVELS[floor]
                    ),
                });
            }
        }
        noticed
    }

    /// `capabilities-honest`: an update for a resource not subscribed to.
    fn updated(&mut self, params: Option<&Value>) -> Vec<Noticed> {
        let Some(subscribed) = &self.subscribed else {
            return Vec::new();
        };
        let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
        match uri {
            Some(uri) if !subscribed.contains(uri) => vec![Noticed {
                law: LawId::CapabilitiesHonest,
                requirement: "srv-resources-updated-subscribed",
                severity: Some(Severity::Warning),
                message: format!(
                    "sent notifications/resources/updated for {uri}, which the client had not subscribed to"
                ),
            }],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn progress(token: Value, progress: f64) -> Value {
        json!({"progressToken": token, "progress": progress})
    }

    #[test]
    fn progress_names_a_request_in_flight_and_increases() {
        let mut watch = Watch::default();
        let id = RequestId::number(7);
        watch.sent(&id, Some(&json!({"_meta": {"progressToken": "t"}})));
        let pending = [id.clone()];
        let watched = |watch: &mut Watch, p: Value, pending: &[RequestId]| {
            watch
                .notice(method::PROGRESS, Some(&p), pending, false)
                .into_iter()
                .map(|n| n.requirement)
                .collect::<Vec<_>>()
        };
        assert!(watched(&mut watch, progress(json!("t"), 1.0), &pending).is_empty());
        assert_eq!(
            watched(&mut watch, progress(json!("t"), 1.0), &pending),
            ["srv-progress-increases"]
        );
        assert_eq!(
            watched(&mut watch, progress(json!("t"), 2.0), &[]),
            ["srv-progress-stops"]
        );
        assert_eq!(
            watched(&mut watch, progress(json!("other"), 1.0), &pending),
            ["srv-progress-known-token"]
        );
        // A token is its JSON value: 7 is not "7".
        assert_eq!(
            watched(&mut watch, progress(json!(7), 1.0), &pending),
            ["srv-progress-known-token"]
        );
        assert_eq!(watch.progress_seen, 5);
    }

    #[test]
    fn log_messages_come_where_the_client_allowed_them() {
        let mut watch = Watch::default();
        let message = json!({"level": "info", "data": "x"});
        // 2026-07-28: only while a request that asked is in flight.
        let asked = RequestId::number(1);
        watch.sent(&asked, Some(&json!({"_meta": {meta::LOG_LEVEL: "debug"}})));
        assert!(
            watch
                .notice(method::LOG_MESSAGE, Some(&message), &[asked], true)
                .is_empty()
        );
        let noticed = watch.notice(method::LOG_MESSAGE, Some(&message), &[], true);
        assert_eq!(noticed[0].requirement, "srv-logging-only-when-asked");
        // Legacy: not below the level set.
        watch.log_floor = Some(3);
        let noticed = watch.notice(method::LOG_MESSAGE, Some(&message), &[], false);
        assert_eq!(noticed[0].requirement, "srv-logging-respects-level");
        let error = json!({"level": "error", "data": "x"});
        assert!(
            watch
                .notice(method::LOG_MESSAGE, Some(&error), &[], false)
                .is_empty()
        );
        assert_eq!(watch.logs_after_floor, 2);
    }

    #[test]
    fn updates_name_a_resource_subscribed_to() {
        let mut watch = Watch::default();
        let update = json!({"uri": "file:///a"});
        let name = "notifications/resources/updated";
        assert!(watch.notice(name, Some(&update), &[], false).is_empty());
        watch.subscribed = Some(BTreeSet::from(["file:///b".to_owned()]));
        assert_eq!(watch.notice(name, Some(&update), &[], false).len(), 1);
        watch.subscribed = Some(BTreeSet::from(["file:///a".to_owned()]));
        assert!(watch.notice(name, Some(&update), &[], false).is_empty());
    }
}
