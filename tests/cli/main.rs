//! The command-line tests: one integration binary, one module per command.

mod record;
mod transcript;
mod util;
