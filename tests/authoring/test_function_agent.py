"""@graphrt.agent: function info read from a function, and how a node calls it."""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import Any, Literal, Optional

import jsonschema
import pytest

import graphrt
from graphrt import AgentContext, RegistrationError


@graphrt.agent
def search_books(query: str, limit: int = 10, sort: Literal["relevance", "year"] = "relevance",
                 year: Optional[int] = None, tags: list[str] | None = None) -> list[dict]:
    """Searches the library catalogue.

    Matches titles and authors.

    Args:
        query: words to look for.
        limit: how many books to return at most.
        sort: the order of the results.
        year: only books from this year.
        tags: only books with all these tags.

    Returns:
        The books found.
    """
    return [{"query": query, "limit": limit, "sort": sort, "year": year, "tags": tags}]


def one_node(agent: str, inputs: dict | None = None, params: dict | None = None) -> dict:
    node: dict[str, Any] = {"agent": agent, "isResult": True}
    if inputs is not None:
        node["inputs"] = inputs
    if params is not None:
        node["params"] = params
    return {"version": 0.5, "nodes": {"n": node}}


# ----- function info -----


def test_a_decorated_function_has_this_exact_openai_tool_schema() -> None:
    assert graphrt.as_agent(search_books).tools == ({
        "type": "function",
        "function": {
            "name": "search_books",
            "description": "Searches the library catalogue.\n\nMatches titles and authors.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "words to look for."},
                    "limit": {"type": "integer", "description": "how many books to return at most.", "default": 10},
                    "sort": {"type": "string", "enum": ["relevance", "year"], "description": "the order of the results.",
                             "default": "relevance"},
                    "year": {"type": ["integer", "null"], "description": "only books from this year.", "default": None},
                    "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                             "description": "only books with all these tags.", "default": None},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },)


def test_the_inputs_schema_is_the_parameters_without_closing_them() -> None:
    info = graphrt.as_agent(search_books)
    parameters = dict(info.tools[0]["function"]["parameters"])
    assert parameters.pop("additionalProperties") is False
    assert info.inputs == parameters
    assert info.output == {"type": "array", "items": {"type": "object"}, "description": "The books found."}


def test_the_derived_schemas_are_valid_json_schemas() -> None:
    info = graphrt.as_agent(search_books)
    for schema in (info.inputs, info.output, info.tools[0]["function"]["parameters"]):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_name_and_description_come_from_the_function() -> None:
    info = graphrt.as_agent(search_books)
    assert (info.name, info.description, info.is_async) == (
        "search_books", "Searches the library catalogue.\n\nMatches titles and authors.", False)


def test_the_decorator_returns_the_function_itself() -> None:
    assert search_books("dune", limit=1) == [{"query": "dune", "limit": 1, "sort": "relevance", "year": None, "tags": None}]


def test_explicit_options_win_over_what_is_read() -> None:
    inputs = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    @graphrt.agent(name="shout", description="Shouts.", inputs=inputs, category=["string"], cache_type="pureAgent",
                   samples=[{"inputs": {"text": "hi"}, "params": {}, "result": "HI"}])
    def upper(text: str) -> str:
        """Upper-cases a text."""
        return text.upper()

    info = graphrt.as_agent(upper)
    assert (info.name, info.description, info.inputs, info.category, info.cache_type) == (
        "shout", "Shouts.", inputs, ("string",), "pureAgent")
    assert info.tools[0]["function"]["name"] == "shout"
    assert info.tools[0]["function"]["description"] == "Shouts."
    assert info.samples == (graphrt.Sample(inputs={"text": "hi"}, params={}, result="HI"),)


def test_as_agent_can_rename_a_decorated_function() -> None:
    info = graphrt.as_agent(search_books, name="findBooks")
    assert (info.name, info.tools[0]["function"]["name"]) == ("findBooks", "findBooks")


def test_a_function_whose_only_parameter_is_the_context_is_called_with_it() -> None:
    @graphrt.agent
    async def node_name(ctx: AgentContext) -> str:
        """Returns the node id."""
        return f"{ctx.node_id}:{ctx.params['suffix']}"

    info = graphrt.as_agent(node_name)
    assert (info.inputs, info.tools, info.is_async) == (None, (), True)
    assert graphrt.run(one_node("node_name", params={"suffix": "x"}), agents=[node_name]) == {"n": "n:x"}


# ----- bad signatures and docstrings -----


def test_a_docstring_that_documents_a_missing_parameter_is_an_error() -> None:
    with pytest.raises(RegistrationError) as caught:
        @graphrt.agent
        def greet(name: str) -> str:
            """Greets.

            Args:
                nmae: who to greet.
            """
            return name

    assert str(caught.value) == "agent 'greet': docstring describes 'nmae', which is not a parameter (parameters: name)"


def test_every_problem_is_listed_in_one_error() -> None:
    with pytest.raises(RegistrationError) as caught:
        @graphrt.agent
        def bad(callback: Any, *args: int, flag: bytes = b"") -> None:
            """Does nothing.

            Args:
                callback: called back.
                the mode to use
                mode: how.
            """

    assert str(caught.value) == (
        "agent 'bad': 4 problems:\n"
        "  - docstring: cannot read 'the mode to use' under 'Args:' (expected 'name: description')\n"
        "  - parameter '*args' cannot be filled by name (use named parameters or **kwargs)\n"
        "  - parameter 'flag': no JSON Schema for type bytes\n"
        "  - docstring describes 'mode', which is not a parameter (parameters: callback, args, flag)"
    )


def test_a_hint_that_cannot_be_evaluated_is_an_error() -> None:
    def later(item: "Undefined") -> None:  # noqa: F821 - the point of the test
        """Uses a type defined nowhere."""

    with pytest.raises(RegistrationError, match=r"^agent 'later': cannot read its type hints: NameError: name 'Undefined'"):
        graphrt.agent(later)


def lambda_free_copy():
    def search_books(query: str) -> str:
        """Searches."""
        return query

    return search_books


def test_an_unknown_option_is_named_with_the_known_ones() -> None:
    with pytest.raises(RegistrationError) as caught:
        graphrt.agent(descripton="typo")(lambda_free_copy())
    assert str(caught.value) == (
        "agent 'search_books': unknown option 'descripton' (options: author, cache_type, category, checks_inputs, "
        "config, description, environment_variables, has_graph_data, idempotent, inputs, license, mock, name, "
        "nested_graph, output, outside, package, params, repository, runs_local, samples, side_effects, source, "
        "stateful, stream, tools)"
    )


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(RegistrationError) as caught:
        graphrt.as_agent(lambda x: x)
    assert str(caught.value) == "a lambda needs a name: graphrt.agent(name=...)(func)"


# ----- running in a graph -----


def test_parameters_come_from_inputs_by_name_then_params_then_defaults() -> None:
    graph = one_node("search_books", inputs={"query": "dune", "limit": 2}, params={"limit": 99, "sort": "year"})
    assert graphrt.run(graph, agents=[search_books]) == {
        "n": [{"query": "dune", "limit": 2, "sort": "year", "year": None, "tags": None}]}


def test_a_sync_function_runs_in_a_worker_thread() -> None:
    @graphrt.agent
    def where() -> bool:
        """Tells whether it runs on the main thread."""
        return threading.current_thread() is threading.main_thread()

    assert graphrt.run(one_node("where"), agents=[where]) == {"n": False}


def test_the_context_parameter_can_sit_beside_data_parameters() -> None:
    @graphrt.agent
    async def tag(text: str, ctx: AgentContext) -> str:
        """Tags a text with the node id."""
        return f"{ctx.node_id}: {text}"

    info = graphrt.as_agent(tag)
    assert list(info.inputs["properties"]) == ["text"]
    assert graphrt.run(one_node("tag", inputs={"text": "hi"}), agents=[tag]) == {"n": "n: hi"}


def test_kwargs_receive_the_inputs_that_match_no_parameter() -> None:
    @graphrt.agent
    def collect(first: int, **rest: Any) -> dict:
        """Collects inputs."""
        return {"first": first, "rest": rest}

    graph = one_node("collect", inputs={"first": 1, "b": 2, "c": 3})
    assert graphrt.run(graph, agents=[collect]) == {"n": {"first": 1, "rest": {"b": 2, "c": 3}}}


class Unit(enum.Enum):
    CELSIUS = "C"
    FAHRENHEIT = "F"


@dataclass
class Reading:
    value: float
    unit: Unit = Unit.CELSIUS


def test_dataclass_and_enum_parameters_are_built_from_json_values() -> None:
    @graphrt.agent
    def to_kelvin(reading: Reading) -> float:
        """Converts a reading to kelvin."""
        assert isinstance(reading.unit, Unit)
        celsius = reading.value if reading.unit is Unit.CELSIUS else (reading.value - 32) * 5 / 9
        return round(celsius + 273.15, 2)

    graph = one_node("to_kelvin", inputs={"reading": {"value": 212, "unit": "F"}})
    assert graphrt.run(graph, agents=[to_kelvin]) == {"n": 373.15}


# ----- inputs that break the schema -----


def test_a_wrong_input_type_fails_naming_node_field_and_agent(tmp_path) -> None:
    path = tmp_path / "books.yaml"
    path.write_text("version: 0.5\nnodes:\n  q: {value: 42}\n  find:\n    agent: search_books\n    inputs:\n"
                    "      query: ':q'\n    isResult: true\n")
    with pytest.raises(graphrt.AgentError) as caught:
        graphrt.run(path, agents=[search_books])
    assert str(caught.value) == f"{path}:7:7: node 'find', field 'inputs.query': 42 is not of type 'string' (agent search_books)"


def test_a_wrong_literal_input_is_a_validation_error_before_the_run(tmp_path) -> None:
    """The agent refuses it whenever the node runs, so validation says so first."""
    path = tmp_path / "books.yaml"
    path.write_text("version: 0.5\nnodes:\n  find:\n    agent: search_books\n    inputs:\n      query: 42\n    isResult: true\n")
    with pytest.raises(graphrt.GraphValidationError) as caught:
        graphrt.run(path, agents=[search_books])
    assert str(caught.value) == (f"{path}:6:7: node 'find', field 'inputs.query': "
                                 "search_books input schema: must be a string, got number 42")


def test_a_missing_input_fails_naming_the_field() -> None:
    with pytest.raises(graphrt.AgentError) as caught:
        graphrt.run(one_node("search_books", inputs={"limit": 3}), agents=[search_books])
    assert str(caught.value) == "node 'n', field 'inputs.query': a required value is missing (agent search_books)"


def test_a_bad_value_from_params_is_named_as_a_param_and_all_violations_are_listed() -> None:
    graph = one_node("search_books", inputs={"query": "x", "limit": ":ten"}, params={"sort": "random"})
    graph["nodes"]["ten"] = {"value": "ten"}
    with pytest.raises(graphrt.AgentError) as caught:
        graphrt.run(graph, agents=[search_books])
    assert str(caught.value) == (
        "node 'n', field 'inputs.limit': 'ten' is not of type 'integer'; "
        "also params.sort: 'random' is not one of ['relevance', 'year'] (agent search_books)"
    )


# ----- called as a tool -----


def test_called_as_a_tool_it_takes_arg_and_returns_a_tool_result() -> None:
    graph = one_node("search_books", inputs={"arg": {"query": "dune", "limit": 1}, "tool_call": {"id": "c1"}})
    assert graphrt.run(graph, agents=[search_books]) == {"n": {
        "content": '[{"query":"dune","limit":1,"sort":"relevance","year":null,"tags":null}]',
        "data": [{"query": "dune", "limit": 1, "sort": "relevance", "year": None, "tags": None}],
    }}


def test_bad_tool_arguments_become_a_message_for_the_llm() -> None:
    graph = one_node("search_books", inputs={"arg": '{"limit": -1, "colour": "red"}', "tool_call": {"id": "c1"}})
    message = ("invalid arguments for search_books: colour: unexpected: the schema has no such property; "
               "query: a required value is missing")
    assert graphrt.run(graph, agents=[search_books]) == {"n": {"content": message, "error": message}}


def test_unreadable_tool_arguments_become_a_message_for_the_llm() -> None:
    graph = one_node("search_books", inputs={"arg": "{query:", "tool_call": {"id": "c1"}})
    message = ("the arguments for search_books are not valid JSON "
               "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))")
    assert graphrt.run(graph, agents=[search_books]) == {"n": {"content": message, "error": message}}
