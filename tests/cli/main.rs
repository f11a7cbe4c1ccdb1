//! The command-line tests: one binary, one module per area.

mod check;
mod fixture;
mod laws;
mod output;
mod util;
