"""ReAct: the action parser, and graphs/react.yaml and react_tools.yaml against the scripted server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphrt_agents.llm.react import parse_action

import graphrt

GRAPHS = Path(__file__).parents[2] / "graphs"


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("search[Eiffel Tower]", ("search", "Eiffel Tower")),
        ("Thought: I need the page.\nAction: Search[Eiffel Tower]", ("search", "Eiffel Tower")),
        ("Action 2: lookup[ engineer ]", ("lookup", "engineer")),
        ("I know it now, so `finish[Gustave Eiffel]`.", ("finish", "Gustave Eiffel")),
        ('**Action:** FINISH["Gustave Eiffel"]', ("finish", "Gustave Eiffel")),
        ("I could search[Paris], but first Action: lookup[tower]", ("lookup", "tower")),
        ("search[Eiffel Tower]\nObservation: ...\nfinish[Paris]", ("search", "Eiffel Tower")),
        ("research[x] and researcher[y]", None),
        ("I do not know.", None),
    ],
)
def test_the_action_is_found_anywhere_in_the_reply(reply: str, action: tuple[str, str] | None):
    assert parse_action(reply) == action


async def run_file(name: str, *, question: str, **inject: Any) -> dict[str, Any]:
    graph = graphrt.Graph(GRAPHS / name, config={"wikiAgent": {"corpus": str(Path(__file__).parent / "data" / "wiki_corpus.json")}})
    graph.inject("question", question)
    for node_id, value in inject.items():
        graph.inject(node_id, value)
    return await graph.arun()


@pytest.mark.anyio
async def test_react_searches_looks_up_and_finishes(reply, openai_server):
    openai_server.script(
        reply.text("Thought: I should read about the tower.\nAction: search[Eiffel Tower]"),
        reply.text("lookup[engineer]"),
        reply.text("The engineer's company designed it. finish[Gustave Eiffel]"),
    )
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "steps": 3, "model": "scripted-model"}
    first, second, third = (request["messages"] for request in openai_server.requests)
    assert first[0]["role"] == "system" and "search[entity]" in first[0]["content"]
    assert first[1:3] == [{"role": "user", "content": "Question: Who discovered radium?"},
                          {"role": "assistant", "content": "Thought: I need to read about radium.\nAction: search[Radium]"}]
    assert [message["role"] for message in first[3:8]] == ["user", "assistant", "user", "assistant", "user"]
    assert first[-1] == {"role": "user", "content": "Question: Who designed the Eiffel Tower?"}
    assert second[-1]["content"].startswith("Observation: The Eiffel Tower is a wrought-iron lattice tower in Paris.")
    assert second[-1]["content"].endswith("\nQuestion: Who designed the Eiffel Tower?")
    assert third[-1] == {"role": "user", "content": "Observation: (Result 1/1) It is named after the engineer "
                                                    "Gustave Eiffel, whose company designed and built it.\n"
                                                    "Question: Who designed the Eiffel Tower?"}
    # The step format goes to the server as a GBNF grammar, so that a llama.cpp server cannot stray from it.
    assert all(request["grammar"].startswith('root ::= "Thought: "') for request in openai_server.requests)
    assert len(third) == 14  # system, the worked examples, then every prompt and reply so far


@pytest.mark.anyio
async def test_react_stops_after_max_steps_without_an_answer(reply, openai_server):
    openai_server.script(reply.text("Hmm, the tower is tall."), reply.text("search[Eifel]"))
    results = await run_file("react.yaml", question="Who designed the Eiffel Tower?", maxSteps=2)
    assert results == {"answer": None, "status": "out of steps", "steps": 2, "model": "scripted-model"}
    observations = [request["messages"][-1]["content"] for request in openai_server.requests]
    assert observations[1] == ("Observation: Invalid action. Use search[entity], lookup[term] or finish[answer].\n"
                               "Question: Who designed the Eiffel Tower?")


@pytest.mark.anyio
async def test_react_without_a_valid_action_in_the_last_step_says_so(reply, openai_server):
    openai_server.script(reply.text("search[Eiffel Tower]"), reply.text("The capital of Australia"))
    results = await run_file("react.yaml", question="What is the capital of Australia?", maxSteps=2)
    assert results == {"answer": None, "status": "no valid action", "steps": 2, "model": "scripted-model"}


@pytest.mark.anyio
async def test_react_tools_calls_the_wiki_until_the_llm_answers(reply, openai_server):
    openai_server.script(
        reply.tool_calls(("wikiAgent--search", {"entity": "Eiffel Tower"})),
        reply.tool_calls(("wikiAgent--lookup", {"term": "engineer"}), ("wikiAgent--finish", {"answer": "Gustave Eiffel"})),
        reply.text("Gustave Eiffel's company designed it."),
    )
    results = await run_file("react_tools.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "model": "scripted-model"}
    assert openai_server.requests[0]["tool_choice"] == {"type": "function", "function": {"name": "wikiAgent--search"}}
    assert [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]] == [
        "wikiAgent--search", "wikiAgent--lookup", "wikiAgent--finish"
    ]
    tool_results = [m["content"] for m in openai_server.requests[2]["messages"] if m["role"] == "tool"]
    assert tool_results[1:] == ["(Result 1/1) It is named after the engineer Gustave Eiffel, whose company designed "
                                "and built it.", "Gustave Eiffel"]


@pytest.mark.anyio
async def test_react_tools_without_finish_answers_with_the_llm_s_text(reply, openai_server):
    openai_server.script(reply.tool_calls(("wikiAgent--search", {"entity": "Paris"})), reply.text("Paris is in France."))
    results = await run_file("react_tools.yaml", question="Where is Paris?")
    # An answer in text is kept, but only a call of finish is "finished".
    assert results == {"answer": "Paris is in France.", "status": "no valid action", "model": "scripted-model"}


@pytest.mark.anyio
async def test_react_tools_out_of_rounds_is_out_of_steps(reply, openai_server):
    openai_server.script(*[reply.tool_calls(("wikiAgent--search", {"entity": "Paris"}))] * 2)
    results = await run_file("react_tools.yaml", question="Where is Paris?", maxRounds=2)
    assert results == {"status": "out of steps", "model": "scripted-model"}  # no answer at all


def test_the_first_reply_must_search_and_finish_takes_a_phrase_of_what_was_observed():
    from graphrt_agents.llm.react import answer_candidates, react_grammar

    assert react_grammar("Who wrote Hamlet?", "", first=True).endswith('"search[" [^\\n\\[\\]]{1,80} "]"')
    observed = ("The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France. It is named after the "
                "engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.")
    candidates = answer_candidates(observed, "Who designed the Eiffel Tower?")
    # names, numbers and words of the page, but not what the question already says
    assert {"Gustave Eiffel", "Champ de Mars", "Paris", "1887", "engineer"} <= set(candidates)
    assert not {"Eiffel Tower", "designed", "the", "France. It"} & set(candidates)
    assert '"finish[" (' in react_grammar("Who designed the Eiffel Tower?", observed, first=False)
    # "Moby-Dick" in the question and "Moby Dick" on the page are the same phrase
    assert "Moby Dick" not in answer_candidates("Moby Dick, the whale, in 1851.", "When was Moby-Dick published?")
