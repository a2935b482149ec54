"""promptsAgent and awesomeChatgptPromptsAgent: GraphAI's tables, by key."""

from __future__ import annotations

from graphrt_agents.prompts.tables import AGENTS, prompt_table

import graphrt
from graphrt.authoring.plugins import default_registry
from graphrt.check.validate import collect_issues
from graphrt.testing import SampleCase, parametrize_samples


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


def prompt(agent: str, key) -> dict:
    graph = {"version": 0.5, "nodes": {"out": {"agent": agent, "params": {"promptKey": key}, "isResult": True}}}
    return graphrt.run(graph, all_results=True).get("out")


def test_the_tables_hold_graphais_prompts() -> None:
    assert len(prompt_table("awesome_chatgpt_prompts.json")) == 168
    assert prompt("awesomeChatgptPromptsAgent", "linuxTerminal") == {"text": (
        "I want you to act as a linux terminal. I will type commands and you will reply with what the terminal should "
        "show. I want you to only reply with the terminal output inside one unique code block")}
    assert sorted(prompt_table("graphai_prompts.json")) == ["paper1", "paper2", "test"]
    assert prompt("promptsAgent", "paper1")["text"].startswith("与えられた論文の要点をまとめ")


def test_a_key_the_table_lacks_gives_no_text_as_in_graphai() -> None:
    assert prompt("promptsAgent", "nope") == {}
    assert prompt("awesomeChatgptPromptsAgent", "toString") == {}


def test_validate_warns_about_a_literal_key_the_table_lacks() -> None:
    graph = {"version": 0.5, "nodes": {"out": {"agent": "promptsAgent", "params": {"promptKey": "tset"},
                                               "isResult": True}}}
    issues = collect_issues(graph, default_registry())
    assert [(issue.field, issue.message, issue.severity) for issue in issues] == [
        ("params.promptKey", "promptsAgent param schema: 'tset' is not one of ['paper1', 'paper2', 'test']", "warning")]
