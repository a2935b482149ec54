"""GraphAI's notionAgent (@graphai/notion_agent 0.0.2): returns `{params, namedInputs}`.

GraphAI's notionAgent has never called Notion: since its first commit it is the
agent template (its test checks `{params: {}, namedInputs: {}}`), published with
its package name commented out. graphrt gives the same result; it calls no API.
"""

from __future__ import annotations

from graphrt.authoring.agent_info import AgentInfo, Sample

from graphrt_agents.template.echo import ECHO_OUTPUT, params_and_inputs

__all__ = ["AGENTS"]

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="notionAgent",
        func=params_and_inputs,
        description="Notion Agent",
        output=ECHO_OUTPUT,
        samples=(Sample(inputs={}, params={}, result={"params": {}, "namedInputs": {}},
                        description="GraphAI's test: what it is given, and nothing else."),),
        category=("net",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/notion_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/notion_agent/src/notion_agent.ts",
        package="@graphai/notion_agent",
        license="MIT",
        runs_local=True,  # returns its context: a trip to a cluster worker would cost more than the call
    ),
]
