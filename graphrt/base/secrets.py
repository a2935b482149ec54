"""What counts as a credential, and the one way to hide one, for every place that must not show a secret.

Errors, traces, logs, the server's answers and a checkpoint's config and copy of
the graph leave credentials out. A run's data (the results, rows and streamed tokens
graphrt's commands print or write of it, the node results and results a checkpoint saves)
holds a run's real values, so there only the credentials a run knows are hidden
(`Redactor.data`, `Redactor.stream` for text that comes in pieces): its
environment's, its config's and those of its graph's params (`known_credentials`),
wherever they appear, as text or as a number (an LLM server that echoes its key
back, a numeric `apiKey`); a value that merely looks like a key is data. What the
Python API returns (`graphrt.run()`'s results) is data, as the agents gave it. A credential is

- a value under a key named like one (`apiKey`, `Authorization`, `db_password`: `SECRET_KEY`);
- in text: a password in a URL (`https://me:hunter2@host`), a value given to a name like
  one (`?api_key=...`, `&access_token=...`, a libpq `password=...`), a bearer token, an
  `sk-...` key;
- the value of an environment variable named like one (`OPENAI_API_KEY`), wherever it
  appears (`Redactor`);
- in a configuration (`config_credentials`): besides the above, every value of a
  server's `env` and `headers` (an MCP server's `GH_PAT`, its `Authorization`) and the
  argument after a flag named like a secret (`--token X`, `--api-key X`); a number
  under a key named like a secret counts as its digits (`apiKey: 8675309012345`);
- in a graph (`graph_credentials`): those of its nodes' params, filterParams and inputs.

A credential shorter than 8 characters is hidden where it sits (under its key) but
not sought in other text or data: `1` or `true` would blank ordinary values.

Each is replaced by `MASK`; the words around it stay (`https://me:REDACTED@host`).

Every pass is linear in its text, so a megabyte of hostile input costs what a megabyte
of prose does: each kind of credential is found by one forward search for its anchor
(`://`, `token=`, `Bearer`, `sk-`), and from an anchor only runs of one character class are
read, which never backtrack, and never twice.
"""

from __future__ import annotations

import dataclasses
import heapq
import json
import math
import os
import re
import string
from typing import Any, Iterable, Iterator, Mapping, Sequence

from graphrt.base.jsvalue import UNDEFINED, js_string
from graphrt.base.patterns import LazyPattern

__all__ = ["MASK", "SECRET_KEY", "Redactor", "StreamRedactor", "config_credentials", "credentials", "graph_credentials",
           "hide_credentials", "is_mask", "known_credentials"]

MASK = "REDACTED"
"""What stands for a hidden credential: a plain word, which reads the same in text, a URL, JSON and YAML."""

_OLD_MASKS = frozenset({"[redacted]"})  # what checkpoints saved before MASK; still recognised when they are read

_SECRET_NAMES = ("apikey", "api_key", "api-key", "authorization", "password", "passwd", "secret", "token", "cookie",
                 "credential", "credentials", "privatekey", "private_key", "private-key")

SECRET_KEY = LazyPattern(f"(?:{'|'.join(map(re.escape, _SECRET_NAMES))})$", re.IGNORECASE)
"""A name whose value is a credential, one that ends like `apiKey`, `Authorization`, `db_password`, `access_token`:
`SECRET_KEY.search(name)`."""

