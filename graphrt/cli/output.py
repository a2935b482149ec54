"""Writing a run's results to stdout as JSON, whatever the results hold.

Results are data from agents: they can be nested deeper than Python's JSON
encoder recurses, hold integers longer than Python writes, or lone UTF-16
surrogates that UTF-8 cannot encode. Each case ends in a GraphError that says
so (or, for surrogates, in the escapes JavaScript writes), never a traceback.
They can also hold a credential the run knows (an LLM server that echoes its key):
that is written as MASK (graphrt.base.secrets, `Redactor.data`).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import escape_lone_surrogates, to_json_compatible
from graphrt.base.secrets import Redactor

__all__ = ["write_results"]


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


def write_results(results: Any, stream: TextIO | None = None, redactor: Redactor | None = None) -> None:
    """Writes the results to `stream` (stdout), a newline after them, without the credentials `redactor` knows
    (by default the environment's)."""
    stream = stream or sys.stdout
    stream.write(_results_json(results, redactor or Redactor()) + "\n")
    stream.flush()
