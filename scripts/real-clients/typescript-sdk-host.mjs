// The official TypeScript SDK client as a host under test, against
// `mcp-replay mock exercise`, for scripts/mock-client.sh.
//
// Usage: node typescript-sdk-host.mjs <server command> [args...]
//
// The client declares roots, sampling and elicitation (each with a handler
// that answers), speaks the SDK's handshake, lists the tools, calls `echo`
// and `ask`, calls `slow` with a short timeout, which the SDK cancels, and
// closes: the duties the host laws judge. It exits 0 when the session went
// through; the verdict on the host is the server's (the mock's report and
// exit status).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client(
  { name: "typescript-sdk-host", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
);
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///tmp/typescript-sdk-host", name: "scratch" }],
}));
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "hello" },
  model: "typescript-sdk-host",
}));
client.setRequestHandler(ElicitRequestSchema, async () => ({
  action: "accept",
  content: { name: "typescript-sdk-host" },
}));

await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { text: "hello" } });
await client.callTool({ name: "ask", arguments: {} });
try {
  await client.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 500 });
} catch {
  // The timeout is the point: the SDK cancels the call.
}
await client.callTool({ name: "echo", arguments: { text: "bye" } });
await client.close();