_SECRET_ENV = LazyPattern(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
_MIN_KNOWN = 8  # shorter known credentials (`1`, `true`) are not sought in text: they would blank ordinary values
_ENV_NAMES: dict[str, bool] = {}  # environment variable names seen, and whether each is named like a secret
_ENV_NAMES_KEPT = 4096  # names at most (a process's environment holds a few dozen)
_MADE: dict[tuple[type, frozenset[str]], "Redactor"] = {}  # Redactor.now's, by the credentials each knows
_MADE_KEPT = 8
_MAX_DEPTH = 64
_CLEAN_LENGTH = 256  # characters of a text a Redactor remembers as clean
_CLEAN_COUNT = 4096  # texts (and key names) it remembers; then it starts again

# How credentials are found: each kind by one forward search for its anchor (a literal, or "=" with a
# look back at the name before it), then from the anchor possessive runs of one character class, which
# never backtrack. Names and "bearer" are searched in the text lowered.
_URL = LazyPattern("://")  # scheme://user:password@host
_NAMED = LazyPattern(  # ?api_key=..., &access_token=..., password=...: a name SECRET_KEY matches, then "="
    "=(?<=[a-z]=)(?:" + "|".join(f"(?<={re.escape(name)}=)" for name in _SECRET_NAMES) + ")")
_BEARER = LazyPattern("bearer")  # Authorization: Bearer ...
_SK = LazyPattern("sk-")  # sk-... API keys
_AUTHORITY = LazyPattern(r"[^\s/?#]*+")  # user:password@host:port, up to the path, query or fragment
_VALUE = LazyPattern(r"[^\s&#;\"'<>]*+")  # a value given to a name: up to the next parameter or the end of the word
_QUOTED = {"'": LazyPattern(r"[^']*+"), '"': LazyPattern(r'[^"]*+')}  # password='a b c'
_SPACE = LazyPattern(r"\s*+")
_TOKEN = LazyPattern(r"[A-Za-z0-9._~+/=-]*+")  # a bearer token
_KEY = LazyPattern(r"[A-Za-z0-9_-]*+")  # the rest of an sk- key
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_MIN_TOKEN = 8  # shorter words after "Bearer" are prose
_MIN_KEY = 16

Span = tuple[int, int]


def _url_passwords(text: str, lowered: str) -> Iterator[Span]:
    """scheme://user:password@host: the password, between the user's ':' and the last '@' before the host."""
    position = 0
    while (anchor := _URL.search(text, position)) is not None:
        start = position = anchor.end()
        authority = _AUTHORITY.match(text, start).end()
        at = text.rfind("@", start, authority)
        colon = text.find(":", start, at) if at > start else -1
        if colon != -1 and at > colon + 1:
            yield colon + 1, at
            position = at + 1


def _named_values(text: str, lowered: str) -> Iterator[Span]:
    """NAME=VALUE, NAME='VALUE' for a NAME that SECRET_KEY matches: the value."""
    position = 0
    while (anchor := _NAMED.search(lowered, position)) is not None:
        start = anchor.end()
        quoted = _QUOTED.get(text[start:start + 1])
        if quoted is not None:
            start += 1
        position = (quoted or _VALUE).match(text, start).end()
        if position > start:
            yield start, position


def _bearer_tokens(text: str, lowered: str) -> Iterator[Span]:
    """Bearer TOKEN: the token."""
    position = 0
    while (anchor := _BEARER.search(lowered, position)) is not None:
        start = position = _SPACE.match(text, anchor.end()).end()
        end = _TOKEN.match(text, start).end()
        if start > anchor.end() and end - start >= _MIN_TOKEN:
            yield start, end
            position = end


def _api_keys(text: str, lowered: str) -> Iterator[Span]:
    """sk-...: the whole key, when it starts a word."""
    position = 0
    while (anchor := _SK.search(text, position)) is not None:
        position = anchor.end()
        before = text[anchor.start() - 1:anchor.start()]
        if before.isalnum() or before == "_":
            continue
        end = _KEY.match(text, position).end()
        if end - position >= _MIN_KEY:
            yield anchor.start(), end
            position = end


_FINDERS = (("://", _url_passwords), ("=", _named_values), ("bearer", _bearer_tokens), ("sk-", _api_keys))


def _spans(text: str) -> Iterator[Span]:
    """Where the credentials in `text` are, as (start, end), in order and apart.

    Each finder makes one forward pass; where two finds overlap (a URL's password
    that holds `token=`), the one that starts first is kept.
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer (U+0130): lower ASCII only, in place
        lowered = text.translate(_ASCII_LOWER)
    finders = [find(text, lowered) for anchor, find in _FINDERS if anchor in lowered]  # most text has no anchor
    kept = 0
    for start, end in heapq.merge(*finders):
        if start >= kept:
            yield start, end
            kept = end


def credentials(text: str) -> list[str]:
    """The credentials written in `text`: URL passwords, values given to secret names, tokens, keys."""
    return [text[start:end] for start, end in _spans(text)]


_SECRET_MAPS = frozenset({"env", "headers"})  # a server's environment and HTTP headers: every value is one
_FLAG = LazyPattern(r"-{1,2}([A-Za-z][A-Za-z0-9_-]*)")


def config_credentials(value: Any, under_secret_key: bool = False, depth: int = 0) -> Iterator[str]:
    """The credentials in a configuration (an agent's config or params, an MCP server's entry): strings under
    keys named like secrets, every value of an `env` or `headers` mapping, the argument after a flag named
    like a secret in a list (`["--token", "ghp_..."]`), and credentials written in any string."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        if under_secret_key and value and not is_mask(value):
            yield value
        else:
            yield from credentials(value)
    elif under_secret_key and isinstance(value, (int, float)) and not isinstance(value, bool):
        if _numeric(value):
            yield js_string(value)  # a numeric key is as secret as its digits
    elif isinstance(value, dict):
        for key, item in value.items():
            secret = under_secret_key or bool(SECRET_KEY.search(str(key)))
            if str(key) in _SECRET_MAPS and isinstance(item, dict):
                yield from (entry for entry in item.values() if isinstance(entry, str) and entry and not is_mask(entry))
            else:
                yield from config_credentials(item, secret, depth + 1)
    elif isinstance(value, list):
        after_flag = False
        for item in value:
            yield from config_credentials(item, under_secret_key or after_flag, depth + 1)
            flag = _FLAG.fullmatch(item) if isinstance(item, str) else None
            after_flag = flag is not None and bool(SECRET_KEY.search(flag.group(1)))


def graph_credentials(data: Any, *, inputs: bool = True) -> Iterator[str]:
    """The credentials written in a graph's node params and filterParams, and with `inputs` in its nodes' inputs
    (nested graphs included); static values are data."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, dict):
        return
    for node in nodes.values():
        if isinstance(node, dict) and "agent" in node:
            yield from config_credentials(node.get("params"))
            yield from config_credentials(node.get("filterParams"))
            if inputs:
                yield from config_credentials(node.get("inputs"))  # a literal written there: `url: https://me:pw@host`
            yield from graph_credentials(node.get("graph"), inputs=inputs)


def known_credentials(config: Mapping[str, Any] | None, graph_data: Any = None) -> frozenset[str]:
    """The credentials a run knows besides its environment's, to give a Redactor: its config's and those of its
    graph's params and filterParams, where a graph gives an agent its keys. What a node's inputs say under a
    secret-sounding name is data passed along (`token: ...` of a page), not a key the run holds."""
    return frozenset((*config_credentials(dict(config or {})), *graph_credentials(graph_data, inputs=False)))


def _as_number(text: str) -> int | float | None:
    """The number `text` writes, if it is a number as js_string writes one (a numeric key given as a number)."""
    try:
        number: int | float = int(text) if text.lstrip("-").isdigit() and text.isascii() else float(text)
    except ValueError:
        return None
    return number if _numeric(number) and js_string(number) == text else None


def _numeric(value: int | float) -> bool:
    """Whether a number is one whose digits may be a credential: finite, and short enough to write as text."""
    return math.isfinite(value) if isinstance(value, float) else value.bit_length() < 256


def hide_credentials(text: str) -> str:
    """`text` with each credential replaced by MASK: `https://me:hunter2@host/v1?token=t` ->
    `https://me:REDACTED@host/v1?token=REDACTED`; other text unchanged."""
    parts: list[str] = []
    kept = 0
    for start, end in _spans(text):
        parts += (text[kept:start], MASK)
        kept = end
    if not parts:
        return text
    parts.append(text[kept:])
    return "".join(parts)


def is_mask(value: Any) -> bool:
    """Whether `value` is what stands for a hidden credential (MASK, or the mask of an older graphrt)."""
    return isinstance(value, str) and (value == MASK or value in _OLD_MASKS)


def _secret_env_name(name: str) -> bool:
    """Whether an environment variable is named like a secret (`OPENAI_API_KEY`), worked out once per name."""
    secret = _ENV_NAMES.get(name)
    if secret is None:
        if len(_ENV_NAMES) >= _ENV_NAMES_KEPT:
            _ENV_NAMES.clear()
        secret = _ENV_NAMES[name] = bool(_SECRET_ENV.search(name))
    return secret


def _known_values(environ: Mapping[str, str] | None, known: Iterable[str]) -> frozenset[str]:
    """The credentials a redactor seeks: the environment's (its variables named like a secret; None: the process's,
    as it is now) and `known`, each as long as `_MIN_KNOWN` at least."""
    values = _environment_secrets() if environ is None else _secrets_of(environ)
    sought = {value for value in known if len(value) >= _MIN_KNOWN and not is_mask(value)}
    return values | sought if sought else values


def _secrets_of(environ: Mapping[str, str]) -> frozenset[str]:
    # Each name matched once per process, and only the values of those named like a secret read.
    return frozenset(value for value in (environ.get(name, "") for name in environ if _secret_env_name(name))
                     if len(value) >= _MIN_KNOWN)


_ENV_READ: tuple[dict[Any, Any], frozenset[str]] = ({}, frozenset())  # the environment as last read, its secrets


def _environment_secrets() -> frozenset[str]:
    """The process environment's secrets as it is now, read again only when it changed since they were last read.

    Every checkpointed run makes a redactor (issue 44), and going through os.environ, which decodes each name
    and value it gives, took ~9 µs of a run where comparing the dict it keeps them in (its `_data`, changed by
    every write to os.environ) with a copy takes well under one."""
    global _ENV_READ
    seen, values = _ENV_READ
    data = os.environ._data  # type: ignore[attr-defined]
    if data != seen:
        seen = dict(data)  # copied first: a change made while its secrets are read is found by the next call
        values = _secrets_of(os.environ)
        _ENV_READ = (seen, values)  # one assignment: a thread reads the copy and its secrets together
    return values


class Redactor:
    """Hides credentials in text and in values made JSON; knows the environment's secrets when created, and the
    `known` ones given (a run's: `known_credentials`)."""

    def __init__(self, environ: Mapping[str, str] | None = None, known: Iterable[str] = ()) -> None:
        self._knowing(_known_values(environ, known))

    @classmethod
    def now(cls, known: Iterable[str] = ()) -> "Redactor":
        """`Redactor(known=known)`: the environment's secrets as they are now, and `known`. The one made last for the
        same credentials when they are the same, whose caches hold no credential and depend on nothing else: every
        checkpointed run asks for one, and making it anew cost each run its sets (issue 44)."""
        values = _known_values(None, known)
        made = _MADE.get((cls, values))
        if made is None:
            made = object.__new__(cls)
            made._knowing(values)
            if len(_MADE) >= _MADE_KEPT:
                _MADE.clear()
            _MADE[(cls, values)] = made
        return made

    def _knowing(self, values: frozenset[str]) -> None:
        self._env_secrets = sorted(values, key=len, reverse=True)  # the longest first: one may hold another
        self._known = frozenset(values)
        self._known_numbers = frozenset(number for number in map(_as_number, values) if number is not None)
        # How each is written in JSON text (escapes), to see at once whether a value's JSON holds one.
        self._needles = frozenset(values) | {json.dumps(value, ensure_ascii=False)[1:-1] for value in values}
        # Short texts seen to hold no credential (a run's id, node ids, agent names: each event repeats them),
        # and whether a key names a secret: a server redacts every event of every run (issue 26). Only clean
        # texts are kept, so the cache holds no credential.
        self._clean: set[str] = set()
        self._secret_keys: dict[str, bool] = {}

    def text(self, text: str) -> str:
        """`text` without the environment's secrets and without credentials (see the module's docstring)."""
        if type(text) is str and text in self._clean:  # a str subclass (an enum) is given back as it came
            return text
        shown = hide_credentials(self._known_hidden(text))
        if shown is text and len(text) <= _CLEAN_LENGTH and type(text) is str:
            if len(self._clean) >= _CLEAN_COUNT:
                self._clean.clear()
            self._clean.add(text)
        return shown

    def _known_hidden(self, text: str) -> str:
        for secret in self._env_secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def knowing(self, known: Iterable[str]) -> "Redactor":
        """A redactor that also knows `known` (one run's credentials: `known_credentials`), without reading the
        environment again: a server's redactor, made once, gives each run's its own."""
        known = frozenset(known) - self._known
        if not known:
            return self
        return Redactor(environ={}, known=self._known | known)

    def stream(self) -> "StreamRedactor":
        """What hides the credentials this redactor knows in one text that comes in pieces (an LLM's tokens)."""
        return StreamRedactor(self._env_secrets)

    @property
    def knows_any(self) -> bool:
        """Whether it knows any credential to seek in a run's data: `data` changes nothing when it knows none."""
        return bool(self._known)

    def mentions(self, json_text: str) -> bool:
        """Whether the JSON text of a value holds a credential this redactor knows (then `data` changes it)."""
        return any(needle in json_text for needle in self._needles)

    def data(self, value: Any) -> Any:
        """`value` (a run's data: results, a node's result) with only the credentials this redactor knows hidden:
        in every string (keys too), and a number whose digits are one becomes MASK; the rest is left as it is,
        a value that merely looks like a key included.

        Raises:
            RecursionError: the value nests deeper than Python recurses.
        """
        if not self._known:
            return value
        if isinstance(value, str):
            return self._known_hidden(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return MASK if value in self._known_numbers else value
        if isinstance(value, dict):
            return {self._known_hidden(key) if isinstance(key, str) else key: self.data(item)
                    for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.data(item) for item in value)
        return value

    def _secret_key(self, key: str) -> bool:
        secret = self._secret_keys.get(key)
        if secret is None:
            secret = bool(SECRET_KEY.search(key))
            if len(self._secret_keys) >= _CLEAN_COUNT:
                self._secret_keys.clear()
            self._secret_keys[key] = secret
        return secret

    def value(self, value: Any, depth: int = 0) -> Any:
        """`value` as JSON data, credentials hidden: keys that name secrets have their values replaced."""
        kind = type(value)  # the usual values first, by their exact type; the rest as before
        if kind is str:
            return self.text(value)
        if kind is bool or value is None:
            return value
        if kind is int:
            return MASK if self._known_numbers and value in self._known_numbers else value
        if kind is float:
            if not math.isfinite(value):
                return None
            return MASK if self._known_numbers and value in self._known_numbers else value
        if depth < _MAX_DEPTH:
            if kind is dict:
                return self._dict(value, depth)
            if kind is tuple or kind is list:  # an event's path: most often ()
                return [self.value(item, depth + 1) for item in value] if value else []
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            return MASK if value in self._known_numbers else value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, float):
            return None if not math.isfinite(value) else MASK if value in self._known_numbers else value
        if value is UNDEFINED:
            return None
        if isinstance(value, BaseException):
            return self.text(f"{type(value).__name__}: {value}")
        if depth >= _MAX_DEPTH:
            return "[too deep]"
        if isinstance(value, dict):
            return self._dict(value, depth)
        if isinstance(value, (list, tuple)):
            return [self.value(item, depth + 1) for item in value]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self.value({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, depth + 1)
        return self.text(repr(value))

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[str, Any]:
        return {
            str(key): MASK if self._secret_key(str(key)) else self.value(item, depth + 1)
            for key, item in value.items()
            if item is not UNDEFINED
        }


class StreamRedactor:
    """One text that comes in pieces (an LLM's streamed tokens), given back as it comes without the credentials a
    Redactor knows, one cut across pieces too (`Redactor.stream()`).

    The end of what came that may be the start of a credential is held back until the next piece (or `end()`) says
    whether it is. As `Redactor.data`, it hides only known credentials: a streamed text is a run's data. A piece
    costs one search of it for each credential, and a look at the last characters held, at most as many as the
    longest credential has: never a pass over what came before.
    """

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = secrets  # the longest first: one may hold another
        self._held = ""

    def feed(self, piece: str) -> str:
        """What can be shown now of the text so far, `piece` included."""
        if not self._secrets:
            return piece
        text = self._held + piece
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        held = max(_started(text, secret) for secret in self._secrets)
        self._held = text[len(text) - held:] if held else ""
        return text[:len(text) - held]

    def end(self) -> str:
        """The text held back at the end, the start of no credential after all (empty when nothing is held)."""
        held, self._held = self._held, ""
        return held


def _started(text: str, secret: str) -> int:
    """How many of `text`'s last characters begin `secret` (and not all of it): the longest such end."""
    start = max(len(text) - len(secret) + 1, 0)
    while (start := text.find(secret[0], start)) >= 0:
        if secret.startswith(text[start:]):
            return len(text) - start
        start += 1
    return 0
