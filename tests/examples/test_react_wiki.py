"""The react_wiki example (examples/react_wiki/): its rules, its reader, and its graphs against the scripted server.

The example's agents come from its own module, as `--agents examples/react_wiki/react_wiki_agents.py`
gives them; its grammar reaches the scripted server because the run's config says the server takes one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from graphrt_agents.wiki.agent import wiki_agent  # noqa: F401 - the library's wiki the reader builds on

import graphrt
from graphrt.authoring.agent_like import module_agents
from graphrt.testing import agent_context

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "react_wiki"
CORPUS = str(ROOT / "tests" / "llm" / "data" / "wiki_corpus.json")
EXAMPLE_AGENTS = module_agents(str(EXAMPLE / "react_wiki_agents.py"))

from react_wiki_reader import focused_wiki_agent  # noqa: E402 - on the path once the example's module is loaded
from react_wiki_rules import (  # noqa: E402
    answer_candidates,
    answer_kind,
    finish_candidates,
    react_grammar,
    search_candidates,
)


def test_the_example_s_agents_load_from_its_module():
    assert sorted(info.name for info in EXAMPLE_AGENTS) == ["focusedWikiAgent", "reactGrammarAgent",
                                                            "reactToolSchemasAgent"]
    assert "react_wiki_rules" in sys.modules


async def ask(func: str, arg: Any, question: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    inputs = {"func": func, "arg": arg, "data": data or {}, "question": question}
    return await focused_wiki_agent(agent_context(inputs, {"corpus": CORPUS}, node_id="act"))


@pytest.mark.anyio
async def test_the_reader_shows_the_first_sentence_and_those_that_bear_on_the_question():
    result = await ask("search", "Eiffel Tower", "Until when was it the tallest structure?")
    # three sentences in page order: the first, the one about the tallest structure (the best match), and the
    # next best, which skips "The tower was built from 1887 to 1889 for a world's fair."
    assert result["content"] == (
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after the engineer Gustave Eiffel, "
        "whose company designed and built it. It was the tallest man-made structure in the world until 1930.")
    assert result["data"]["title"] == "Eiffel Tower"


@pytest.mark.anyio
async def test_a_search_that_names_no_page_reads_the_closest_one():
    result = await ask("search", "Babbage engine", "Who built the engine?")
    assert result["content"].startswith("(No page [Babbage engine]; the closest is [Charles Babbage].) ")
    assert result["data"]["title"] == "Charles Babbage"


@pytest.mark.anyio
async def test_lookup_gives_the_best_matching_sentence_first_and_a_question_in_the_state_stays():
    # toolsAgent hands the reader its state: the example's graph puts the question there (passthrough)
    inputs = {"func": "search", "arg": "Gustave Eiffel", "data": {"question": "What frame did he design?"}}
    found = await focused_wiki_agent(agent_context(inputs, {"corpus": CORPUS}, node_id="act"))
    assert found["data"]["question"] == "What frame did he design?"
    inputs = {"func": "lookup", "arg": "eiffel", "data": found["data"]}
    looked = await focused_wiki_agent(agent_context(inputs, {"corpus": CORPUS}, node_id="act"))
    assert looked["content"] == "(Result 1/3) Eiffel also designed the inner frame of the Statue of Liberty."


async def run_file(name: str, *, question: str, **inject: Any) -> dict[str, Any]:
    config = {"focusedWikiAgent": {"corpus": CORPUS}, "openAIAgent": {"acceptsGrammar": True}}
    graph = graphrt.Graph(EXAMPLE / name, agents=EXAMPLE_AGENTS, config=config)
    return await graph.arun(inject={"question": question, **inject})


@pytest.mark.anyio
async def test_react_searches_looks_up_and_finishes(reply, openai_server):
    openai_server.script(
        reply.text("Thought: I should read about the tower.\nAction: search[Eiffel Tower]"),
        reply.text("lookup[engineer]"),
        reply.text("The engineer's company designed it. finish[Gustave Eiffel]"),
    )
    results = await run_file("react_wiki.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "steps": 3, "model": "scripted-model"}
    first, second, third = (request["messages"] for request in openai_server.requests)
    assert first[0]["role"] == "system" and "search[entity]" in first[0]["content"]
    assert first[1:3] == [{"role": "user", "content": "Question: Who discovered penicillin?"},
                          {"role": "assistant", "content": "Thought: I need to read about penicillin.\nAction: search[Penicillin]"}]
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
    results = await run_file("react_wiki.yaml", question="Who designed the Eiffel Tower?", maxSteps=2)
    assert results == {"answer": None, "status": "out of steps", "steps": 2, "model": "scripted-model"}
    observations = [request["messages"][-1]["content"] for request in openai_server.requests]
    assert observations[1] == ("Observation: Invalid action. Use search[entity], lookup[term] or finish[answer].\n"
                               "Question: Who designed the Eiffel Tower?")


@pytest.mark.anyio
async def test_react_without_a_valid_action_in_the_last_step_says_so(reply, openai_server):
    openai_server.script(reply.text("search[Eiffel Tower]"), reply.text("The capital of Australia"))
    results = await run_file("react_wiki.yaml", question="What is the capital of Australia?", maxSteps=2)
    assert results == {"answer": None, "status": "no valid action", "steps": 2, "model": "scripted-model"}


@pytest.mark.anyio
async def test_react_tools_names_each_step_s_tool_and_holds_its_argument_to_a_list(reply, openai_server):
    openai_server.script(
        reply.tool_calls(("focusedWikiAgent--search", {"entity": "Eiffel Tower"})),
        reply.tool_calls(("focusedWikiAgent--finish", {"answer": "Gustave Eiffel"})),
    )
    results = await run_file("react_wiki_tools.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"answer": "Gustave Eiffel", "status": "finished", "model": "scripted-model"}
    search, finish = openai_server.requests
    assert search["tool_choice"] == {"type": "function", "function": {"name": "focusedWikiAgent--search"}}
    assert finish["tool_choice"] == {"type": "function", "function": {"name": "focusedWikiAgent--finish"}}
    # search takes a phrase of the question; finish a person's name (a "who" question) of the best-matching sentences
    assert [tool["function"]["name"] for tool in search["tools"]] == ["focusedWikiAgent--search"]
    assert search["tools"][0]["function"]["parameters"]["properties"]["entity"]["enum"] == ["Eiffel Tower"]
    assert finish["tools"][0]["function"]["parameters"]["properties"]["answer"]["enum"] == ["Gustave Eiffel"]
    # the wiki has the question (passthrough): the page's first sentence and those that bear on it
    assert [m["content"] for m in finish["messages"] if m["role"] == "tool"] == [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after the engineer Gustave Eiffel, "
        "whose company designed and built it. The tower was built from 1887 to 1889 for a world's fair."
    ]


@pytest.mark.anyio
async def test_react_tools_without_a_finish_call_has_no_answer_and_says_so(reply, openai_server):
    openai_server.script(reply.tool_calls(("focusedWikiAgent--search", {"entity": "Paris"})), reply.text("Paris is in France."))
    results = await run_file("react_wiki_tools.yaml", question="Where is Paris?")
    # a text reply is not an answer: only a call of finish is
    assert results == {"status": "no valid action", "model": "scripted-model"}


@pytest.mark.anyio
async def test_react_tools_a_finish_outside_the_list_is_refused(reply, openai_server):
    openai_server.script(
        reply.tool_calls(("focusedWikiAgent--search", {"entity": "Eiffel Tower"})),
        reply.tool_calls(("focusedWikiAgent--finish", {"answer": "Napoleon"})),
    )
    results = await run_file("react_wiki_tools.yaml", question="Who designed the Eiffel Tower?")
    assert results == {"status": "no valid action", "model": "scripted-model"}


def test_the_first_reply_must_search_and_finish_takes_a_phrase_of_what_was_observed():
    assert react_grammar("Who wrote Hamlet?", "", first=True).endswith('"\\nAction: " "search[" ("Hamlet") "]"')
    observed = ("The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France. It is named after the "
                "engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.")
    candidates = answer_candidates(observed, "Who designed the Eiffel Tower?")
    # names, numbers and words of the page, but not what the question already says
    assert {"Gustave Eiffel", "Champ de Mars", "Paris", "1887", "engineer"} <= set(candidates)
    assert not {"Eiffel Tower", "designed", "the", "France. It"} & set(candidates)
    assert '"finish[" (' in react_grammar("Who designed the Eiffel Tower?", observed, first=False)
    # "Moby-Dick" in the question and "Moby Dick" on the page are the same phrase
    assert "Moby Dick" not in answer_candidates("Moby Dick, the whale, in 1851.", "When was Moby-Dick published?")


def test_a_capital_that_only_opens_a_sentence_is_no_name_but_a_sentence_s_subject_is():
    observed = "Written in 1813, it was her second novel. Mars is the fourth planet. The Nile has a delta. It is by J. K. Rowling."
    candidates = answer_candidates(observed, "Who wrote it?")
    assert "Written" not in candidates
    assert {"Mars", "Nile", "J. K. Rowling"} <= set(candidates)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("In which year was Hamlet written?", "year"),
        ("When did the war end?", "year"),
        ("How many moons does Mars have?", "number"),
        ("How long is the Danube in kilometres?", "number"),
        ("What is the atomic number of iron?", "number"),
        ("What nationality was the author of Faust?", "nationality"),
        ("Who painted Guernica?", "person"),
        ("Where is the Prado?", "name"),
        ("In which country is Lake Titicaca?", "name"),
        ("What is the capital of Peru?", "name"),
        # "who" inside the question does not ask for a name: the profession is a plain word
        ("What was the profession of the man who built it?", "any"),
        ("Which planet from the Sun is Venus?", "any"),
    ],
)
def test_the_kind_of_answer_comes_from_the_question_s_wording(question: str, kind: str):
    assert answer_kind(question) == kind


def test_finish_takes_phrases_of_the_kind_asked_from_the_sentences_that_best_match_the_question():
    observed = ("Faust is a tragic play by the German writer Johann Wolfgang von Goethe. Part One was published in "
                "1808 in Tübingen. Part Two was published in 1832, after his death. It has 12,111 lines.")
    assert finish_candidates(observed, "In which year was Part One of Faust published?") == ["1808", "1832"]
    assert finish_candidates(observed, "How many lines does Faust have?") == ["12,111"]
    assert finish_candidates(observed, "What nationality was the author of Faust?") == ["German"]
    # who: names of two words or more, as a person's ("Johann Wolfgang von Goethe"), not "German" or "Tübingen"
    assert finish_candidates(observed, "Who wrote Faust?") == ["Johann Wolfgang von Goethe", "Part One"]
    # a demonym inside a longer name counts ("the Dutch Post-Impressionist painter"), when no plain one does
    assert finish_candidates("It is by the Dutch Post-Impressionist painter Vincent van Gogh.",
                             "What nationality was the painter?") == ["Dutch"]
    # none of the kind asked in the best sentences: the next best are read, then any phrase
    assert finish_candidates("Faust is a play. It was written in 1808.", "When was Faust written?") == ["1808"]
    assert "play" in finish_candidates("Faust is a play.", "How many acts has Faust?")
    # a choice between options is answered by one of them, though the question names them
    assert finish_candidates(observed, "Which is longer, Faust or Hamlet?") == ["Faust", "Hamlet"]
    # what is not a page's text is not an answer: a failed search's titles, lookup's counter
    assert finish_candidates("Could not find [Fuast]. Similar: ['Faust', 'Goethe'].", "Who wrote Faust?") == []


@pytest.mark.parametrize(
    ("question", "observations", "topics"),
    [
        ("Who designed the Statue of Liberty?", "", ["Statue of Liberty"]),
        ("Who commanded Apollo 11?", "", ["Apollo 11"]),
        ("In which year did Newton first publish the Principia?", "", ["Newton", "Principia"]),
        # no name in the question: its runs of content words (not its verbs)
        ("Who proposed the theory of relativity?", "", ["theory of relativity"]),
        ("What is the atomic number of radium?", "", ["atomic number of radium"]),
        # the second hop: the names of the pages read
        ("What nationality was the author of Faust?", "Faust is a play by Johann Wolfgang von Goethe.",
         ["Faust", "Johann Wolfgang von Goethe"]),
    ],
)
def test_search_takes_a_phrase_of_the_question_or_a_name_read(question: str, observations: str, topics: list[str]):
    assert search_candidates(question, observations) == topics


def test_the_last_step_must_finish_when_there_is_an_answer_to_give():
    observed = "Hamlet was written by William Shakespeare around 1600."
    grammar = react_grammar("Who wrote Hamlet?", observed, first=False, last=True)
    assert grammar.endswith('"\\nAction: " "finish[" ("William Shakespeare") "]"')
    assert '"search"' not in grammar
    # nothing to answer with yet: it may still search or look up
    assert '("search" | "lookup")' in react_grammar("Who wrote Hamlet?", "No Results", first=False, last=True)


@pytest.mark.anyio
async def test_react_s_last_step_may_only_finish_and_the_wiki_reads_with_the_question(reply, openai_server):
    openai_server.script(
        reply.text("Thought: read.\nAction: search[Gustave Eiffel]"),
        reply.text("Thought: done.\nAction: finish[Gustave Eiffel]"),
    )
    question = "Who designed the inner frame of the Statue of Liberty?"
    results = await run_file("react_wiki.yaml", question=question, maxSteps=2)
    assert results["status"] == "finished" and results["answer"] == "Gustave Eiffel"
    first, last = openai_server.requests
    assert '"search["' in first["grammar"] and '"finish["' not in first["grammar"]
    # the page's first sentence and the ones that bear on the question, not its lead in order
    assert last["messages"][-1]["content"] == (
        "Observation: Gustave Eiffel was a French civil engineer. His company built bridges for the French railways. "
        "Eiffel also designed the inner frame of the Statue of Liberty.\nQuestion: " + question)
    # a person's name (a "who" question) from the sentences that best match it; the last step may only finish
    assert last["grammar"].endswith('"\\nAction: " "finish[" ("Gustave Eiffel") "]"')


@pytest.mark.anyio
async def test_the_example_s_grammar_is_not_sent_to_a_server_not_said_to_take_one(reply, openai_server):
    openai_server.script(reply.text("Thought: read.\nAction: search[Eiffel Tower]"),
                         reply.text("Thought: done.\nAction: finish[A free answer of my own]"))
    graph = graphrt.Graph(EXAMPLE / "react_wiki.yaml", agents=EXAMPLE_AGENTS, config={"focusedWikiAgent": {"corpus": CORPUS}})
    results = await graph.arun(inject={"question": "Who designed the Eiffel Tower?"})
    assert results["answer"] == "A free answer of my own"
    assert all("grammar" not in request for request in openai_server.requests)


def test_the_reader_reads_actions_and_keeps_pages_with_wiki_agent_s_own_code():
    import react_wiki_reader
    from graphrt_agents.wiki import agent as wiki

    assert (react_wiki_reader.action_argument, react_wiki_reader.page_state) == (wiki.action_argument, wiki.page_state)


@pytest.mark.anyio
async def test_finish_takes_the_answer_of_a_tool_call_as_the_other_actions_take_theirs():
    result = await ask("finish", {"answer": " 'Gustave Eiffel' "}, "Who designed it?")
    assert result == {"content": "Gustave Eiffel", "data": {"answer": "Gustave Eiffel"}}
