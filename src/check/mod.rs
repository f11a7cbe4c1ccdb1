//! `mcp-replay check`: replay transcripts, diff the responses, and probe the
//! laws of the stdio contract.

pub mod laws;
pub mod probes;
pub mod wire;
