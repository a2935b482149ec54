"""Runs cases sent one JSON line at a time on stdin and answers each with one JSON line: how it ended.

The `graphrt` command runs in this process (`graphrt.cli.main`), stdout and stderr
captured; the driver kills this process when a case does not answer by its deadline.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from .cases import ENV_SECRET, OUTSIDE, SECRET
from .llm_server import CampaignLLM
from .values import dumps, make


def _prepare(case: dict[str, Any], folder: Path) -> None:
    base = folder / "base"
    (base / "sub").mkdir(parents=True)
    (folder / "outside.txt").write_text(OUTSIDE)
    (base / "link-out").symlink_to(folder)
    (base / "link-file").symlink_to(folder / "outside.txt")
    (base / "inside.txt").write_text("inside")
    where = base if case.get("graph_in_base") else folder
    for name, content in case["files"].items():
        (where / name).write_text(_fill(dumps(content), folder), encoding="utf-8")


def _fill(text: str, folder: Path) -> str:
    return text.replace("{dir}", str(folder)).replace("{root}", str(folder))


def _argv(case: dict[str, Any], folder: Path, key: str = "argv") -> list[str]:
    argv = []
    for item in case[key]:
        if isinstance(item, dict) and "$inject" in item:
            argv.append(f"{item['$inject']}={dumps(item['value'])}")
        else:
            argv.append(_fill(item, folder))
    return argv


def _command(argv: list[str]) -> tuple[int | None, str, str, str | None]:
    """(exit code, stdout, stderr, traceback of an exception that escaped the command)."""
    from graphrt.cli import main

    out, err = io.StringIO(), io.StringIO()
    escaped = None
    code: int | None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        except BaseException:  # noqa: BLE001 - what the campaign counts
            code, escaped = None, traceback.format_exc(limit=-8)
    return code, out.getvalue(), err.getvalue(), escaped


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="graphrt-campaign-"))
    try:
        _prepare(case, folder)
        code, out, err, escaped = _command(_argv(case, folder))
        outcome: dict[str, Any] = {"id": case["id"], "code": code}
        seen = out + err + (_read(folder / "trace.jsonl") if case.get("read_trace") else "")
        if escaped or "Traceback (most recent call last)" in err:
            outcome["end"] = "traceback"
            outcome["detail"] = (escaped or err)[-1500:]
        elif code == 0:
            outcome["end"] = "result"
            if case.get("expect") is not None and _results(out) != make(case["expect"]):
                outcome["end"] = "wrong"
                outcome["detail"] = f"results differ: {out[:300]!r}"
        elif err.strip() or out.strip():
            outcome["end"] = "clean"
            outcome["detail"] = err[:300]
        else:
            outcome["end"] = "wrong"
            outcome["detail"] = f"exit {code} with nothing said"
        if case.get("then") and outcome["end"] == "result":
            code2, out2, err2, escaped2 = _command(_argv(case, folder, "then"))
            seen += out2 + err2
            if escaped2 or "Traceback (most recent call last)" in err2:
                outcome["end"], outcome["detail"] = "traceback", (escaped2 or err2)[-1500:]
            elif code2 != 0 or _results(out2) != _results(out):
                outcome["lost"] = f"resume gave exit {code2}: {(out2 + err2)[:300]!r}"
        leaked = [secret for secret in (SECRET, ENV_SECRET) if secret in seen]
        if leaked:
            outcome["leak"] = leaked
        breach = _breach(folder, seen)
        if breach:
            outcome["breach"] = breach
        return outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _results(out: str) -> Any:
    try:
        return json.loads(out)
    except ValueError:
        return {"<not JSON>": out[:200]}


def _breach(folder: Path, seen: str) -> str | None:
    if OUTSIDE in seen:
        return "a file outside the base folder was read"
    if _read(folder / "outside.txt") != OUTSIDE:
        return "a file outside the base folder was written"
    written = [p.name for p in folder.iterdir() if p.name not in {"base", "outside.txt", "g.json", "mcp.json", "trace.jsonl",
                                                                 "runs.db", "runs.db-wal", "runs.db-shm", "runs.db-claims", "runs.db-journal"}]
    if written:
        return f"files appeared outside the base folder: {written[:3]}"
    return None


def main() -> None:
    server = CampaignLLM()
    os.environ.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": SECRET, "GRAPHRT_CAMPAIGN": "1",
                       # the other providers' servers are a closed port on loopback: nothing leaves 127.0.0.1
                       "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9",
                       "GROQ_BASE_URL": "http://127.0.0.1:9/openai/v1"})
    answers = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the pipe
    for line in open(int(sys.argv[1]), encoding="utf-8"):  # cases come on a pipe of their own: stdin is no one's
        case = json.loads(line)
        try:
            outcome = run_case(case)
        except BaseException as error:  # noqa: BLE001 - the campaign's own failure, said as such
            outcome = {"id": case["id"], "end": "campaign-error", "detail": repr(error)[:500]}
        answers.write(json.dumps(outcome) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
