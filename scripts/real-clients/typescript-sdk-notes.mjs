// A session of the official TypeScript SDK client against the notes example
// server (examples/notes.rs).
//
// Usage: node typescript-sdk-notes.mjs <server command> [args...]
//
// Runs: initialize (as the SDK negotiates it), ping, the tool, resource,
// template and prompt lists, a typed call, a typed call whose arguments the
// type refuses, a call that reports progress (with an onprogress callback,
// so the request carries a progress token), reads of the index, of one note
// and of a note that does not exist, the server's own `notes/count`, a
// prompt, and a prompt missing its argument; then closes the session.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "mcp-replay-record-notes", version: "1.0.0" });

const attempt = async (label, run) => {
  try {
    console.error(label, await run());
  } catch (err) {
    console.error(label, "error", err.code);
  }
};

await client.connect(transport);
await client.ping();
const { tools } = await client.listTools();
console.error("tools:", tools.map((tool) => tool.name).join(", "));
const { resources } = await client.listResources();
console.error("resources:", resources.map((r) => r.uri).join(", "));
const { resourceTemplates } = await client.listResourceTemplates();
console.error("templates:", resourceTemplates.map((t) => t.uriTemplate).join(", "));
const { prompts } = await client.listPrompts();
console.error("prompts:", prompts.map((p) => p.name).join(", "));

for (const args of [{ query: "server" }, { query: "x", sort: "up" }]) {
  const result = await client.callTool({ name: "search", arguments: args });
  console.error(`search: isError=${result.isError ?? false}`);
}
let progress = 0;
const counted = await client.callTool({ name: "count-words", arguments: {} }, undefined, {
  onprogress: () => {
    progress += 1;
  },
});
console.error(`count-words: isError=${counted.isError ?? false}, progress=${progress}`);
for (const uri of ["notes://index", "notes://2", "notes://9"]) {
  await attempt(`read ${uri}:`, async () => (await client.readResource({ uri })).contents.length);
}
await attempt("notes/count:", async () =>
  (await client.request({ method: "notes/count", params: {} }, z.object({ count: z.number() }))).count,
);
for (const args of [{ id: "3" }, {}]) {
  await attempt("prompt:", async () =>
    (await client.getPrompt({ name: "summarize", arguments: args })).messages.length,
  );
}
await client.close();
