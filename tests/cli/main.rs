//! The command-line tests: one integration binary, one module per area.

mod causes;
mod check;
mod coverage;
mod demo_server;
mod escaping;
mod families;
mod fixture;
mod fuzz;
mod host;
mod hostile;
mod laws;
mod limits;
mod mock;
mod modern;
mod notes_example;
mod output;
mod record;
mod serve;
mod structured;
mod transcript;
mod untrusted;
mod util;
mod version;
