"""Writing a run's results to stdout as JSON, whatever the results hold; and the command's one-line messages.

Results are data from agents: they can be nested deeper than Python's JSON
encoder recurses, hold integers longer than Python writes, or lone UTF-16
surrogates that UTF-8 cannot encode. Each case ends in a GraphError that says
so (or, for surrogates, in the escapes JavaScript writes), never a traceback.
They can also hold a credential the run knows (an LLM server that echoes its key):
that is written as MASK (graphrt.base.secrets, `Redactor.data`). What a command
prints or writes of a run (results, error lines, questions, traces, the live display,
a batch's lines) goes through one redactor that knows the run's credentials, its
environment's, config's and graph's (`run_redactor`).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import escape_lone_surrogates, to_json_compatible
from graphrt.base.secrets import Redactor

if TYPE_CHECKING:
    from graphrt.engine.graph import Graph

__all__ = ["run_redactor", "write_message", "write_results"]


def run_redactor(graph: "Graph") -> Redactor:
    """What hides the credentials a run of `graph` knows (its environment's, its config's, its graph's params') in
    what a command prints or writes of the run."""
    return graph.redactor()


def write_message(message: object, redactor: Redactor, stream: TextIO) -> None:
    """`graphrt: MESSAGE` on `stream` (stderr), without the credentials `redactor` knows or finds: an agent's error
    or a question may quote one."""
    print(f"graphrt: {redactor.text(str(message))}", file=stream)


def _results_json(results: Any, redactor: Redactor) -> str:
    """The results as indented JSON text, as `JSON.stringify(results, null, 2)` writes them, the credentials
    `redactor` knows hidden.

    Raises:
        GraphError: the results cannot be written as JSON (too deep, an integer too long).
    """
    try:
        text = json.dumps(redactor.data(to_json_compatible(results)), indent=2, ensure_ascii=False)
    except RecursionError:
        raise GraphError("the results are nested too deeply to write as JSON "
                         f"(more than about {sys.getrecursionlimit() // 2} levels)") from None
    except ValueError as error:  # an integer longer than sys.get_int_max_str_digits()
        raise GraphError(f"the results cannot be written as JSON: {str(error).split(';')[0]}") from None
    except TypeError as error:  # a value JSON has no form for (bytes, an object) from a Python agent
        raise GraphError(f"the results cannot be written as JSON: {error}") from None
    return escape_lone_surrogates(text)


def write_results(results: Any, *, redactor: Redactor, stream: TextIO | None = None) -> None:
    """Writes the results to `stream` (stdout), a newline after them, without the credentials `redactor` knows
    (the run's: `run_redactor`)."""
    stream = stream or sys.stdout
    stream.write(_results_json(results, redactor) + "\n")
    stream.flush()
