// A realistic session of the official TypeScript SDK client against a stdio
// server, driven by a plan, for scripts/interop.sh.
//
// Usage: node typescript-sdk-session.mjs PLAN.json ANSWERS.json <server command> [args...]
//
// The session: initialize (as the SDK negotiates it), ping, then the lists the
// server's capabilities offer (tools, resources, prompts), then the plan's
// calls in order, then a clean close (end of stdin). PLAN.json holds
// {"calls": [{"method": "tools/call" | "resources/read" | "prompts/get",
// "params": {...}}, ...]}. Every answer the host got (result or error) is
// written to ANSWERS.json, in order, so that two runs can be compared.

import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [planPath, answersPath, command, ...args] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planPath, "utf8"));
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "mcp-replay-interop", version: "1.0.0" });
const answers = [];

// An error answer is an answer too: the host sees it, so it is compared.
async function step(name, call) {
  try {
    answers.push({ step: name, result: await call() });
  } catch (error) {
    answers.push({ step: name, error: { code: error.code ?? null, message: String(error.message) } });
  }
}

await client.connect(transport);
answers.push({
  step: "initialize",
  result: {
    protocolVersion: transport.protocolVersion ?? null,
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
  },
});
await step("ping", () => client.ping());
const capabilities = client.getServerCapabilities() ?? {};
if (capabilities.tools) await step("tools/list", () => client.listTools());
if (capabilities.resources) await step("resources/list", () => client.listResources());
if (capabilities.prompts) await step("prompts/list", () => client.listPrompts());
for (const { method, params } of plan.calls) {
  const name = `${method} ${params.name ?? params.uri}`;
  if (method === "tools/call") await step(name, () => client.callTool(params));
  else if (method === "resources/read") await step(name, () => client.readResource(params));
  else if (method === "prompts/get") await step(name, () => client.getPrompt(params));
  else throw new Error(`unknown method in plan: ${method}`);
}
await client.close();
writeFileSync(answersPath, JSON.stringify(answers, null, 2) + "\n");
