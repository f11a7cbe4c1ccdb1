//! The core server library: the smallest correct way to write an MCP server
//! that speaks line-delimited JSON-RPC 2.0 over stdio (MCP-CORE r1).

mod transport;

pub use self::transport::{Transport, TransportError};
