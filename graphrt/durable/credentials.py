"""What a checkpoint leaves out of a run: the credentials in its config and in its graph's node params.

A checkpoint holds the run's real data - node results, injected values,
answers - never redacted, so that resuming gives exactly the results of an
uninterrupted run. Only credentials are left out (graphrt.base.secrets finds
them, `config_credentials`): the config's (an MCP server's env, headers and
`--token` arguments too), and those written in the graph's node params and inputs (the saved
copy of the graph has them blanked out); resuming takes them from the
environment, or from the config given again.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping

from graphrt.base.secrets import MASK, SECRET_KEY, Redactor, config_credentials, is_mask
from graphrt.checkpoint.base import Unsavable, decode_value, encode_value

__all__ = ["saved_config", "saved_source", "usable_config"]


def _graph_credentials(data: Any) -> Iterator[str]:
    """The credentials written in a graph's node params (nested graphs included); static values are data."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, dict):
        return
    for node in nodes.values():
        if isinstance(node, dict) and "agent" in node:
            yield from config_credentials(node.get("params"))
            yield from config_credentials(node.get("filterParams"))
            yield from config_credentials(node.get("inputs"))  # a literal written there: `url: https://me:pw@host`
            yield from _graph_credentials(node.get("graph"))


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
    for credential in sorted(set(_graph_credentials(data)), key=len, reverse=True):
        written = [form for form in (credential, json.dumps(credential, ensure_ascii=False)[1:-1]) if form in text]
        if not written:
            return None
        for form in written:
            text = text.replace(form, MASK)
    return text


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
