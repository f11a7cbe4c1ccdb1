"""A session of the official Python SDK client (2.x) against the notes
example server (examples/notes.rs).

Usage: python python-sdk-notes.py [--legacy] <server command> [args...]

With --legacy the client opens with the `initialize` handshake instead of
its default era probe (`server/discover` first).

Runs: the SDK's own era probe and handshake, the tool, resource, template
and prompt lists, a typed call, a typed call whose arguments the type
refuses, a call that reports progress (with a progress callback, so the
request carries a progress token), reads of the index, of one note and of
a note that does not exist, a prompt, and a prompt missing its argument;
then closes the session.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


async def main(argv: list[str]) -> None:
    mode = "auto"
    if argv[0] == "--legacy":
        mode, argv = "legacy", argv[1:]
    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools), file=sys.stderr)
        resources = await client.list_resources()
        print("resources:", ", ".join(r.uri for r in resources.resources), file=sys.stderr)
        templates = await client.list_resource_templates()
        print("templates:", ", ".join(t.uri_template for t in templates.resource_templates), file=sys.stderr)
        prompts = await client.list_prompts()
        print("prompts:", ", ".join(p.name for p in prompts.prompts), file=sys.stderr)

        result = await client.call_tool("search", {"query": "server"})
        print(f"search: isError={result.is_error}", file=sys.stderr)
        result = await client.call_tool("search", {"query": "x", "limit": 1, "sort": "up"})
        print(f"search with an unknown field: isError={result.is_error}", file=sys.stderr)

        progress = []

        async def on_progress(value, total, message):
            progress.append((value, total, message))

        result = await client.call_tool("count-words", {}, progress_callback=on_progress)
        print(f"count-words: isError={result.is_error}, progress={len(progress)}", file=sys.stderr)

        for uri in ["notes://index", "notes://2", "notes://9"]:
            try:
                read = await client.read_resource(uri)
                print(f"read {uri}: {len(read.contents)} contents", file=sys.stderr)
            except MCPError as err:
                print(f"read {uri}: error {err.code}", file=sys.stderr)
        for arguments in [{"id": "1", "style": "as a haiku"}, {}]:
            try:
                got = await client.get_prompt("summarize", arguments)
                print(f"prompt: {len(got.messages)} messages", file=sys.stderr)
            except MCPError as err:
                print(f"prompt {arguments}: error {err.code}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
