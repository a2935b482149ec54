"""toolsAgent with openAIAgent against the scripted server, and tool agents written here."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentError, AgentInfo, ToolCallError
from graphrt.observe.events import ToolCalled, ToolReturned

pytestmark = pytest.mark.anyio

WEATHER_SCHEMA = {
    "type": "function",
    "function": {
        "name": "get",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
            "required": ["city"],
        },
    },
}


class WeatherTools:
    """Tool agents that record their calls; `get` can wait until `parallel` calls are running at once."""

    def __init__(self, parallel: int = 1) -> None:
        self.calls: list[dict[str, Any]] = []
        self.parallel = parallel
        self.running = 0
        self.all_running = anyio.Event()

    async def weather(self, ctx: AgentContext) -> dict[str, Any]:
        self.calls.append({key: ctx.inputs[key] for key in ("func", "arg", "data", "tool_call")})
        self.running += 1
        if self.running >= self.parallel:
            self.all_running.set()
        with anyio.fail_after(5):
            await self.all_running.wait()
        city = ctx.inputs["arg"]["city"]
        seen = ctx.inputs["data"].get("seen", [])
        return {"content": f"Weather in {city}: fine", "data": {"city": city, "seen": [*seen, city]}}

    @staticmethod
    async def failing(ctx: AgentContext) -> Any:
        raise ValueError("disk full")

    @staticmethod
    async def picky(ctx: AgentContext) -> Any:
        raise ToolCallError("city must be a capital; try Paris")

    def agents(self) -> list[AgentInfo]:
        bare = {"type": "function", "function": {"name": "run", "parameters": {"type": "object", "properties": {}}}}
        return [
            AgentInfo(name="weatherAgent", func=self.weather, tools=(WEATHER_SCHEMA,)),
            AgentInfo(name="failingAgent", func=self.failing, tools=(bare,)),
            AgentInfo(name="pickyAgent", func=self.picky, tools=(bare,)),
        ]


def tools_node(**inputs: Any) -> dict[str, Any]:
    node_inputs = {"tools": ["weatherAgent"], "userInput": {"text": "What is the weather?"}, **inputs}
    return {"version": 0.5, "nodes": {"chat": {"agent": "toolsAgent", "inputs": node_inputs, "isResult": True}}}


@pytest.fixture
def weather() -> WeatherTools:
    return WeatherTools()


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


async def test_a_text_answer_ends_the_loop_at_once(reply, openai_server, run_graph, weather):
    openai_server.script(reply.text("Ask me about a city."))
    results = await run_graph(tools_node(), agents=weather.agents())
    assert results["chat"] == {
        "messages": [
            {"role": "user", "content": "What is the weather?"},
            {"role": "assistant", "content": "Ask me about a city."},
        ],
        "data": {},
        "environment": {},
        "text": "Ask me about a city.",
        "finished": True,
        "rounds": 1,
        "model": "scripted-model",
    }
    assert openai_server.requests[0]["tools"] == [
        {**WEATHER_SCHEMA, "function": {**WEATHER_SCHEMA["function"], "name": "weatherAgent--get"}}
    ]


async def test_parallel_tool_calls_run_concurrently_and_answer_in_call_order(reply, openai_server, run_graph, events):
    weather = WeatherTools(parallel=2)
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"}), ("weatherAgent--get", {"city": "Rome"})),
        reply.text("Fine in both."),
    )
    results = await run_graph(tools_node(), agents=weather.agents())
    chat = results["chat"]
    assert [message["role"] for message in chat["messages"]] == ["user", "assistant", "tool", "tool", "assistant"]
    assert chat["messages"][2] == {"role": "tool", "tool_call_id": "call_1_0", "content": "Weather in Paris: fine",
                                   "extra": {"agent": "weatherAgent", "arg": {"city": "Paris"}, "func": "get"}}
    assert tool_messages(openai_server.requests[1]) == ["Weather in Paris: fine", "Weather in Rome: fine"]
    assert openai_server.requests[1]["messages"][1]["content"] == ""
    assert "extra" not in openai_server.requests[1]["messages"][2]
    assert chat["text"] == "Fine in both." and chat["finished"] is True
    calls = [(type(event).__name__, event.tool_call_id) for event in events if isinstance(event, (ToolCalled, ToolReturned))]
    assert sorted(calls) == [("ToolCalled", "call_1_0"), ("ToolCalled", "call_1_1"),
                             ("ToolReturned", "call_1_0"), ("ToolReturned", "call_1_1")]


async def test_each_round_sends_the_system_prompt_and_the_whole_history(reply, openai_server, run_graph, weather):
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"})),
        reply.tool_calls(("weatherAgent--get", {"city": "Rome"})),
        reply.text("Done."),
    )
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    results = await run_graph(tools_node(system="You report weather.", messages=history), agents=weather.agents())
    requests = openai_server.requests
    assert [len(request["messages"]) for request in requests] == [4, 6, 8]
    assert all(request["messages"][0] == {"role": "system", "content": "You report weather."} for request in requests)
    assert results["chat"]["messages"][:2] == history
    assert len(results["chat"]["messages"]) == 8  # the system prompt is not part of the history


async def test_environment_keeps_every_call_and_data_the_last(reply, openai_server, run_graph, weather):
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"})),
        reply.tool_calls(("weatherAgent--get", {"city": "Rome"})),
        reply.text("Done."),
    )
    results = await run_graph(tools_node(), agents=weather.agents())
    assert results["chat"]["environment"] == {
        "weatherAgent--get": [{"city": "Paris", "seen": ["Paris"]}, {"city": "Rome", "seen": ["Paris", "Rome"]}]
    }
    assert results["chat"]["data"] == {
        "weatherAgent--get": {"content": "Weather in Rome: fine", "data": {"city": "Rome", "seen": ["Paris", "Rome"]}}
    }


async def test_a_tool_agent_gets_graphai_s_inputs_and_passthrough_then_its_own_data(reply, openai_server, run_graph,
                                                                                     weather):
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"})),
        reply.tool_calls(("weatherAgent--get", {"city": "Rome"})),
        reply.text("Done."),
    )
    await run_graph(tools_node(passthrough={"weatherAgent": {"seen": ["Oslo"]}}), agents=weather.agents())
    first, second = weather.calls
    assert first == {"func": "get", "arg": {"city": "Paris"}, "data": {"seen": ["Oslo"]},
                     "tool_call": {"id": "call_1_0", "name": "weatherAgent--get", "arguments": {"city": "Paris"}}}
    assert second["data"] == {"city": "Paris", "seen": ["Oslo", "Paris"]}


async def test_malformed_arguments_go_back_to_the_llm_and_it_corrects_itself(reply, openai_server, run_graph, weather):
    openai_server.script(
        reply.tool_calls(("weatherAgent--get", '{"city": "Par')),
        reply.tool_calls(("weatherAgent--get", {"city": "Paris"})),
        reply.text("Fine."),
    )
    results = await run_graph(tools_node(), agents=weather.agents())
    assert tool_messages(openai_server.requests[1]) == [
        "Error: the arguments for weatherAgent--get are not valid JSON (Unterminated string starting at: "
        "line 1 column 10 (char 9))"
    ]
    assert [call["arg"] for call in weather.calls] == [{"city": "Paris"}]
    assert results["chat"]["text"] == "Fine."


async def test_schema_violations_are_listed_for_the_llm(reply, openai_server, run_graph, weather):
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"unit": "K"})), reply.text("Sorry."))
    await run_graph(tools_node(), agents=weather.agents())
    assert tool_messages(openai_server.requests[1]) == [
        "Error: invalid arguments for weatherAgent--get: city: a required value is missing; "
        "unit: 'K' is not one of ['C', 'F']"
    ]
    assert weather.calls == []


async def test_only_granted_tools_can_run(reply, openai_server, run_graph, weather):
    openai_server.script(reply.tool_calls(("failingAgent--run", {}), ("nope", {})), reply.text("Sorry."))
    await run_graph(tools_node(), agents=weather.agents())
    assert tool_messages(openai_server.requests[1]) == [
        "Error: unknown tool 'failingAgent--run'; the tools you can call are: weatherAgent--get",
        "Error: unknown tool 'nope'; the tools you can call are: weatherAgent--get",
    ]


async def test_a_tool_s_exception_becomes_a_tool_message(reply, openai_server, run_graph, weather, events):
    openai_server.script(reply.tool_calls(("failingAgent--run", {}), ("pickyAgent--run", {})), reply.text("Sorry."))
    results = await run_graph(tools_node(tools=["failingAgent", "pickyAgent"]), agents=weather.agents())
    assert tool_messages(openai_server.requests[1]) == [
        "Error: tool 'failingAgent--run' failed: ValueError: disk full",
        "Error: city must be a capital; try Paris",
    ]
    returned = sorted((event.name, event.error) for event in events if isinstance(event, ToolReturned))
    assert returned == [("failingAgent--run", "tool 'failingAgent--run' failed: ValueError: disk full"),
                        ("pickyAgent--run", "city must be a capital; try Paris")]
    assert results["chat"]["data"] == {} and results["chat"]["finished"] is True


async def test_max_rounds_bounds_the_loop(reply, openai_server, run_graph, weather):
    openai_server.script(*[reply.tool_calls(("weatherAgent--get", {"city": "Paris"})) for _ in range(3)])
    results = await run_graph(tools_node(maxRounds=2), agents=weather.agents())
    assert len(openai_server.requests) == 2
    assert results["chat"]["finished"] is False and results["chat"]["text"] is None
    assert results["chat"]["messages"][-1]["role"] == "tool"


async def test_messages_as_a_string_is_one_user_message(reply, openai_server, run_graph, weather):
    openai_server.script(reply.text("Hello to you."))
    node = tools_node(messages="hello")
    del node["nodes"]["chat"]["inputs"]["userInput"]
    results = await run_graph(node, agents=weather.agents())
    assert openai_server.requests[0]["messages"] == [{"role": "user", "content": "hello"}]
    assert results["chat"]["messages"] == [{"role": "user", "content": "hello"},
                                           {"role": "assistant", "content": "Hello to you."}]


@pytest.mark.parametrize("where", ["inputs", "params"])
@pytest.mark.parametrize("rounds", [0, -1])
async def test_max_rounds_below_one_is_a_validation_error(run_graph, weather, openai_server, where, rounds):
    graph = tools_node()
    graph["nodes"]["chat"].setdefault(where, {})["maxRounds"] = rounds
    with pytest.raises(graphrt.GraphValidationError) as caught:
        await run_graph(graph, agents=weather.agents())
    [issue] = caught.value.issues
    assert (issue.node_id, issue.field) == ("chat", f"{where}.maxRounds")
    assert f"must be at least 1, got {rounds}" in issue.message
    assert openai_server.requests == []


class StationDown(AgentError):
    """An agent's own kind of error, raised from the exception behind it."""


