"""GET /runs/{id}/nodes/{key} shows the outside calls the node made, from the run's journal: a toolsAgent's LLM and
tool calls (with the graphs it ran), each with what it asked and returned, redacted as the server's answers are."""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo

from .browser import browser, open_page  # noqa: F401 - fixture

TOOLS = """\
version: 0.5
nodes:
  agent:
    agent: toolsAgent
    inputs:
      tools: [effectAgent--act]
      userInput: {text: Act once.}
    isResult: true
  after:
    agent: copyAgent
    inputs: {text: ":agent.text"}
"""

ACT = {"type": "function", "function": {"name": "act", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


async def act(ctx: AgentContext) -> Any:
    return {"content": f"effect {ctx.inputs['arg']['n']} done"}


def test_a_node_shows_the_calls_of_its_journal(serve, checkpoint, openai_server, reply, openai_api_key) -> None:
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})), reply.text(f"done; {openai_api_key}"))
    served = serve({"tools.yaml": TOOLS}, agents=[AgentInfo("effectAgent", act, tools=(ACT,), side_effects=True)],
                   checkpoint=checkpoint)
    with served.client() as client:
        answer = client.post("/graphs/tools/runs?wait=true", json={})
        run = answer.json()
        assert run.get("status") == "finished", answer.text
        node = client.get(f"/runs/{run['id']}/nodes/agent").json()
        plain = client.get(f"/runs/{run['id']}/nodes/after").json()

    calls = node["calls"]
    assert [(call["path"], call["index"], call["kind"], call["agent"], call["state"]) for call in calls] == [
        ("agent/llm", 0, "llm", "openAIAgent", "returned"), ("agent/0/tool", 0, "tool", "effectAgent", "returned"),
        ("agent/llm", 1, "llm", "openAIAgent", "returned")]
    assert calls[1]["request"]["inputs"]["arg"] == {"n": 1}
    assert calls[1]["result"] == {"content": "effect 1 done"}
    assert calls[2]["result"]["text"] == "done; REDACTED"
    assert all(call["ended_at"] >= call["started_at"] for call in calls)
    assert plain["calls"] == []


def test_the_viewer_shows_a_nodes_journal(serve, browser, openai_server, reply) -> None:
    from playwright.sync_api import expect

    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 7})), reply.text("done"))
    served = serve({"tools.yaml": TOOLS}, agents=[AgentInfo("effectAgent", act, tools=(ACT,), side_effects=True)])
    page, errors = open_page(browser, served.url + "/#graph=tools")
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    page.locator('[data-node="agent"]').click()
    journal = page.locator('#node-detail [data-section="journal"]')
    expect(journal.locator("li.detail-call")).to_have_count(3)
    expect(journal.locator("li.detail-call").nth(1)).to_contain_text("agent/0/tool #0")
    expect(journal.locator("li.detail-call").nth(1)).to_contain_text("tool effectAgent")
    expect(journal.locator("li.detail-call").nth(1)).to_contain_text("effect 7 done")
    assert not errors, errors
