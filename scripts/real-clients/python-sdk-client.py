"""A session of the official Python SDK client against a stdio server.

Usage: python python-sdk-client.py <server command> [args...]

Runs: initialize (as the SDK negotiates it), ping, tools/list, a call of
each demo tool, a call with bad arguments, then closes the session.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters


async def main(argv: list[str]) -> None:
    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with Client(server) as client:
        await client.send_ping()
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
