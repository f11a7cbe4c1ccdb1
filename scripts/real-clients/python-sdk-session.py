"""A realistic session of the official Python SDK client (1.x or 2.x) against
a stdio server, driven by a plan, for scripts/interop.sh.

Usage: python python-sdk-session.py PLAN.json ANSWERS.json <server command> [args...]

The session: the SDK's own handshake (2.x: `Client` in its default mode,
which asks `server/discover` first and falls back to `initialize`; 1.x:
`ClientSession.initialize`), ping, then the lists the server's capabilities
offer (tools, resources, prompts), then the plan's calls in order, then a
clean close (end of stdin). PLAN.json holds {"calls": [{"method":
"tools/call" | "resources/read" | "prompts/get", "params": {...}}, ...]}.
Every answer the host got (result or error) is written to ANSWERS.json, in
order, so that two runs can be compared.
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager

import mcp
from mcp import StdioServerParameters


def dump(value):
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


@asynccontextmanager
async def connect(server):
    """Yields (session-like object, capabilities, server info, revision)."""
    if hasattr(mcp, "Client"):
        async with mcp.Client(server) as client:
            yield client, client.server_capabilities, client.server_info, client.protocol_version
    else:
        async with mcp.stdio_client(server) as (read, write):
            async with mcp.ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init.capabilities, init.serverInfo, init.protocolVersion


async def main(plan_path: str, answers_path: str, argv: list[str]) -> None:
    with open(plan_path) as f:
        plan = json.load(f)
    answers = []

    async def step(name, call):
        # An error answer is an answer too: the host sees it, so it is compared.
        try:
            answers.append({"step": name, "result": dump(await call)})
        except Exception as error:  # noqa: BLE001 - any failure is what the host saw
            code = getattr(getattr(error, "error", None), "code", None)
            answers.append({"step": name, "error": {"code": code, "message": str(error)}})

    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with connect(server) as (client, capabilities, info, revision):
        answers.append(
            {
                "step": "initialize",
                "result": {
                    "protocolVersion": revision,
                    "serverInfo": dump(info),
                    "capabilities": dump(capabilities),
                },
            }
        )
        # Revision 2026-07-28 has no ping.
        if not str(revision).startswith("2026"):
            await step("ping", client.send_ping())
        if capabilities.tools is not None:
            await step("tools/list", client.list_tools())
        if capabilities.resources is not None:
            await step("resources/list", client.list_resources())
        if capabilities.prompts is not None:
            await step("prompts/list", client.list_prompts())
        for call in plan["calls"]:
            method, params = call["method"], call["params"]
            name = f"{method} {params.get('name', params.get('uri'))}"
            if method == "tools/call":
                await step(name, client.call_tool(params["name"], params.get("arguments", {})))
            elif method == "resources/read":
                await step(name, client.read_resource(params["uri"]))
            elif method == "prompts/get":
                await step(name, client.get_prompt(params["name"], params.get("arguments")))
            else:
                raise SystemExit(f"unknown method in plan: {method}")
    with open(answers_path, "w") as f:
        json.dump(answers, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