async def test_a_tool_s_own_error_class_speaks_for_itself_to_the_llm(reply, openai_server, run_graph):
    async def station(ctx: AgentContext) -> Any:
        raise StationDown("the weather station at 10.0.0.7 did not answer") from ConnectionError("refused")

    bare = {"type": "function", "function": {"name": "read", "parameters": {"type": "object", "properties": {}}}}
    openai_server.script(reply.tool_calls(("stationAgent--read", {})), reply.text("Sorry."))
    await run_graph(tools_node(tools=["stationAgent"]), agents=[AgentInfo(name="stationAgent", func=station, tools=(bare,))])
    assert tool_messages(openai_server.requests[1]) == [
        "Error: tool 'stationAgent--read' failed: StationDown: the weather station at 10.0.0.7 did not answer"]


async def test_max_rounds_below_one_from_a_reference_fails_the_node_before_any_llm_call(run_graph, weather,
                                                                                         openai_server):
    graph = tools_node(maxRounds=":rounds")
    graph["nodes"]["rounds"] = {"value": 0}
    with pytest.raises(graphrt.GraphError) as caught:
        await run_graph(graph, agents=weather.agents())
    error = caught.value
    assert error.node_id == "chat" and error.field == "inputs.maxRounds"
    assert "0 is less than the minimum of 1" in str(error)
    assert openai_server.requests == []


