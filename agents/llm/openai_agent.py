"""openAIAgent: one chat completion from any OpenAI-compatible server, GraphAI's way.

Inputs and params are GraphAI's (`prompt`, `system`, `messages`, `tools`,
`tool_choice`, `response_format`, `max_tokens`, `temperature`, `stop`, `stream`,
`model`), plus `grammar` (a GBNF grammar for llama.cpp's `grammar` field), and so is the result:
`{text, tool, tool_calls, message, messages, usage}` with the response's own fields beside them
(chat.py's ChatResult). Its provider is `OPENAI` (openai_provider.py), a `Provider` as every LLM
agent's is: the agent builds its request (openai_request.py), reads the reply whole or streamed
(openai_reply.py), and asks through the one retry loop (retries.py), which retries 429s, 5xx
answers, timeouts, failed connections and replies that are no reply (a stream cut short, no
content and no tool call) with exponential backoff a bounded number of times, and fails with an
error that says so: a lost reply never comes back as a result. A server that refuses the request
for its grammar is asked again at once without it (and never sent one again). A server on Azure
OpenAI (GraphAI's rule: `baseURL` on `.openai.azure.com`; or `azure: true`) is asked through the
SDK's Azure client, `model` naming the deployment, with `apiVersion` (azure.py).
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null, is_truthy

from .chat import ChatResult, conversation
from .errors import LLMRequestError
from .local_model import ensure_server as _ensure_local_server
from .mock import openai_mock_agent
from .openai_provider import OPENAI
from .openai_reply import complete, complete_streaming, reply_usage
from .azure import AZURE_ENVIRONMENT
from .openai_request import GRAMMAR_ENV, chat_body, without_grammar
from .provider import GRAPHAI_LLM_INFO, LOCAL_PROVIDER, LlmCall, chat_params, llm_options
from .retries import ask
from .settings import DEFAULT_OPENAI_MODEL, RetryPolicy, ServerSettings

__all__ = ["AGENTS", "chat_completion", "openai_agent", "LLMRequestError"]


async def _server_for(options: dict[str, Any], ctx: AgentContext) -> tuple[ServerSettings, str]:
    """The server the node chose (with GraphAI's default model), else the embedded model; and the provider as
    prices and rate limits name it (`openai`, `azure`, `local`)."""
    server = OPENAI.settings(options)
    if server.is_configured:
        return server.with_model(server.model or DEFAULT_OPENAI_MODEL), "azure" if server.azure else OPENAI.system
    embedded = await _ensure_local_server(ctx)
    return embedded.with_model(server.model), LOCAL_PROVIDER


async def openai_agent(ctx: AgentContext) -> dict[str, Any]:
    """Asks an OpenAI-compatible server for one chat completion (`chat_completion`, GraphAI's openAIAgent)."""
    return await chat_completion(ctx)


async def chat_completion(ctx: AgentContext, system: str | None = None) -> dict[str, Any]:
    """Asks an OpenAI-compatible server for one chat completion.

    Args:
        ctx: inputs and params as GraphAI's openAIAgent (inputs win); config or params
            `baseURL`, `apiKey`, `model` choose the server, else OPENAI_BASE_URL,
            OPENAI_API_KEY and OPENAI_MODEL, else the embedded local model. Azure OpenAI
            takes `apiVersion`, `deployment`, and `apiKey`, `azureADToken` or (config, from
            Python) `azureADTokenProvider` (azure.py). Params `timeout` (seconds per attempt),
            `maxRetries` and `retryDelay` tune retries.

    Returns:
        The response's fields plus `text`, `tool`, `tool_calls` (arguments parsed),
        `message`, `messages` (history with the reply) and `usage`.

    Raises:
        LLMRequestError: the server refused the request, or failed on every attempt.
        BudgetExceeded: the request would pass a budget of the run; it is not made.

    `chat_completion(ctx, system)` is the same request for an agent whose provider has another name in the
    run's usage (groqAgent's `groq`).
    """
    options = llm_options(ctx)
    server, found = await _server_for(options, ctx)
    system = system or found
    messages = conversation(options, ctx)
    model = server.model or DEFAULT_OPENAI_MODEL
    body = chat_body(options, server, model, messages, OPENAI.grammars.to_send(options, server))
    stream = is_truthy(options.get("stream")) or is_truthy(options.get("dataStream"))
    policy = RetryPolicy.of(options)

    def recover(error: Exception, said: str) -> bool:
        """A server that refused the grammar is asked again without it: not a failure of the request."""
        nonlocal body
        if not OPENAI.grammars.refused(error, body, server):
            return False
        body = without_grammar(body)
        ctx.progress(f"the server refused the grammar ({said}); asking without it", {"grammar": False})
        return True

    async with OPENAI.client(server, policy.timeout) as client:

        async def attempt(call: LlmCall) -> tuple[dict[str, Any], dict[str, Any] | None]:
            response, message = await (complete_streaming(client, body, call) if stream else complete(client, body))
            choices = response.get("choices") or [{}]
            call.finished(model=response.get("model"), finish_reason=choices[0].get("finish_reason"),
                          **reply_usage(response.get("usage")))
            return response, message

        response, message = await ask(ctx, OPENAI, server, model, policy, attempt, recover=recover, system=system,
                                      prompt=body.get("messages"),
                                      max_tokens=body.get("max_completion_tokens", body.get("max_tokens")))
    return ChatResult(message, messages, response, wants_json=not is_null(options.get("response_format"))).to_result()


_ROLE_ARRAY = {"anyOf": [{"type": "string"}, {"type": "array"}]}
_AZURE = {
    "apiVersion": {"type": "string", "description": "Azure API version (default: OPENAI_API_VERSION, else "
                   "2025-04-01-preview)"},
    "azure": {"type": "boolean", "description": "the server is Azure OpenAI (default: when baseURL's host ends in "
              ".openai.azure.com, or the endpoint is AZURE_OPENAI_ENDPOINT)"},
    "deployment": {"type": "string", "description": "Azure OpenAI: the deployment to ask (default: the model's "
                   "name)"},
    "azureADToken": {"type": "string", "description": "Azure OpenAI: a Microsoft Entra ID token instead of apiKey"},
}

openai_agent_info = AgentInfo(
    name="openAIAgent",
    func=openai_agent,
    description="Chat completion from OpenAI or any OpenAI-compatible server (Ollama, vLLM, llama.cpp); "
    "the embedded local model when none is configured",
    inputs={
        "type": "object",
        "properties": {
            "model": {"type": "string"},
            "system": _ROLE_ARRAY,
            "prompt": {**_ROLE_ARRAY, "description": "query string"},
            "messages": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}],
                         "description": "chat messages"},
            "message": {"type": "object", "description": "one message to send instead of prompt"},
            "tools": {"type": "array"},
            "tool_choice": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "response_format": {"type": "object"},
            "grammar": {"type": "string", "description": "a GBNF grammar the reply must follow, sent to the "
                        "embedded model and to servers said to accept it (acceptsGrammar)"},
            "stop": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "max_tokens": {"type": "number"},
            "max_completion_tokens": {"type": "number"},
            "temperature": {"type": "number"},
            "stream": {"type": "boolean"},
            "images": {"type": "array", "items": {"type": "string"}},
            "apiVersion": _AZURE["apiVersion"],
        },
    },
    params=chat_params(acceptsGrammar={
        "type": "boolean", "description": "the server is a llama.cpp server that takes a `grammar` "
        "(default: only the embedded model; GRAPHRT_ACCEPTS_GRAMMAR=1 for all)"}, **_AZURE),
    config={"type": "object", "properties": {
        **chat_params(**_AZURE)["properties"],
        "azureADTokenProvider": {"description": "Azure OpenAI: a function (from Python) that returns a Microsoft "
                                 "Entra ID token, called before each request"}}},
    output={
        "type": "object",
        "properties": {
            "text": {"type": ["string", "null"]},
            "tool": {"type": "object"},
            "tool_calls": {"type": "array"},
            "message": {"type": ["object", "null"]},
            "messages": {"type": "array"},
            "usage": {"type": "object"},
            "model": {"type": "string"},
        },
    },
    mock=openai_mock_agent,
    samples=(
        Sample(
            inputs={"prompt": "this is response result"},
            params={},
            result={
                "model": "mock",
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                "text": "this is response result",
                "tool_calls": [],
                "message": {"role": "assistant", "content": "this is response result"},
                "messages": [
                    {"role": "user", "content": "this is response result"},
                    {"role": "assistant", "content": "this is response result"},
                ],
            },
            description="run with the mock (no server): it repeats the prompt",
        ),
    ),
    source="https://github.com/receptron/graphai/blob/main/llm_agents/openai_agent/src/openai_agent.ts",
    package="@graphai/openai_agent",
    environment_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", GRAMMAR_ENV, "GRAPHRT_LOCAL_MODEL",
                           *AZURE_ENVIRONMENT),
    **GRAPHAI_LLM_INFO,
)

AGENTS: list[AgentInfo] = [openai_agent_info]
