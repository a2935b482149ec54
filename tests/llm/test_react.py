"""ReAct's kit (graphrt_agents.llm.react) and graphs/react.yaml and react_tools.yaml, the LLM a scripted server.

The scripted server plays a capable model: it searches, looks up, searches again for what the first page
led to, and finishes with a sentence of its own, through the real openai SDK.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphrt_agents.llm.react import format_grammar, parse_action

import graphrt

GRAPHS = Path(__file__).parents[2] / "graphs"
CORPUS = str(Path(__file__).parent / "data" / "wiki_corpus.json")


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("Thought: I need the page.\nAction: Search[Eiffel Tower]", ("search", "Eiffel Tower")),
        ("Action 2: lookup[ engineer ]", ("lookup", "engineer")),
        ('**Action:** finish["Gustave Eiffel"]', ("finish", "Gustave Eiffel")),
        ("Thought: done.\nAction: finish[He was French [born in Dijon], an engineer.]",
         ("finish", "He was French [born in Dijon], an engineer.")),
        ("I could search[Paris], but first Action: lookup[tower]", ("lookup", "tower")),
        ("search[Eiffel Tower]\nObservation: ...\nfinish[Paris]", ("search", "Eiffel Tower")),
        ("Thought: x\nAction: translate[Bonjour]", ("translate", "Bonjour")),  # unknown: the act step says so
        ("Thought: x\nAction: finish[an answer cut short", ("finish", "an answer cut short")),
        ("research[x] and researcher[y]", None),
        ("I do not know.", None),
    ],
)
def test_the_action_is_found_in_the_reply(reply: str, action: tuple[str, str] | None):
    assert parse_action(reply, ["search", "lookup", "finish"]) == action


def test_the_grammar_holds_the_format_and_the_action_names_only():
    assert format_grammar(["search", "lookup", "finish"]) == "\n".join([
        'root ::= "Thought: " thought "\\nAction: " name "[" argument "]"',
        "thought ::= [^\\n]+",
        'name ::= "search" | "lookup" | "finish"',
        'argument ::= ([^\\n\\[\\]] | "[" argument "]")*',
    ])


async def run_file(name: str, *, question: str, config: dict[str, Any] | None = None, agents: list[Any] | None = None,
                   **inject: Any) -> dict[str, Any]:
    graph = graphrt.Graph(GRAPHS / name, agents=agents, config={"wikiAgent": {"corpus": CORPUS}, **(config or {})})
    return await graph.arun(inject={"question": question, **inject})


def last_prompts(requests: list[dict[str, Any]]) -> list[str]:
    return [request["messages"][-1]["content"] for request in requests]


TWO_HOP = "In which country was the engineer whose company designed the Eiffel Tower born?"
FREE_ANSWER = "He was French: Gustave Eiffel was a French civil engineer, so France [his country of birth]."


@pytest.mark.anyio
async def test_react_searches_looks_up_searches_again_and_answers_in_its_own_words(reply, openai_server):
    openai_server.script(
        reply.text("Thought: I should read about the tower.\nAction: search[Eiffel Tower]"),
        reply.text("Thought: Who was the engineer?\nAction: lookup[engineer]"),
        reply.text("Thought: Now the engineer himself.\nAction: search[Gustave Eiffel]"),
        reply.text(f"Thought: The page says he was French.\nAction: finish[{FREE_ANSWER}]"),
    )
    results = await run_file("react.yaml", question=TWO_HOP)
    assert results == {"answer": FREE_ANSWER, "status": "finished", "steps": 4, "model": "scripted-model"}
    first = openai_server.requests[0]["messages"]
    system = first[0]["content"]
    # the actions come from wikiAgent's function info, and finish ends the task
    assert "- search[entity]: Returns the first sentences of the wiki page with this title" in system
    assert "- lookup[term]: Returns the next sentence containing a term in the page found by the last search." in system
    assert "- finish[answer]: gives the final answer and ends the task." in system
    assert first[-1] == {"role": "user", "content": f"Question: {TWO_HOP}"}
    assert last_prompts(openai_server.requests[1:]) == [
        "Observation: The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after the engineer "
        "Gustave Eiffel, whose company designed and built it. The tower was built from 1887 to 1889 for a world's "
        "fair. It was the tallest man-made structure in the world until 1930.",
        "Observation: (Result 1/1) It is named after the engineer Gustave Eiffel, whose company designed and built it.",
        "Observation: Gustave Eiffel was a French civil engineer. His company built bridges for the French railways. "
        "Eiffel is best known for the tower in Paris that bears his name. Eiffel also designed the inner frame of "
        "the Statue of Liberty.",
    ]
    # every step sees the whole history: the system prompt, the example, every reply and observation so far
    assert len(openai_server.requests[3]["messages"]) == len(first) + 6


@pytest.mark.anyio
async def test_nothing_restricts_the_answer_text_on_a_server_not_known_to_take_a_grammar(reply, openai_server):
    openai_server.script(reply.text("Thought: read.\nAction: search[Paris]"),
                         reply.text("Thought: I know it.\nAction: finish[Somebody nobody has heard of]"))
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?")
    assert results["answer"] == "Somebody nobody has heard of"
    for request in openai_server.requests:
        assert "grammar" not in request and "response_format" not in request and "tools" not in request


@pytest.mark.anyio
async def test_a_llama_cpp_server_said_to_take_a_grammar_gets_the_format_only(reply, openai_server):
    openai_server.script(reply.text("Thought: read.\nAction: search[Paris]"),
                         reply.text("Thought: I know it.\nAction: finish[Somebody else]"))
    await run_file("react.yaml", question="Who designed the Eiffel Tower?", config={"openAIAgent": {"acceptsGrammar": True}})
    first, second = openai_server.requests
    # the format and the action names, nothing of the question or the page; the first step acts (actFirst)
    assert first["grammar"] == format_grammar(["search", "lookup"])
    assert second["grammar"] == format_grammar(["search", "lookup", "finish"])


@pytest.mark.anyio
async def test_a_finish_before_any_action_is_refused_unless_act_first_is_off(reply, openai_server):
    openai_server.script(reply.text("Thought: easy.\nAction: finish[Eiffel Tower]"),
                         reply.text("Thought: read.\nAction: search[Eiffel Tower]"),
                         reply.text("Thought: there.\nAction: finish[Gustave Eiffel]"))
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "steps": 3, "model": "scripted-model"}
    assert last_prompts(openai_server.requests)[1] == (
        "Observation: Act first: finish[answer] comes after an observation. Use one of: search[entity], lookup[term].")
    openai_server.reset()
    openai_server.script(reply.text("Thought: easy.\nAction: finish[Gustave Eiffel]"))
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?", actFirst=False)
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "steps": 1, "model": "scripted-model"}


def square_tool() -> graphrt.AgentInfo:
    @graphrt.agent(name="mathAgent")
    def square(n: int) -> str:
        """Squares a whole number.

        Args:
            n: the number to square.
        """
        return str(n * n)

    return graphrt.as_agent(square)


@pytest.mark.anyio
async def test_an_unknown_action_and_a_bad_argument_are_observations_the_model_corrects(reply, openai_server):
    openai_server.script(
        reply.text("Thought: multiply it.\nAction: multiply[3, 3]"),
        reply.text("Thought: square it.\nAction: mathAgent[three]"),
        reply.text("I think the square is the answer."),
        reply.text("Thought: as a number.\nAction: mathAgent[3]"),
        reply.text("Thought: done.\nAction: finish[Three squared is 9.]"),
    )
    results = await run_file("react.yaml", question="What is three squared?", agents=[square_tool()],
                             tools=["mathAgent"], examples=[])
    assert results == {"answer": "Three squared is 9.", "status": "finished", "steps": 5, "model": "scripted-model"}
    system = openai_server.requests[0]["messages"][0]["content"]
    assert "- mathAgent[n]: Squares a whole number. n (integer): the number to square." in system
    assert last_prompts(openai_server.requests[1:]) == [
        "Observation: Unknown action 'multiply'. Write one thought, then one action, one of: mathAgent[n], "
        "finish[answer].",
        "Observation: Error: invalid arguments for mathAgent--mathAgent: n: 'three' is not of type 'integer'",
        "Observation: Your reply has no action. Write one thought, then one action, one of: mathAgent[n], "
        "finish[answer].",
        "Observation: 9",
    ]


@pytest.mark.anyio
async def test_react_stops_after_max_steps_and_says_so(reply, openai_server):
    openai_server.script(reply.text("Thought: read.\nAction: search[Eiffel Tower]"),
                         reply.text("Thought: more.\nAction: lookup[tower]"))
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?", maxSteps=2)
    assert results == {"answer": None, "status": "out of steps", "steps": 2, "model": "scripted-model"}


@pytest.mark.anyio
async def test_react_without_a_valid_action_in_the_last_step_says_so(reply, openai_server):
    openai_server.script(reply.text("Thought: read.\nAction: search[Paris]"), reply.text("The capital of France."))
    results = await run_file("react.yaml", question="What is the capital of France?", maxSteps=2)
    assert results == {"answer": None, "status": "no valid action", "steps": 2, "model": "scripted-model"}


@pytest.mark.anyio
async def test_two_tools_with_one_name_are_actions_named_in_full(reply, openai_server):
    @graphrt.agent(name="otherWiki")
    def search(entity: str) -> str:
        """Searches another wiki.

        Args:
            entity: what to search for.
        """
        return f"nothing about {entity}"

    openai_server.script(reply.text("Thought: the other one.\nAction: otherWiki[Paris]"),
                         reply.text("Thought: ok.\nAction: finish[no idea]"))
    results = await run_file("react.yaml", question="Paris?", agents=[graphrt.as_agent(search)],
                             tools=["wikiAgent--search", "otherWiki"], examples=[])
    assert results["status"] == "finished"
    system = openai_server.requests[0]["messages"][0]["content"]
    # wikiAgent--search and otherWiki's one function (otherWiki) do not clash; a toolset's `search` would
    assert "- search[entity]:" in system and "- otherWiki[entity]: Searches another wiki." in system
    assert last_prompts(openai_server.requests[1:]) == ["Observation: nothing about Paris"]


# --- react_tools.yaml: function calling, round after round -----------------------------------------------


@pytest.mark.anyio
async def test_react_tools_calls_tools_round_after_round_and_answers_in_its_own_words(reply, openai_server):
    openai_server.script(
        reply.tool_calls(("wikiAgent--search", {"entity": "Eiffel Tower"})),
        reply.tool_calls(("wikiAgent--lookup", {"term": "engineer"})),
        reply.tool_calls(("wikiAgent--search", {"title": "Gustave Eiffel"})),  # a wrong argument name
        reply.tool_calls(("wikiAgent--search", {"entity": "Gustave Eiffel"})),
        reply.text(FREE_ANSWER),
    )
    results = await run_file("react_tools.yaml", question=TWO_HOP)
    assert results == {"answer": FREE_ANSWER, "status": "finished", "rounds": 5, "model": "scripted-model"}
    tool_messages = [m["content"] for m in openai_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert tool_messages[1] == "(Result 1/1) It is named after the engineer Gustave Eiffel, whose company designed and built it."
    assert tool_messages[2].startswith("Error: invalid arguments for wikiAgent--search: ")
    assert tool_messages[3].startswith("Gustave Eiffel was a French civil engineer.")
    for request in openai_server.requests:  # no enum, grammar or forced choice holds what the model says
        assert "grammar" not in request and "tool_choice" not in request
        assert [tool["function"]["name"] for tool in request["tools"]] == ["wikiAgent--search", "wikiAgent--lookup"]
        for tool in request["tools"]:
            assert all("enum" not in schema for schema in tool["function"]["parameters"]["properties"].values())


@pytest.mark.anyio
async def test_react_tools_out_of_rounds_says_so(reply, openai_server):
    openai_server.script(reply.tool_calls(("wikiAgent--search", {"entity": "Paris"})),
                         reply.tool_calls(("wikiAgent--search", {"entity": "France"})))
    results = await run_file("react_tools.yaml", question="Where is Paris?", maxRounds=2)
    assert results == {"answer": None, "status": "out of rounds", "rounds": 2, "model": "scripted-model"}
