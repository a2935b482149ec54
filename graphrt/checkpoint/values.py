"""How a checkpoint encodes values: JSON text that gives back an equal value, JavaScript's `undefined` included.

`undefined` is written as `{"$graphrt": "undefined"}`, a number JSON cannot write (NaN, Infinity) as
`{"$graphrt": "number", ...}`, and an object that really has a `$graphrt` key is wrapped, so it cannot be
mistaken for one of these. What a store keeps of a run's data hides the credentials the run knows
(`encode_hidden`: rows, results, the journal of its outside calls).
"""

from __future__ import annotations

import json
import json.encoder
import math
from typing import Any

from graphrt.base.jsvalue import UNDEFINED, escape_lone_surrogates
from graphrt.base.secrets import Redactor
from graphrt.checkpoint.errors import Unsavable, damaged

__all__ = ["decode_value", "encode_hidden", "encode_value"]

_TAG = "$graphrt"
# Made once: json.dumps with options makes an encoder each call, which took half of a small row's encoding.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# JSONEncoder.encode makes its C encoder again on each call (a third of a small row's encoding): the same one, made
# once. No check for cycles: what `_tagged` gives is made anew and at most 200 levels deep (a cycle is Unsavable).
_C_ENCODER = json.encoder.c_make_encoder
_ENCODE = _C_ENCODER(None, _not_json, json.encoder.encode_basestring, None, ":", ",", False, False, False) \
    if _C_ENCODER is not None else None


def _tagged(value: Any, depth: int = 0) -> Any:
    kind = type(value)  # the usual kinds first, by their exact type: a run's rows are mostly small dicts of text
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict and depth <= 200:
        return _tagged_object(value, depth)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {_TAG: "number", "value": repr(value)}
    if value is UNDEFINED:
        return {_TAG: "undefined"}
    if depth > 200:
        raise Unsavable("nested more than 200 levels deep")
    if isinstance(value, (list, tuple)):
        return [_tagged(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return _tagged_object(value, depth)
    raise Unsavable(f"a {type(value).__name__} is not a JSON value")


def _tagged_object(value: dict[Any, Any], depth: int) -> dict[str, Any]:
    tagged = {}
    for key, item in value.items():
        if type(key) is not str and not isinstance(key, str):
            raise Unsavable(f"an object key is a {type(key).__name__}, not a string")
        tagged[key] = _tagged(item, depth + 1)
    return {_TAG: "object", "value": tagged} if _TAG in tagged else tagged


def _untagged(value: Any) -> Any:
    if isinstance(value, list):
        return [_untagged(item) for item in value]
    if isinstance(value, dict):
        tag = value.get(_TAG)
        if tag == "undefined":
            return UNDEFINED
        if tag == "number":
            return float(value["value"])
        if tag == "object":
            return {key: _untagged(item) for key, item in value["value"].items()}
        return {key: _untagged(item) for key, item in value.items()}
    return value


def encode_value(value: Any) -> str:
    """A value as JSON text that decode_value turns back into an equal value (UNDEFINED included).

    Raises:
        Unsavable: the value holds something JSON cannot (bytes, objects, non-string keys).
    """
    try:
        tagged = _tagged(value)
        text = "".join(_ENCODE(tagged, 0)) if _ENCODE is not None else _ENCODER.encode(tagged)
    except ValueError as error:  # an integer longer than Python writes (sys.get_int_max_str_digits)
        raise Unsavable(str(error).split(";")[0]) from None
    return escape_lone_surrogates(text)  # UTF-8 (a database's text) cannot hold them unescaped


def encode_hidden(value: Any, redactor: Redactor) -> str:
    """`value` as encode_value writes it, the credentials `redactor` knows hidden (`Redactor.data`).

    Raises:
        Unsavable: JSON cannot hold the value.
    """
    text = encode_value(value)
    if not redactor.mentions(text):  # the usual case: one search of the text for each known credential
        return text
    return encode_value(redactor.data(value))


def decode_value(text: str, what: str = "a saved value") -> Any:
    """The value encode_value wrote.

    Raises:
        CheckpointError: "checkpoint is damaged": the text is not what encode_value writes.
    """
    try:
        return _untagged(json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
        raise damaged(what, error) from None
