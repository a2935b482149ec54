"""A small MCP server that reads text files in one folder: `python -m graphrt.mcp.file_server ROOT`.

It is the server of graphs/mcp_files.yaml and of the tests: stdio by default, streamable HTTP
on loopback with `--http PORT`. Its tools read only: `list_files`, `read_file` and
`search_files`, each confined to ROOT (a path that leaves it, through `..` or a symlink, is
refused with an error the LLM can read).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["build_server", "main"]

MAX_READ_BYTES = 256_000


def _inside(root: Path, relative: str) -> Path:
    from mcp.server.mcpserver.exceptions import ToolError

    path = (root / relative).resolve()
    if path != root and root not in path.parents:
        raise ToolError(f"'{relative}' is outside the folder this server reads")
    return path


def build_server(root: str | Path):  # -> mcp.server.mcpserver.MCPServer
    """The server, reading under `root`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    folder = Path(root).resolve()
    server = MCPServer("files", instructions=f"Reads the text files of one folder ({folder.name}).")

    @server.tool()
    def list_files(path: str = ".") -> str:
        """Lists the files and folders in a folder, relative to the root; folders end with '/'."""
        target = _inside(folder, path)
        if not target.is_dir():
            raise ToolError(f"'{path}' is not a folder")
        entries = sorted(target.iterdir(), key=lambda entry: entry.name)
        return "\n".join(f"{entry.name}/" if entry.is_dir() else entry.name for entry in entries) or "(empty)"

    @server.tool()
    def read_file(path: str) -> str:
        """Returns the text of a file, given its path relative to the root."""
        target = _inside(folder, path)
        if not target.is_file():
            raise ToolError(f"no file '{path}'")
        with target.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
        return text + ("\n[... cut at 256 kB]" if len(data) > MAX_READ_BYTES else "")

    @server.tool()
    def search_files(text: str) -> str:
        """Finds the lines that contain `text` (case-insensitive) in every file under the root."""
        needle, found = text.lower(), []
        for path in sorted(folder.rglob("*")):
            if not path.is_file():
                continue
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            found += [f"{path.relative_to(folder)}:{number}: {line}"
                      for number, line in enumerate(lines, 1) if needle in line.lower()]
        return "\n".join(found[:200]) or "no match"

    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graphrt.mcp.file_server", description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the folder to read")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp")
    args = parser.parse_args(argv)
    if not Path(args.root).is_dir():
        print(f"file_server: {args.root}: not a folder", file=sys.stderr)
        return 2
    server = build_server(args.root)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
