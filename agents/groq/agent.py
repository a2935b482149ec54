"""groqAgent: one chat completion from Groq, GraphAI's way, through openAIAgent.

Groq's API is OpenAI's chat completions at https://api.groq.com/openai/v1 (where
GraphAI's groq-sdk posts), so the request goes through openAIAgent and the official
`openai` SDK, with GraphAI's groqAgent defaults: the key from GROQ_API_KEY (or
`apiKey`), a model that must be given (`model`, or GROQ_MODEL), temperature 0.7,
`tool_choice: auto` when there are tools, `max_tokens` as it is. Its result,
streaming, retries and errors are openAIAgent's: `{text, tool, tool_calls, message,
messages, usage}` beside the completion's own fields, which is what GraphAI's
groqAgent returns. Beyond GraphAI: tool calls are assembled when streaming too (GraphAI
drops them), and `baseURL` (or GROQ_BASE_URL) points it at another server.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.jsvalue import is_null

from graphrt_agents.llm.mock import openai_mock_agent
from graphrt_agents.llm.openai_agent import chat_completion, openai_agent_info
from graphrt_agents.llm.provider import GRAPHAI_LLM_INFO, Provider, chat_params, llm_options

__all__ = ["AGENTS", "GROQ", "groq_agent"]

GROQ = Provider(agent="groqAgent", system="groq", host="api.groq.com", default_model=None,
                keys=("GROQ_API_KEY",), base_urls=("GROQ_BASE_URL",), models=("GROQ_MODEL",))
GROQ_BASE_URL = "https://api.groq.com/openai/v1"
_DEFAULT_TEMPERATURE = 0.7


async def groq_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks Groq for one chat completion.

    Args:
        ctx: inputs and params as GraphAI's groqAgent (inputs win): `model` is required;
            `apiKey` (else GROQ_API_KEY) and `baseURL` (else GROQ_BASE_URL, else Groq's API)
            in params or config; `timeout`, `maxRetries` and `retryDelay` as openAIAgent's.

    Returns:
        openAIAgent's result: the completion's fields plus `text`, `tool`, `tool_calls`,
        `message`, `messages` (with the reply) and `usage`.

    Raises:
        LLMRequestError: no key or no model, or the API refused the request or failed on every attempt.
    """
    options = llm_options(ctx)
    server = GROQ.server(options)
    params = {**ctx.params, "baseURL": server.base_url or GROQ_BASE_URL, "apiKey": server.api_key, "model": server.model}
    if is_null(options.get("temperature")):
        params["temperature"] = _DEFAULT_TEMPERATURE
    if options.get("tools") and is_null(options.get("tool_choice")):
        params["tool_choice"] = "auto"
    return await chat_completion(replace(ctx, params=params), GROQ.system)


groq_agent_info = AgentInfo(
    name="groqAgent",
    func=groq_agent,
    description="Groq Agent: a chat completion from Groq's OpenAI-compatible API",
    inputs=openai_agent_info.inputs,
    params=chat_params(model={"type": "string", "description": "required, e.g. llama-3.1-8b-instant"}),
    output=openai_agent_info.output,
    mock=openai_mock_agent,  # the result has openAIAgent's shape, so its mock stands in (GraphAI's has none)
    samples=openai_agent_info.samples,
    source="https://github.com/receptron/graphai/blob/main/llm_agents/groq_agent/src/groq_agent.ts",
    package="@graphai/groq_agent",
    environment_variables=("GROQ_API_KEY",),
    **GRAPHAI_LLM_INFO,
)

AGENTS: list[AgentInfo] = [groq_agent_info]
