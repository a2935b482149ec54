"""GraphAI's slackAgent (@graphai/slack_agent 0.0.5): posts a message to a channel with Slack's official SDK.

The token is SLACK_TOKEN, else `inputs.slack_token` (GraphAI's order), else the agent's
config `apiKey` (graphrt's addition); the channel is `params.post_channel`; the text is
`inputs.message` (else `params.message`), a list joined by newlines. It calls
chat.postMessage through slack_sdk's WebClient (graphrt[slack]) at `https://slack.com/api/`
(or `/api/` under `params.baseURL` / the config's `baseURL`), and returns `{}` as GraphAI does. The
WebClient is synchronous: the agent runs in a worker thread, each request bounded by
the config's `timeout` (30 s by default, slack_sdk's).
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url
from .standins import SAMPLE_KEY, SlackStandIn

__all__ = ["AGENTS", "slack_agent"]

SLACK_URL = "https://slack.com"


def _token(ctx: AgentContext) -> Any:
    """`process.env.SLACK_TOKEN ?? namedInputs.slack_token`, then the config's apiKey."""
    token = os.environ.get("SLACK_TOKEN")
    if token is None:
        token = ctx.inputs.get("slack_token", UNDEFINED)
    if is_null(token):
        token = (ctx.config or {}).get("apiKey", UNDEFINED)
    return token


def _text(message: Any) -> Any:
    """`Array.isArray(message) ? message.join("\\n") : message`."""
    if isinstance(message, list):
        return "\n".join("" if is_null(item) else js_string(item) for item in message)
    return message


def slack_agent(ctx: AgentContext) -> dict[str, Any]:
    """Posts `inputs.message` (or `params.message`) to `params.post_channel`; returns `{}`.

    Raises:
        AgentError: no token, no channel (GraphAI's messages), no text (Slack's no_text, found before the
            request: slack_sdk would also warn on stderr), or Slack refused the post (its error code, e.g.
            channel_not_found, invalid_auth) or could not be reached.
    """
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError, SlackClientError

    token = _token(ctx)
    channel = ctx.params.get("post_channel")
    if not is_truthy(token):
        raise AgentError("SLACK_TOKEN is not set in environment variables.")
    if not is_truthy(channel):
        raise AgentError("Slacl post_channel is not set in params.", field="params.post_channel")
    message = ctx.inputs.get("message", UNDEFINED)
    text = _text(ctx.params.get("message", UNDEFINED) if is_null(message) else message)
    if is_null(text) or js_string(text) == "":  # Slack refuses it (no_text), as GraphAI's post finds: refused here
        raise AgentError("slackAgent: there is no text to post: give inputs.message or params.message",
                         field="inputs.message")
    timeout = (ctx.config or {}).get("timeout", 30)
    client = WebClient(token=js_string(token), base_url=base_url(ctx, SLACK_URL) + "/api/",
                       timeout=int(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else 30)
    try:
        client.chat_postMessage(channel=js_string(channel), text=js_string(text))
    except SlackApiError as error:
        code = error.response.get("error") if error.response is not None else None
        raise AgentError(f"slackAgent: Slack refused chat.postMessage to {js_string(channel)}: {code or error}") from error
    except (SlackClientError, OSError) as error:
        raise AgentError(f"slackAgent: Slack could not be reached: {type(error).__name__}: {error}") from error
    return {}


AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="slackAgent",
        outside=True, side_effects=True,  # posts a message: twice is two
        func=slack_agent,
        mock=stand_in_mock(slack_agent, lambda: SlackStandIn(token=None), SAMPLE_KEY),
        description="Slack Agent",
        inputs={"type": "object", "properties": {
            "message": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                        "description": "the text to post (a list: its lines)"},
            "slack_token": {"type": "string", "description": "the bot token, when SLACK_TOKEN is not set"}}},
        params={"type": "object", "properties": {
            "post_channel": {"type": "string", "description": "the channel to post to (#name or its id)"},
            "message": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                        "description": "the text, when inputs do not give it"},
            "baseURL": {"type": "string", "description": f"Slack's address, the Web API under /api/ (default {SLACK_URL})"}},
            "required": ["post_channel"]},
        output={"type": "object", "description": "{} once the message is posted"},
        config=SERVICE_CONFIG,
        samples=(Sample(inputs={"message": ["Hello from GraphAI's Slack agent!", "(a second line)"]},
                        params={"post_channel": "#graphai"}, result={},
                        description="Posts two lines (to a stand-in of Slack's Web API on 127.0.0.1)."),),
        category=("net",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/slack_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/slack_agent/src/slack_agent.ts",
        package="@graphai/slack_agent",
        license="MIT",
        environment_variables=("SLACK_TOKEN",),
    ),
]
