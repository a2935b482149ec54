"""GraphAI's tokenBoundStringsAgent (@graphai/token_bound_string_agent): the leading chunks that fit a token budget.

As GraphAI's: chunks are added one by one while the tokens so far plus the next
chunk's (each chunk counted with a "\\n" after it, by cl100k_base) stay under
`params.limit` (5000); the chunk that reaches the limit is still included but
not counted, and the last chunk is never counted. The result is
`{content: the chunks joined by "\\n", tokenCount, endIndex: how many chunks}`.
graphrt adds `params.encoding` ("o200k_base" for the GPT-4o family).
"""

from __future__ import annotations

from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_null, js_number, js_string

from .encodings import ENCODINGS, encoding

__all__ = ["AGENTS", "token_bound_strings_agent"]

_DEFAULT_LIMIT = 5000


def token_bound_strings_agent(ctx: AgentContext) -> dict[str, Any]:
    """Joins the leading `inputs.chunks` (sorted by relevance) that fit `params.limit` tokens.

    Raises:
        TypeError: `inputs.chunks` is not an array.
        ValueError: a chunk holds a special token such as <|endoftext|> (as tiktoken refuses it), or an
            unknown `params.encoding`.
    """
    chunks = ctx.inputs.get("chunks", UNDEFINED)
    if not isinstance(chunks, list):
        raise TypeError(f"tokenBoundStringsAgent: inputs.chunks must be an array of strings, got {js_string(chunks)[:80]!r}")
    limit = ctx.params.get("limit")
    limit = _DEFAULT_LIMIT if is_null(limit) else js_number(limit)
    encoder = encoding(js_string(ctx.params.get("encoding") or "cl100k_base"))
    total, index = 0, 0
    while True:  # GraphAI's addNext, unrolled: its first call counts chunks[0] even when there is none
        chunk = chunks[index] if index < len(chunks) else UNDEFINED
        length = len(encoder.encode(js_string(chunk) + "\n"))
        if total + length < limit and index + 1 < len(chunks):
            total, index = total + length, index + 1
            continue
        end = index + 1
        break
    content = "\n".join("" if is_null(chunk) else js_string(chunk) for chunk in chunks[:end])
    return {"content": content, "tokenCount": total, "endIndex": end}


_CRAZY_ONES = [
    "Here's to the crazy ones. The misfits. The rebels. The troublemakers.",
    "The round pegs in the square holes. The ones who see things differently.",
    "They're not fond of rules. And they have no respect for the status quo.",
    "You can quote them, disagree with them, glorify or vilify them.",
    "About the only thing you can't do is ignore them.",
    "Because they change things.",
    "They push the human race forward.",
    "And while some may see them as the crazy ones, we see genius.",
    "Because the people who are crazy enough to think they can change the world, are the ones who do.",
]

token_bound_strings_agent_info = AgentInfo(
    name="tokenBoundStringsAgent",
    func=token_bound_strings_agent,
    description="token bound Agent",
    inputs={"type": "object", "properties": {"chunks": {"type": "array", "description": "an array of strings"}}},
    params={"type": "object", "properties": {
        "limit": {"type": "number", "description": "the largest token count (5000 by default)"},
        "encoding": {"type": "string", "enum": list(ENCODINGS),
                     "description": "graphrt's: the tokenizer's encoding (GraphAI's is cl100k_base)"},
    }},
    output={"type": "object", "properties": {
        "content": {"type": "string", "description": "token bound string"},
        "tokenCount": {"type": "number", "description": "token count"},
        "endIndex": {"type": "number", "description": "number of chunks"},
    }},
    samples=(Sample(
        inputs={"chunks": _CRAZY_ONES},
        params={"limit": 80},
        result={"content": "\n".join(_CRAZY_ONES[:6]), "tokenCount": 79, "endIndex": 6},
    ),),
    category=(),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/llm_agents/token_bound_string_agent/src/token_bound_string_agent.ts",
    package="@graphai/token_bound_string_agent",
    license="MIT",
)

AGENTS: list[AgentInfo] = [token_bound_strings_agent_info]
