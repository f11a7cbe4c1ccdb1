"""A session of the official Python SDK client against a stdio server.

Usage: python python-sdk-client.py <server command> [args...]

Runs: the era probe and initialize or server/discover (as the SDK
negotiates them), ping, tools/list, a call of each demo tool, a call with
bad arguments, then closes the session. On the stateless 2026-07-28
revision `ping` no longer exists, and its -32601 is expected.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

METHOD_NOT_FOUND = -32601


async def main(argv: list[str]) -> None:
    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with Client(server) as client:
        try:
            await client.send_ping()
        except MCPError as err:
            if err.code != METHOD_NOT_FOUND:
                raise
            print("ping: not in the negotiated revision", file=sys.stderr)
        tools = await client.list_tools()
        names = sorted(tool.name for tool in tools.tools)
        print("tools:", ", ".join(names), file=sys.stderr)
        calls = [
            ("echo", {"text": "hello from the Python SDK"}),
            ("add", {"a": 2, "b": 40}),
            ("fail", {}),
            ("stderr-child", {"text": "python"}),
            ("add", {"a": "two", "b": 40}),
        ]
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            print(f"{name}: isError={result.is_error}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