async def test_messages_of_another_type_are_a_clear_error(run_graph, weather, openai_server):
    graph = tools_node(messages=":history")
    graph["nodes"]["history"] = {"value": 42}
    with pytest.raises(graphrt.GraphError) as caught:
        await run_graph(graph, agents=weather.agents())
    assert caught.value.field == "inputs.messages"
    assert "42 is not of type 'array', 'string', 'null'" in str(caught.value)


async def test_tool_choice_forces_the_first_round_only(reply, openai_server, run_graph, weather):
    forced = {"type": "function", "function": {"name": "weatherAgent--get"}}
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Paris"})), reply.text("Fine."))
    await run_graph(tools_node(tool_choice=forced), agents=weather.agents())
    assert openai_server.requests[0]["tool_choice"] == forced
    assert "tool_choice" not in openai_server.requests[1]


async def test_an_array_of_tool_choices_gives_each_round_s_in_turn(reply, openai_server, run_graph, weather):
    # for servers (llama-cpp-python's) that call a tool only when tool_choice names it
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Paris"})),
                         reply.tool_calls(("weatherAgent--get", {"city": "Oslo"})), reply.text("Fine."))
    await run_graph(tools_node(tool_choice=["weatherAgent--get", "required"]), agents=weather.agents())
    first, second, third = (request.get("tool_choice") for request in openai_server.requests)
    assert first == {"type": "function", "function": {"name": "weatherAgent--get"}}  # a name stands for its function
    assert second == "required"
    assert third is None  # after the array, the model chooses


