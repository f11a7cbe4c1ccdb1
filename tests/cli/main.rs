//! The integration tests: one binary, one module per area.

mod demo_server;
mod record;
mod transcript;
mod util;
