"""node_context puts each field of a run's agent call where AgentContext keeps it (it passes them by position)."""

import dataclasses
import inspect

from graphrt.authoring.agent_info import AgentContext, node_context


def test_every_argument_lands_in_the_field_of_its_name() -> None:
    names = list(inspect.signature(node_context).parameters)
    values = {name: object() for name in names}

    ctx = node_context(*values.values())

    assert {name: getattr(ctx, name) for name in names} == values
    assert ctx.log == [] and ctx.agent_info is None and ctx.idempotency_key is None


def test_it_names_every_field_a_run_sets() -> None:
    left_to_their_defaults = {"log", "agent_info", "idempotency_key"}

    assert set(inspect.signature(node_context).parameters) == {
        field.name for field in dataclasses.fields(AgentContext)} - left_to_their_defaults
