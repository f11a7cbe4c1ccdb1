//! The command-line tests: one binary, one module per area.

mod demo_server;
mod fixture;
mod laws;
mod util;
