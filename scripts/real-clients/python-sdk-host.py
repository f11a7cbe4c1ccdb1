"""The official Python SDK client (2.x) as a host under test, against
`mcp-replay mock exercise`, for scripts/mock-client.sh.

Usage: python python-sdk-host.py auto|legacy <server command> [args...]

The client declares roots, sampling and elicitation (each with a callback
that answers), lets the SDK pick the era (`auto`: 2.x asks `server/discover`
first, and speaks 2026-07-28 with the exercise) or speaks the legacy
handshake (`legacy`),
lists the tools, calls `echo`, calls `ask` (on 2026-07-28 an
`input_required` answer the SDK retries with the callbacks' input), calls
`slow` with a short timeout, which the SDK cancels, and closes: the duties
the host laws judge. It exits 0 when the session went through; the verdict
on the host is the server's (the mock's report and exit status).
"""

import asyncio
import sys

import mcp
from mcp import StdioServerParameters, types


async def sampling(context, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="hello"),
        model="python-sdk-host",
    )


async def roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/python-sdk-host", name="scratch")])


async def elicitation(context, params):
    return types.ElicitResult(action="accept", content={"name": "python-sdk-host"})


async def main(mode: str, argv: list[str]) -> None:
    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with mcp.Client(
        server,
        mode=mode,
        sampling_callback=sampling,
        list_roots_callback=roots,
        elicitation_callback=elicitation,
    ) as client:
        await client.list_tools()
        await client.call_tool("echo", {"text": "hello"})
        await client.call_tool("ask", {})
        try:
            await client.call_tool("slow", {}, read_timeout_seconds=0.5)
        except Exception:  # noqa: BLE001 - the timeout is the point: the SDK cancels
            pass
        await client.call_tool("echo", {"text": "bye"})


asyncio.run(main(sys.argv[1], sys.argv[2:]))
