//! Batches: a line holding an array of requests and notifications, which
//! only 2025-03-26 sessions take (MCP 2025-03-26 basic/index#batching).

use serde_json::value::RawValue;

use super::capture::Capture;
use super::transport::{ServeError, Transport};
use super::wire::{Answer, WireId, error_line};
use super::{Server, State};
use crate::jsonrpc::{ErrorCode, Inbound, method};

impl Server {
    /// The answer to a batch of a 2025-03-26 session (MCP 2025-03-26
    /// basic/index#batching): one array holding the answer to each element
    /// in order, none for notifications, and no line at all when nothing
    /// in it is answered. `initialize` must not be batched, so a batched
    /// one is an invalid request.
    pub(super) fn batch<'c>(
        &self,
        state: &mut State,
        elements: &[&RawValue],
        mut buf: Vec<u8>,
        transport: &mut dyn Transport,
        mut capture: Option<&'c mut Capture>,
    ) -> Result<Option<Answer<'c>>, ServeError> {
        buf.push(b'[');
        let mut answered = false;
        let mut failure = None;
        for element in elements {
            let bytes = element.get().as_bytes();
            let answer = match Inbound::parse(bytes) {
                Some(Inbound::Request { id, method, .. }) if method == method::INITIALIZE => {
                    let message = "`initialize` cannot be part of a batch (MCP 2025-03-26 basic/lifecycle#initialization)";
                    let line = error_line(
                        WireId::Id(&id),
                        ErrorCode::INVALID_REQUEST,
                        message,
                        None,
                        Vec::new(),
                    );
                    Some(Answer::line(line))
                }
                _ => self.answer(
                    state,
                    bytes,
                    Vec::new(),
                    false,
                    transport,
                    capture.as_deref_mut(),
                )?,
            };
            let Some(answer) = answer else { continue };
            if answered {
                buf.push(b',');
            }
            buf.extend_from_slice(&answer.line);
            answered = true;
            if let Some(live) = answer.live {
                live.pass_on()?;
            }
            if answer.failure.is_some() {
                failure = answer.failure;
                break;
            }
        }
        buf.push(b']');
        Ok(answered.then_some(Answer {
            line: buf,
            live: None,
            failure,
        }))
    }
}
