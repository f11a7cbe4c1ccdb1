//! The command-line tests: one integration binary, one module per area.

mod check;
mod demo_server;
mod fixture;
mod fuzz;
mod laws;
mod limits;
mod mock;
mod modern;
mod notes_example;
mod output;
mod record;
mod serve;
mod transcript;
mod untrusted;
mod util;
mod version;
