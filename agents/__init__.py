"""graphrt's agent library, installed as `graphrt_agents`: GraphAI's vanilla and sleeper agents, and graphrt's own.

It sits above the engine: it imports graphrt, and graphrt never imports it. The default
registry finds it, as it finds any agent pack, through the entry point group
`graphrt.agents` (pyproject.toml: `graphrt = "graphrt_agents:INDEX"`). `INDEX` names
every agent by the module whose `AGENTS` list holds it, so that a run imports only the
modules of the agents its graph uses; tests/agents/test_index.py checks it against the code.
`AGENTS` (here and in each subpackage) lists the agents themselves, imported on first use.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.registry import AgentIndex

__all__ = ["AGENTS", "INDEX", "agents_under"]

INDEX = AgentIndex({
    "graphrt_agents.vanilla.string": (
        "stringSplitterAgent", "stringTemplateAgent", "jsonParserAgent", "stringCaseVariantsAgent",
        "stringUpdateTextAgent", "consoleAgent",
    ),
    "graphrt_agents.vanilla.array": (
        "pushAgent", "popAgent", "shiftAgent", "arrayFlatAgent", "arrayJoinAgent", "arrayToObjectAgent",
        "arrayFindFirstExistsAgent",
    ),
    "graphrt_agents.vanilla.matrix": ("dotProductAgent", "sortByValuesAgent"),
    "graphrt_agents.vanilla.data": (
        "totalAgent", "dataSumTemplateAgent", "propertyFilterAgent", "copyAgent", "lookupDictionaryAgent",
        "mergeObjectAgent",
    ),
    "graphrt_agents.vanilla.graph": ("nestedAgent", "mapAgent"),
    "graphrt_agents.vanilla.service": ("vanillaFetchAgent",),
    "graphrt_agents.vanilla.sleeper": ("sleeperAgent",),
    "graphrt_agents.vanilla.compare": ("compareAgent",),
    "graphrt_agents.vanilla.images": ("images2messageAgent",),
    "graphrt_agents.vanilla.testing": (
        "echoAgent", "countingAgent", "copyMessageAgent", "copy2ArrayAgent", "mergeNodeIdAgent", "streamMockAgent",
    ),
    "graphrt_agents.sleeper": ("sleepAndMergeAgent", "sleeperAgentDebug"),
    "graphrt_agents.llm.openai_agent": ("openAIAgent",),
    "graphrt_agents.llm.tools_agent": ("toolsAgent",),
    "graphrt_agents.llm.react": ("reactActionAgent",),
    "graphrt_agents.llm.react_grammar": ("reactGrammarAgent", "reactToolSchemasAgent"),
    "graphrt_agents.mcp.agents": ("mcpToolsListAgent", "mcpToolsCallAgent"),
    "graphrt_agents.wiki.agent": ("wikiAgent",),
    "graphrt_agents.input": ("textInputAgent",),
})


def agents_under(package: str) -> list[AgentInfo]:
    """The agents of the index's modules in `package` (or its subpackages), in index order; imports them."""
    return [INDEX.load(module, name) for module, names in INDEX.modules.items()
            if module == package or module.startswith(package + ".") for name in names]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":
        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
