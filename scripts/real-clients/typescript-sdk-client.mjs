// A session of the official TypeScript SDK client against a stdio server.
//
// Usage: node typescript-sdk-client.mjs <server command> [args...]
//
// Runs: initialize (as the SDK negotiates it), ping, tools/list, a call of
// each demo tool, a call with bad arguments, then closes the session.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "mcp-replay-record-real", version: "1.0.0" });

await client.connect(transport);
await client.ping();
const { tools } = await client.listTools();
console.error("tools:", tools.map((tool) => tool.name).sort().join(", "));
const calls = [
  ["echo", { text: "hello from the TypeScript SDK" }],
  ["add", { a: 2, b: 40 }],
  ["fail", {}],
  ["stderr-child", { text: "typescript" }],
  ["add", { a: "two", b: 40 }],
];
for (const [name, args] of calls) {
  const result = await client.callTool({ name, arguments: args });
  console.error(`${name}: isError=${result.isError ?? false}`);
}
await client.close();
