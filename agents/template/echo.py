"""templateAgent, nodeBrowserDetectAgent and nodeBrowserDetect2Agent (and the net pack's notionAgent):
`{params, namedInputs}`, as GraphAI's return it.

GraphAI's nodeBrowserDetectAgent also prints which runtime it runs in (`true`,
`{envType: "Node"}`, `{message: "isnode"}`) with console.log, and nodeBrowserDetect2Agent
(the same package's second export, written without its generator) the last two; graphrt
prints nothing, since a run's standard output is its results (`graphrt run`), and says
nothing of the runtime in the result, as GraphAI's result does not. GraphAI's
nodeBrowserDetect2Agent has nodeBrowserDetectAgent's function info, name included;
here it is named as its package exports it.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample

__all__ = ["AGENTS", "params_and_inputs"]


async def params_and_inputs(ctx: AgentContext) -> dict[str, Any]:
    """`{params, namedInputs}`: the node's params and its resolved inputs, as given."""
    return {"params": ctx.params, "namedInputs": ctx.inputs}


ECHO_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"params": {"type": "object"}, "namedInputs": {"type": "object"}},
}

_ABOUT: dict[str, Any] = {
    "author": "Receptron team",
    "license": "MIT",
    "output": ECHO_OUTPUT,
    "runs_local": True,  # returns its context: a trip to a cluster worker would cost more than the call
}

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="templateAgent",
        func=params_and_inputs,
        description="Template Agent",
        # GraphAI's has no samples; this one shows what every call returns
        samples=(Sample(inputs={"text": "hello"}, params={"a": 1}, result={"params": {"a": 1},
                                                                           "namedInputs": {"text": "hello"}}),),
        category=("template",),
        repository="https://github.com/receptron/graphai",
        source="https://github.com/receptron/graphai-agents/tree/main/packages/agent_template/src/template_agent.ts",
        package="@graphai/agent_template",
        **_ABOUT,
    ),
    AgentInfo(
        name="nodeBrowserDetectAgent",
        func=params_and_inputs,
        description="test agent",
        samples=(Sample(inputs={"b": "2"}, params={"a": "1"}, result={"params": {"a": "1"}, "namedInputs": {"b": "2"}}),),
        category=("general",),
        repository="https://github.com/receptron/graphai/",
        source="https://github.com/receptron/graphai-agents/tree/main/packages/node-browser-detect-agent/src/"
               "node_browser_detect_agent_node.ts",
        package="node_browser_detect_agent",
        **{**_ABOUT, "author": "Receptron Team"},
    ),
    AgentInfo(
        name="nodeBrowserDetect2Agent",
        func=params_and_inputs,
        description="test agent",
        samples=(Sample(inputs={"b": "2"}, params={"a": "1"},
                        result={"params": {"a": "1"}, "namedInputs": {"b": "2"}}),),
        category=("general",),
        repository="https://github.com/receptron/graphai/",
        source="https://github.com/receptron/graphai-agents/tree/main/packages/node-browser-detect-agent/src/"
               "node_browser_detect2_agent_node.ts",
        package="node_browser_detect_agent",
        **{**_ABOUT, "author": "Receptron Team"},
    ),
]
