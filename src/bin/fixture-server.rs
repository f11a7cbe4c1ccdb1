//! For mcp-replay's tests only: a tiny MCP stdio server steered by flags.

fn main() {}