async def test_graphai_style_schemas_name_their_agent(reply, openai_server, run_graph, weather):
    schema = {**WEATHER_SCHEMA, "function": {**WEATHER_SCHEMA["function"], "name": "weatherAgent--get"}}
    openai_server.script(reply.tool_calls(("weatherAgent--get", {"city": "Oslo"})), reply.text("Fine."))
    results = await run_graph(tools_node(tools=[schema]), agents=weather.agents())
    assert results["chat"]["environment"]["weatherAgent--get"][0]["city"] == "Oslo"


async def test_an_unknown_tool_agent_is_a_clear_error(run_graph, weather):
    with pytest.raises(AgentError) as caught:
        await run_graph(tools_node(tools=["weatherAgnet"]), agents=weather.agents())
    assert caught.value.message.startswith("toolsAgent: unknown tool agent 'weatherAgnet' (agents with tools: ")
    assert (caught.value.agent_id, caught.value.__cause__) == ("toolsAgent", None)


class Thermostat:
    """A toolset (graphrt.tool methods): one agent, state kept in the instance."""

    def __init__(self) -> None:
        self.target = 20.0

    @graphrt.tool
    def set_target(self, celsius: float) -> str:
        """Sets the target temperature.

        Args:
            celsius: the new target.
        """
        self.target = celsius
        return f"target set to {celsius}"


@graphrt.agent
def outdoor_temperature(city: str) -> dict:
    """The temperature outside.

    Args:
        city: where.
    """
    return {"content": f"12 C in {city}", "data": {"city": city, "celsius": 12}}


async def test_toolsets_and_function_agents_are_tools_named_agent_dash_dash_func(reply, openai_server, run_graph):
    thermostat = Thermostat()
    openai_server.script(
        reply.tool_calls(("outdoor_temperature--outdoor_temperature", {"city": "Oslo"}), ("Thermostat--set_target", {"celsius": 21.5})),
        reply.text("Set to 21.5."),
    )
    results = await run_graph(tools_node(tools=["outdoor_temperature", "Thermostat"]), agents=[outdoor_temperature, thermostat])
    assert [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]] == [
        "outdoor_temperature--outdoor_temperature", "Thermostat--set_target"
    ]
    assert tool_messages(openai_server.requests[1]) == ["12 C in Oslo", "target set to 21.5"]
    assert thermostat.target == 21.5
    assert results["chat"]["environment"] == {
        "outdoor_temperature--outdoor_temperature": [{"city": "Oslo", "celsius": 12}]
    }


async def test_a_tool_named_agent_func_grants_that_one_function(reply, openai_server, run_graph, wiki_corpus):
    openai_server.script(reply.text("Nothing to do."))
    await run_graph(tools_node(tools=["wikiAgent--lookup"]))
    assert [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]] == ["wikiAgent--lookup"]


async def test_a_function_the_agent_does_not_have_is_an_error_that_lists_its_functions(openai_server, run_graph):
    with pytest.raises(graphrt.AgentError) as caught:
        await run_graph(tools_node(tools=["wikiAgent--finish"]))
    assert caught.value.message == ("toolsAgent: agent 'wikiAgent' has no function 'finish' "
                                           "(its tools: wikiAgent--search, wikiAgent--lookup)")


async def test_a_tool_that_asks_a_person_stops_the_run_with_its_question(reply, openai_server, run_graph):
    # It reached the LLM as the tool's failure ("Error: ... GraphInterrupted: ..."), and the question was lost.
    async def ask(ctx: AgentContext) -> Any:
        return {"content": ctx.ask("Which city?")}

    schema = {"type": "function", "function": {"name": "ask", "parameters": {"type": "object", "properties": {}}}}
    openai_server.script(reply.tool_calls(("askAgent--ask", {})), reply.text("I asked."))
    with pytest.raises(graphrt.GraphInterrupted) as asked:
        await run_graph(tools_node(tools=["askAgent"]), agents=[AgentInfo(name="askAgent", func=ask, tools=(schema,))])
    assert (asked.value.question, asked.value.node_id, asked.value.key) == ("Which city?", "chat", "chat/0/tool")
    assert len(openai_server.requests) == 1
