"""What a checkpoint leaves out of a run: the credentials in its config and in its graph's node params, and the
credentials the run knows wherever its data holds them.

A checkpoint holds the run's real data - node results, injected values,
answers - never redacted as logs are, so that resuming gives exactly the results
of an uninterrupted run. Only credentials are left out (graphrt.base.secrets finds
them, `config_credentials`): the config's (an MCP server's env, headers and
`--token` arguments too), and those written in the graph's node params and inputs (the saved
copy of the graph has them blanked out); resuming takes them from the
environment, or from the config given again. A node's result or the run's
results that hold a credential the run knows (its environment's, its config's, its
graph's: an LLM server that echoes its key back) are saved with it hidden
(`saved_data`), as `graphrt run` prints them: a resumed run reads MASK there.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from graphrt.base.secrets import MASK, SECRET_KEY, Redactor, config_credentials, graph_credentials, is_mask
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.values import decode_value, encode_hidden, encode_value

__all__ = ["hidden_data", "saved_config", "saved_data", "saved_source", "usable_config"]


def saved_data(value: Any, redactor: Redactor) -> str:
    """`value` as a checkpoint row holds it (encode_value's JSON), the credentials `redactor` knows hidden.

    Raises:
        Unsavable: JSON cannot hold the value.
    """
    return encode_hidden(value, redactor)


def hidden_data(value: Any, redactor: Redactor) -> Any:
    """`value` with the credentials `redactor` knows hidden, for a store to encode (a run's results); `value`
    itself when it holds none, or when JSON cannot hold it (the store says so)."""
    if not redactor.knows_any:  # nothing to seek: not encoded here as well as by the store (issue 44)
        return value
    try:
        if not redactor.mentions(encode_value(value)):
            return value
        return redactor.data(value)
    except (Unsavable, RecursionError):
        return value


def saved_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as a checkpoint keeps it: credentials left out (resuming takes them from the
    environment or the config given again), everything else as it is."""

    def kept(value: Any, under_secret_key: bool) -> Any:
        found = set(config_credentials(value, under_secret_key))
        if not found:
            return value
        if isinstance(value, dict):
            return {key: kept(item, under_secret_key or bool(SECRET_KEY.search(str(key))) or str(key) in ("env", "headers"))
                    for key, item in value.items()}
        if isinstance(value, list):  # the argument after `--token` is one of `found`; other items keep their own
            return [MASK if isinstance(item, str) and item in found else kept(item, under_secret_key) for item in value]
        return MASK

    try:
        return decode_value(encode_value(kept(dict(config), False)))
    except Unsavable:
        return Redactor().value(kept(dict(config), False))


def saved_source(text: str, data: Any) -> str | None:
    """The graph's text as a checkpoint keeps it: the credentials in its node params blanked out.

    None if a credential cannot be found in the text as written (the file is then the only copy).
    """
    for credential in sorted(set(graph_credentials(data)), key=len, reverse=True):
        if _NUMBER.fullmatch(credential):  # a numeric key: the whole number, not the same digits inside another
            whole = re.compile(rf"(?<![\w.+-]){re.escape(credential)}(?![\w.])")
            text, found = whole.subn(MASK, text)
            if not found:
                return None
            continue
        written = [form for form in (credential, json.dumps(credential, ensure_ascii=False)[1:-1]) if form in text]
        if not written:
            return None
        for form in written:
            text = text.replace(form, MASK)
    return text


_NUMBER = re.compile(r"-?[0-9][0-9.e+-]*")


def usable_config(saved: Mapping[str, Any], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The saved config without its left-out secrets (agents find them in the environment), then `given`."""

    def usable(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: usable(item) for key, item in value.items() if not is_mask(item)}
        return value

    merged = usable(dict(saved))
    for key, value in (given or {}).items():
        merged[key] = {**merged.get(key, {}), **value} if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged
