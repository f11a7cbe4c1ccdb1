//! The command-line tests: one binary, one module per area.

mod fixture;
mod laws;
mod util;
