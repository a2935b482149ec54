"""Input agents: a node that asks a person, as GraphAI's @graphai/input_agents do.

GraphAI's textInputAgent reads a line from the terminal inside the agent. Here
the agent asks through the run instead (`ctx.ask`): the run saves its state and
stops with GraphInterrupted, and the answer comes when it is resumed, from
`graphrt resume --checkpoint PATH --answer TEXT`, from a prompt when the run is on a
terminal, or from `graphrt.resume(..., answer=...)`. So the same graph works
unattended, in a web service, and at the terminal.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, js_string

__all__ = ["AGENTS", "text_input_agent"]

_DEFAULT_QUESTION = "Enter"  # GraphAI's default prompt


async def text_input_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks a person `message` and returns the answer as text and as a chat message.

    The question is `inputs.message` or `params.message`. With `required`, an
    empty answer asks again. The message's role is `params.role` ("user" by default).

    Raises:
        Interrupt: no answer yet (the run stops and waits for one).
    """
    question = ctx.inputs.get("message", UNDEFINED)
    if question is UNDEFINED:
        question = ctx.params.get("message")
    question = _DEFAULT_QUESTION if is_null(question) else js_string(question)
    answer = ctx.ask(question)
    text = answer if isinstance(answer, str) else js_string(answer)
    if ctx.params.get("required") and text == "":
        ctx.answer = None
        ctx.ask(question)
    role = ctx.params.get("role") or "user"
    return {"text": text, "message": {"role": role, "content": text}}


async def text_input_mock_agent(ctx: AgentContext) -> dict[str, Any]:
    """textInputAgent as if a person had typed "message from the user" (GraphAI's sample answer)."""
    ctx.answer = _MOCK_ANSWER
    return await text_input_agent(ctx)


_MOCK_ANSWER = "message from the user"

text_input_agent_info = AgentInfo(
    name="textInputAgent",
    func=text_input_agent,
    runs_local=True,  # it asks a person: the question and the answer belong to the driver
    description="Asks a person for text: the run stops with the question and resumes with the answer",
    inputs={
        "type": "object",
        "properties": {"message": {"type": "string", "description": "the question (overrides params.message)"}},
    },
    params={
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "the question; 'Enter' by default"},
            "required": {"type": "boolean", "description": "ask again when the answer is empty"},
            "role": {"type": "string", "description": "the role of the returned message; 'user' by default"},
        },
    },
    output={
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "message": {"type": "object", "properties": {"role": {"type": "string"}, "content": {"type": "string"}}},
        },
    },
    mock=text_input_mock_agent,
    samples=(
        Sample(
            inputs={},
            params={"message": "Enter your message to AI."},
            result={"text": _MOCK_ANSWER, "message": {"role": "user", "content": _MOCK_ANSWER}},
            description="run with the mock, which answers for the person",
        ),
    ),
    category=("input",),
    author="Receptron team (GraphAI), graphrt",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/input_agents/src/text_input_agent.ts",
    package="@graphai/input_agents",
    license="MIT",
)

AGENTS: list[AgentInfo] = [text_input_agent_info]
