//! The recording proxy: `mcp-replay record -- <server cmd>`.
