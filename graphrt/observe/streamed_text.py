"""`StreamedText`: a run's events as they leave the process, each node's streamed tokens without a credential
cut across them.

A Redactor hides a credential in one value; an LLM's reply comes as many `TokenDelta` events, and a key
it quotes may be cut between two of them (`cfg-` then `key-7d1e...`), which no look at one event finds.
Everything that writes or sends events outside the run (a trace file, serve's event log and its
streams: `/runs/{id}/events`, the OpenAI-compatible endpoint's chunks) passes them through one
StreamedText, as `graphrt run`'s display does its tokens: a node's tokens go through its own
StreamRedactor (graphrt.base.secrets), whose held-back end comes out as one more TokenDelta when the
node's stream ends (its LLM call finished, the node settled, its graph's run ended).
"""

from __future__ import annotations

import dataclasses
import threading

from graphrt.base.secrets import Redactor, StreamRedactor
from graphrt.observe.events import Event, LlmCallFinished, NodeQueued, NodeStarted, NodeTransition, RunFinished, TokenDelta

__all__ = ["StreamedText"]

_Key = tuple[tuple[str | int, ...], str]  # a node's path and id


class StreamedText:
    """The events to pass on for each event of a run, their tokens redacted across events.

    Callable from any thread (sync agents report from worker threads): a node's tokens keep their order.
    """

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._streams: dict[_Key, tuple[StreamRedactor, TokenDelta]] = {}  # each node streaming: its redaction
        self._lock = threading.Lock()

    def events(self, event: Event) -> list[Event]:
        """What to pass on for `event`: a token as much of it as may be shown now (nothing while it may all begin
        a credential); before the end of a node's stream, what was held back of its tokens; else `event`."""
        if isinstance(event, TokenDelta):
            with self._lock:
                key = (event.path, event.node_id)
                held = self._streams.get(key)
                stream = held[0] if held is not None else self.redactor.stream()
                self._streams[key] = (stream, event)
                shown = stream.feed(event.token)
            if shown == event.token:
                return [event]
            return [dataclasses.replace(event, token=shown)] if shown else []
        if not self._streams:
            return [event]
        with self._lock:
            return [*self._ended(event), event]

    def _ended(self, event: Event) -> list[Event]:
        """The rest of the tokens of the streams `event` ends, each as one last TokenDelta."""
        if isinstance(event, LlmCallFinished) or (isinstance(event, NodeTransition)
                                                  and not isinstance(event, (NodeQueued, NodeStarted))):
            keys = [(event.path, event.node_id)] if (event.path, event.node_id) in self._streams else []
        elif isinstance(event, RunFinished):  # its graph's run ended: every stream in it
            depth = len(event.path)
            keys = [key for key in self._streams if key[0][:depth] == event.path]
        else:
            return []
        rest = []
        for key in keys:
            stream, last = self._streams.pop(key)
            held = stream.end()
            if held:
                rest.append(dataclasses.replace(last, token=held))
        return rest
