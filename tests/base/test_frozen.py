"""The value classes whose methods are written rather than generated (graphrt/base/frozen.py) behave as the
dataclasses they replace: each is held to a dataclass of the same fields and defaults, made here."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from pathlib import Path
from typing import Any

import pytest

from graphrt.authoring.agent_info import AgentContext, AgentInfo, NestedGraph, Sample
from graphrt.authoring.packs import Pack, Unavailable
from graphrt.authoring.registry import AgentIndex
from graphrt.base.errors import Location, ValidationIssue
from graphrt.base.frozen import Frozen
from graphrt.base.schema import Violation
from graphrt.check.lint import NestedIssue
from graphrt.engine.options import GraphOptions, RunOptions
from graphrt.graphdata.loader import GraphFile, GraphSource, GraphText


async def _agent(ctx: AgentContext) -> str:
    return "done"


# Each class with the arguments of two instances that differ (the first one's are also given to the twin).
CASES: list[tuple[type, dict[str, Any], dict[str, Any]]] = [
    (Pack, {"name": "pdf", "extra": "pdf", "requires": ("pypdf",)}, {"name": "pdf"}),
    (Unavailable, {"graphai_package": "@graphai/x", "reason": "paid"}, {"graphai_package": "@graphai/x", "reason": "-"}),
    (GraphFile, {"path": Path("g.yaml")}, {"path": Path("g.yaml"), "root": Path("/")}),
    (GraphText, {"text": "version: 0.5", "file": "g.yaml"}, {"text": "version: 0.5"}),
    (Violation, {"path": ("a", 0), "message": "no"}, {"path": ("a",), "message": "no"}),
    (Sample, {"inputs": {"a": 1}, "params": {}, "result": 1}, {"inputs": {"a": 1}, "params": {}, "result": 2}),
    (NestedGraph, {"inputs": frozenset({"row"}), "all_results": True}, {"inputs": frozenset({"row"})}),
    (Location, {"file": "g.yaml", "line": 3, "column": 4}, {"file": "g.yaml"}),
    (ValidationIssue, {"message": "bad", "node_id": "n", "location": Location("g.yaml", 1, 2)}, {"message": "bad"}),
    (NestedIssue, {"message": "bad", "node_id": "n", "nested": ("inner",)}, {"message": "bad", "node_id": "n"}),
    (AgentInfo, {"name": "a", "func": _agent, "description": "d", "samples": (Sample(1, {}, 1),)},
     {"name": "a", "func": _agent}),
    (GraphOptions, {"config": {"x": 1}, "executor": "ray"}, {}),
    (RunOptions, {"inject": {"a": 1}, "run_id": "r", "timeout": 2.0}, {}),
]


def _twin(cls: type) -> type:
    """The frozen dataclass of `cls`'s fields, with the defaults its __init__ gives them."""
    parameters = inspect.signature(cls.__init__).parameters
    spec: list[Any] = []
    for name in cls._names:  # type: ignore[attr-defined]
        parameter = parameters.get(name)
        if parameter is None:  # set by __init__ itself (AgentInfo.is_async)
            default = next(item for item in dataclasses.fields(cls) if item.name == name).default
            spec.append((name, Any, dataclasses.field(init=False, default=default)))
        elif parameter.default is inspect.Parameter.empty:
            spec.append((name, Any))
        else:
            spec.append((name, Any, dataclasses.field(default=parameter.default)))
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=True, namespace={"__post_init__": _twin_post_init})
    twin.__qualname__ = cls.__qualname__
    return twin


def _twin_post_init(self: Any) -> None:
    # What the classes' own __init__ does beyond setting fields: RunOptions copies `inject` and `subscribe` (None
    # is empty), AgentInfo says whether `func` is async.
    if type(self).__name__ == "RunOptions":
        object.__setattr__(self, "inject", dict(self.inject or {}))
        object.__setattr__(self, "subscribe", tuple(self.subscribe or ()))
    if type(self).__name__ == "AgentInfo":
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.func))


