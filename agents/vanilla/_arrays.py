"""GraphAI's `arrayValidate`, shared by the vanilla agents that take `inputs.array`."""

from __future__ import annotations

from typing import Any

from graphrt.base.jsvalue import is_named_inputs, is_truthy

__all__ = ["require_array"]


def require_array(agent: str, inputs: dict[str, Any], hint: str = "", not_array: str | None = None) -> list[Any]:
    """Returns `inputs.array`, failing with GraphAI's messages when it is missing or not a list.

    Args:
        agent: the agent id the messages name.
        inputs: the agent's inputs.
        hint: text GraphAI appends to the messages (some agents show an example).
        not_array: GraphAI's TypeError text, for agents that fail later than arrayValidate would.
    """
    if not is_named_inputs(inputs):
        raise ValueError(f"{agent}: namedInputs is UNDEFINED!{hint}")
    array = inputs.get("array")
    if not is_truthy(array):
        raise ValueError(f"{agent}: namedInputs.array is UNDEFINED!{hint}")
    if not isinstance(array, (list, tuple)):
        if not_array is not None:
            raise TypeError(not_array)
        raise ValueError(f"{agent}: namedInputs.array is not Array.{hint}")
    return list(array)
