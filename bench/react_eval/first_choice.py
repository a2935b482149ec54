"""The first-choice chooser: openAIAgent replaced by a stand-in that always takes the first choice it is given.

It shows what the model adds to the rules of examples/react_wiki: where the reply is held to a grammar
of alternatives (reactGrammarAgent's), it writes the first alternative at every choice and the fewest
characters a free part allows; where a tool is forced with an `enum` (reactToolSchemasAgent's), it
calls that tool with the first value. Without a grammar or an enum there is no choice to take (the
general graphs hold only the format): it then has no answer, and says so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graphrt_agents.llm.chat import ChatResult, conversation

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.jsvalue import defined

__all__ = ["first_choice_agent", "first_text", "CHOOSER"]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\](?:\{\d+(?:,\d*)?\}|[*+?])?|[()|]|[a-z][\w-]*')


def _rules(grammar: str) -> dict[str, str]:
    rules: dict[str, str] = {}
    name = None
    for line in grammar.splitlines():
        if "::=" in line:
            name, body = line.split("::=", 1)
            name = name.strip()
            rules[name] = body.strip()
        elif name:
            rules[name] += " " + line.strip()
    return rules


def first_text(grammar: str) -> str:
    """The text a grammar allows when every alternative is its first and every repetition its least."""
    rules = _rules(grammar)

    def expand(body: str, depth: int = 0) -> str:
        tokens = _TOKEN.findall(body)
        out, index = [], 0

        def sequence() -> str:
            nonlocal index
            parts = []
            while index < len(tokens) and tokens[index] not in ("|", ")"):
                token = tokens[index]
                index += 1
                if token == "(":
                    parts.append(group())
                elif token.startswith('"'):
                    parts.append(json.loads(token))
                elif token.startswith("["):
                    least = re.search(r"\{(\d+)", token)
                    count = int(least.group(1)) if least else (1 if token.endswith("+") or not token.endswith(("*", "?")) else 0)
                    parts.append("x" * count)
                elif depth < 8:
                    parts.append(expand(rules.get(token, ""), depth + 1))
            return "".join(parts)

        def group() -> str:
            nonlocal index
            first = sequence()
            level = 0
            while index < len(tokens):  # skip the other alternatives, to this group's ")"
                token = tokens[index]
                index += 1
                if token == "(":
                    level += 1
                elif token == ")":
                    if level == 0:
                        break
                    level -= 1
            return first

        out.append(sequence())
        return "".join(out)

    return expand(rules.get("root", ""))


async def first_choice_agent(ctx: AgentContext) -> dict[str, Any]:
    """Answers as openAIAgent would, taking the first choice of the grammar or of the forced tool's enum."""
    options = {**ctx.params, **defined(ctx.inputs)}
    messages = conversation(options, ctx)
    choice = options.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    message: dict[str, Any] = {"role": "assistant", "content": None}
    for tool in options.get("tools") or []:
        function = tool.get("function") or {}
        if forced and function.get("name") == forced:
            properties = (function.get("parameters") or {}).get("properties") or {}
            arguments = {key: (schema.get("enum") or [""])[0] for key, schema in properties.items()}
            message["tool_calls"] = [{"id": f"first_{len(messages)}", "type": "function",
                                      "function": {"name": forced, "arguments": json.dumps(arguments)}}]
    if "tool_calls" not in message:
        grammar = options.get("grammar")
        message["content"] = first_text(grammar) if isinstance(grammar, str) and grammar.strip() else "(no choice)"
    return ChatResult(message, messages, {"model": "first-choice"}).to_result()


CHOOSER = AgentInfo(name="openAIAgent", func=first_choice_agent, description="the first-choice chooser (bench)")