@pytest.mark.parametrize(("cls", "given", "other"), CASES, ids=[case[0].__name__ for case in CASES])
def test_a_written_value_class_behaves_as_the_frozen_dataclass_of_its_fields(
        cls: type, given: dict[str, Any], other: dict[str, Any]) -> None:
    twin = _twin(cls)
    value, same, different, generated = cls(**given), cls(**given), cls(**other), twin(**given)
    assert repr(value) == repr(generated)
    assert [getattr(value, name) for name in cls._names] == [getattr(generated, f.name) for f in dataclasses.fields(twin)]
    assert value == same and not value != same and value != different and value != generated  # another class
    try:
        hashed = hash(generated)
    except TypeError:  # a field that is a dict: neither can be hashed
        with pytest.raises(TypeError):
            hash(value)
    else:
        assert hash(value) == hash(same) == hashed
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
        value.__setattr__(cls._names[0], None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.__delattr__(cls._names[0])
    assert pickle.loads(pickle.dumps(value)) == value == copy.copy(value) == copy.deepcopy(value)
    assert isinstance(value, Frozen)


@pytest.mark.parametrize("cls", [AgentInfo, Location, ValidationIssue, NestedIssue, GraphOptions, RunOptions])
def test_a_public_one_is_still_a_dataclass_that_replace_and_fields_take(cls: type) -> None:
    given = next(case[1] for case in CASES if case[0] is cls)
    value = cls(**given)
    assert dataclasses.is_dataclass(value)
    assert tuple(item.name for item in dataclasses.fields(cls)) == cls._names
    init_fields = [item.name for item in dataclasses.fields(cls) if item.init]
    assert list(inspect.signature(cls.__init__).parameters)[1:] == init_fields
    changed = dataclasses.replace(value, **{init_fields[-1]: getattr(value, init_fields[-1])})
    assert changed == value and changed is not value
    assert dataclasses.asdict(value) == {name: copy.deepcopy(getattr(value, name)) for name in cls._names} or \
        cls in (AgentInfo, ValidationIssue)  # asdict recurses into nested dataclasses and copies functions


def test_run_options_replace_is_dataclasses_replace() -> None:
    options = RunOptions(inject={"a": 1}, subscribe=[print], run_id="r")
    for changes in ({"run_id": "s"}, {"inject": None, "timeout": 1.0}, {"subscribe": None}):
        assert options.replace(**changes) == dataclasses.replace(options, **changes)
    with pytest.raises(TypeError, match="unknown option 'nope'"):
        options.replace(nope=1)


def test_agent_context_behaves_as_the_dataclass_of_its_fields() -> None:
    twin = dataclasses.make_dataclass(
        "AgentContext", [(item.name, Any, dataclasses.field(default=None)) for item in dataclasses.fields(AgentContext)],
        slots=True)
    context = AgentContext({"a": 1}, {"p": 2}, "n", "copyAgent", run_id="r", path=("n",))
    generated = twin(**{item.name: getattr(context, item.name) for item in dataclasses.fields(AgentContext)})
    assert repr(context) == repr(generated)
    assert context == AgentContext({"a": 1}, {"p": 2}, "n", "copyAgent", run_id="r", path=("n",))
    assert context != dataclasses.replace(context, retry_count=1)
    assert AgentContext.__hash__ is None  # mutable: unhashable, as a dataclass that compares
    assert dataclasses.replace(context, node_id="m").node_id == "m"
    assert (context.filter_params, context.config, context.log) == ({}, {}, [])  # each context its own
    assert context.log is not AgentContext({}, {}, "n").log
    with pytest.raises(AttributeError):
        context.other = 1  # type: ignore[attr-defined]


def test_an_agent_index_is_equal_to_itself_alone_and_a_graph_source_compares_its_fields() -> None:
    index = AgentIndex({"pack.text": ("upperAgent",)})
    assert index == index and index != AgentIndex({"pack.text": ("upperAgent",)}) and hash(index) == id(index) >> 4
    assert repr(index) == "AgentIndex(modules={'pack.text': ('upperAgent',)}, packs={}, unavailable={})"
    source = GraphSource("g.yaml", "text")
    assert source == GraphSource("g.yaml", "text") and source != source.nested("nodes")
    assert repr(source) == "GraphSource(file='g.yaml', text='text', prefix=(), root=None)"
    assert source.nested("nodes")._positions is source._positions
