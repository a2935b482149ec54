"""GraphAI's replicateAgent (@graphai/replicate_agent 2.0.1): a prompt run on a Replicate model.

`params.model` is `owner/name` (or `owner/name:version`); the prompt is `prompt`
(inputs over params), or `mergeablePrompts` of inputs and params joined by newlines,
as GraphAI's getMergeValue does. It runs the model with Replicate's official client
(`replicate.Client.async_run`, graphrt[replicate]) and joins the output's pieces
(a language model's tokens) into the text. The result is GraphAI's: `{choices:
[{message}], text, message: {role: "assistant", content}, usage: {}}`.

The token is REPLICATE_API_TOKEN (GraphAI's `new Replicate()` reads only it), else
`params.apiKey` or the agent's config `apiKey`; Replicate is `https://api.replicate.com`,
or `params.baseURL` / the config's `baseURL`. Where graphrt differs: without a token
or a model it says so before any request (GraphAI sends the request and reports
Replicate's refusal), and an output that is one string is the text (GraphAI's
`output.join("")` throws on it).
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url
from .standin import SAMPLE_TOKEN, ReplicateStandIn

__all__ = ["AGENTS", "replicate_agent", "merged_prompt"]

REPLICATE_URL = "https://api.replicate.com"


def _flat(value: Any) -> str:
    """llm_utils' flatString: a list's truthy items joined by newlines; null is ""."""
    if isinstance(value, list):
        return "\n".join(js_string(item) for item in value if is_truthy(item))
    return "" if is_null(value) else value


def merged_prompt(inputs: dict[str, Any], params: dict[str, Any], prompt: Any) -> Any:
    """GraphAI's getMergeValue(namedInputs, params, "mergeablePrompts", prompt)."""
    from_inputs, from_params = inputs.get("mergeablePrompts", UNDEFINED), params.get("mergeablePrompts", UNDEFINED)
    if is_truthy(from_inputs) or is_truthy(from_params):
        return "\n".join(text for text in (_flat(from_inputs), _flat(from_params)) if is_truthy(text))
    return _flat(prompt)


def _token(ctx: AgentContext) -> str | None:
    for value in (os.environ.get("REPLICATE_API_TOKEN"), ctx.params.get("apiKey"), (ctx.config or {}).get("apiKey")):
        if is_truthy(value):
            return js_string(value)
    return None


async def _collected(output: Any) -> Any:
    if hasattr(output, "__aiter__"):
        return [piece async for piece in output]
    return output


async def replicate_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs `params.model` on the prompt; returns `{choices: [{message}], text, message, usage: {}}`.

    Raises:
        AgentError: no token or no model; Replicate refused the prediction (its problem's title and detail), the
            model failed (its error), or Replicate could not be reached.
    """
    import httpx
    from replicate.client import Client
    from replicate.exceptions import ModelError, ReplicateError

    prompt = {**ctx.params, **ctx.inputs}.get("prompt", UNDEFINED)
    user_prompt = merged_prompt(ctx.inputs, ctx.params, prompt)
    token = _token(ctx)
    if token is None:
        raise AgentError("replicateAgent: no API token: set REPLICATE_API_TOKEN (or params.apiKey)")
    model = ctx.params.get("model")
    if not is_truthy(model) or not isinstance(model, str):
        raise AgentError("replicateAgent: params.model must name a model, owner/name or owner/name:version",
                         field="params.model")
    timeout = (ctx.config or {}).get("timeout", 300)
    client = Client(api_token=token, base_url=base_url(ctx, REPLICATE_URL),
                    timeout=timeout if isinstance(timeout, (int, float)) and timeout > 0 else 300)
    try:
        output = await _collected(await client.async_run(model, input={"prompt": user_prompt}, use_file_output=False))
    except ModelError as error:
        raise AgentError(f"replicateAgent: the model {model} failed: {error.prediction.error}") from error
    except ReplicateError as error:
        raise AgentError(f"replicateAgent: Replicate refused the prediction: {error.title or ''} "
                         f"({error.status}): {error.detail or ''}".replace(" ()", "")) from error
    except (httpx.HTTPError, ValueError) as error:
        raise AgentError(f"replicateAgent: Replicate could not run {model}: {type(error).__name__}: {error}") from error
    content = "".join(js_string(piece) for piece in output) if isinstance(output, list) else js_string(output)
    message = {"role": "assistant", "content": content}
    return {"choices": [{"message": message}], "text": content, "message": message, "usage": {}}


_TEXT = "You said: hello"

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="replicateAgent",
        outside=True,
        func=replicate_agent,
        mock=stand_in_mock(replicate_agent, ReplicateStandIn, SAMPLE_TOKEN),
        description="Replicate Agent",
        inputs={"type": "object", "properties": {
            "prompt": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "mergeablePrompts": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}},
        params={"type": "object", "properties": {
            "model": {"type": "string", "description": "owner/name or owner/name:version"},
            "prompt": {"type": "string"}, "mergeablePrompts": {},
            "apiKey": {"type": "string", "description": "the token, when REPLICATE_API_TOKEN is not set"},
            "baseURL": {"type": "string", "description": f"the API's address (default {REPLICATE_URL})"}},
            "required": ["model"]},
        output={"type": "object", "properties": {
            "text": {"type": "string"}, "message": {"type": "object"}, "choices": {"type": "array"},
            "usage": {"type": "object"}}},
        config=SERVICE_CONFIG,
        samples=(Sample(inputs={"prompt": "hello"}, params={"model": "meta/meta-llama-3-8b-instruct"}, result={
            "choices": [{"message": {"role": "assistant", "content": _TEXT}}], "text": _TEXT,
            "message": {"role": "assistant", "content": _TEXT}, "usage": {}},
            description="A stand-in of Replicate on 127.0.0.1 whose model repeats the prompt."),),
        category=("llm",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai",
        source="https://github.com/receptron/graphai/blob/main/llm_agents/replicate_agent/src/replicate_agent.ts",
        package="@graphai/replicate_agent",
        license="MIT",
        environment_variables=("REPLICATE_API_TOKEN",),
    ),
]
