"""GraphAI's vanilla string agents: splitting, templates, JSON, case variants, console.

They follow the JavaScript originals closely, down to the quirks that change
results: UTF-16 string lengths, `String.prototype.replace` patterns such as `$&`,
JavaScript's whitespace set and its truthiness rules.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import (
    JS_WHITESPACE,
    UNDEFINED,
    is_logically_true,
    is_null,
    is_truthy,
    js_string,
    js_trim,
    json_stringify,
)
from graphrt.base.patterns import LazyPattern

from ._js import read_error

__all__ = [
    "AGENTS",
    "console_agent",
    "json_parser_agent",
    "string_case_variants_agent",
    "string_splitter_agent",
    "string_template_agent",
    "string_update_text_agent",
]

_log = logging.getLogger(__name__)

_META: dict[str, Any] = {
    "category": ("string",),
    "repository": "https://github.com/receptron/graphai",
    "package": "@graphai/vanilla",
}
_SOURCE = "https://github.com/receptron/graphai/blob/main/agents/vanilla_agents/src/string_agents/"

_WORD_BREAKS = LazyPattern(f"[{re.escape(JS_WHITESPACE)}_-]+")
_SPACE_RUNS = LazyPattern(f"[{re.escape(JS_WHITESPACE)}]+")


def _read_text(inputs: dict[str, Any], agent: str, member: str) -> str:
    """Returns `inputs.text`; a missing text fails with JavaScript's message for reading `member`."""
    text = inputs.get("text", UNDEFINED)
    if is_null(text):
        raise read_error(text, member)
    if not isinstance(text, str):
        raise TypeError(f"{agent}: namedInputs.text is not a string")
    return text


# --- stringSplitterAgent -------------------------------------------------------

_DEFAULT_CHUNK_SIZE = 2048


def _utf16_substring(units: bytes, start: float, end: float) -> str:
    """`String.prototype.substring` on UTF-16 code units (`units` is UTF-16-LE)."""
    length = len(units) // 2
    start, end = (min(max(0, math.trunc(x)), length) for x in (start, end))
    start, end = min(start, end), max(start, end)
    return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")


async def string_splitter_agent(ctx: AgentContext) -> dict[str, Any]:
    """Cuts a long text into overlapping chunks.

    The chunks let a long document go through embedding or an LLM piece by piece;
    the overlap keeps a sentence cut at a border readable in the next chunk.
    """
    source = _read_text(ctx.inputs, "stringSplitterAgent", "length")
    chunk_size = ctx.params.get("chunkSize")
    chunk_size = _DEFAULT_CHUNK_SIZE if is_null(chunk_size) else chunk_size
    overlap = ctx.params.get("overlap")
    overlap = math.floor(chunk_size / 8) if is_null(overlap) else overlap
    step = chunk_size - overlap
    units = source.encode("utf-16-le", "surrogatepass")  # JavaScript measures strings in UTF-16
    if step == 0:
        raise ValueError("Invalid array length")
    count = math.floor(len(units) // 2 / step) + 1
    if count < 0:
        raise ValueError("Invalid array length")
    contents = [_utf16_substring(units, i * step, i * step + chunk_size) for i in range(count)]
    return {"contents": contents, "count": count, "chunkSize": chunk_size, "overlap": overlap}


# --- stringTemplateAgent -------------------------------------------------------

_SPECIAL_REPLACEMENT = LazyPattern(r"\$([$&`'])")
_ARRAY_INDEX = LazyPattern(r"0|[1-9][0-9]*")


def _replace_first(text: str, pattern: str, replacement: str) -> str:
    """`text.replace(pattern, replacement)` for a string pattern, `$$ $& $\\` $'` included."""
    index = text.find(pattern)
    if index < 0:
        return text
    after = index + len(pattern)
    expansions = {"$": "$", "&": pattern, "`": text[:index], "'": text[after:]}
    expanded = _SPECIAL_REPLACEMENT.sub(lambda m: expansions[m.group(1)], replacement)
    return text[:index] + expanded + text[after:]


def _fill(template: Any, placeholder: str, value: Any) -> Any:
    """Puts `value` in for `placeholder` throughout a template of strings, lists and dicts.

    A string that is exactly the placeholder becomes the value itself (of any type);
    elsewhere the first occurrence in each string is replaced by the value's text.
    """
    if isinstance(template, str):
        if template == placeholder:
            return value
        return _replace_first(template, placeholder, js_string(value))
    if isinstance(template, (list, tuple)):
        return [_fill(item, placeholder, value) for item in template]
    if isinstance(template, dict):
        return {key: _fill(item, placeholder, value) for key, item in template.items()}
    return template


def _js_key_order(keys: list[str]) -> list[str]:
    """Orders keys like `Object.keys`: array indices first, ascending, then the rest as given."""
    indices = sorted((k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1), key=int)
    return indices + [k for k in keys if k not in indices]


async def string_template_agent(ctx: AgentContext) -> Any:
    """Fills `${name}` placeholders in `params.template` with the named inputs.

    This builds prompts, messages and even graph data from other nodes' results;
    the template keeps its shape (string, list or dict) in the result.
    """
    template = ctx.params.get("template", UNDEFINED)
    if template is UNDEFINED:
        text = ctx.inputs.get("text")
        if is_truthy(text):
            return text
        _log.warning("stringTemplateAgent: no template")
    for key in _js_key_order(list(ctx.inputs)):
        template = _fill(template, "${" + key + "}", ctx.inputs[key])
    return template


# --- jsonParserAgent -----------------------------------------------------------

_CODE_BLOCK = LazyPattern(r"\n```[a-zA-Z]*([\s\S]*?)\n```")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _js_int(digits: str) -> int | float:
    """An integer literal as JavaScript reads it: a double once past 2**53."""
    number = int(digits)
    return number if abs(number) <= 2**53 else float(number)


def _json_parse(text: str) -> Any:
    """`JSON.parse`: strict JSON (no NaN or Infinity), every number a double."""
    return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)


async def json_parser_agent(ctx: AgentContext) -> dict[str, Any]:
    """Turns `data` into pretty JSON text, or parses JSON `text` into `data`.

    LLMs often wrap JSON in a Markdown code block, so the first fenced block is
    parsed when there is one.
    """
    data = ctx.inputs.get("data")
    if is_truthy(data):
        return {"text": json_stringify(data, indent=2)}
    text = ctx.inputs.get("text", UNDEFINED)
    block = _CODE_BLOCK.search("\n" + js_string(text))
    if block:
        return {"data": _json_parse(block.group(1))}
    return {"data": _json_parse("" if is_null(text) else js_string(text))}


# --- stringCaseVariantsAgent ---------------------------------------------------


def _capitalize(word: str) -> str:
    """`word.charAt(0).toUpperCase() + word.slice(1)`; charAt sees half of an astral character."""
    if not word or ord(word[0]) > 0xFFFF:
        return word
    return word[0].upper() + word[1:]


async def string_case_variants_agent(ctx: AgentContext) -> dict[str, str]:
    """Spells a phrase in lowerCamelCase, snake_case, kebab-case and normalised form.

    Generated code and file names need one phrase in several spellings; an
    optional `params.suffix` word is added unless the phrase already ends with it.
    """
    text = _read_text(ctx.inputs, "stringCaseVariantsAgent", "trim")
    words = _WORD_BREAKS.sub(" ", js_trim(text)).lower().split(" ")
    suffix = ctx.params.get("suffix")
    if is_truthy(suffix) and words[-1] != suffix:
        if not isinstance(suffix, str):
            raise TypeError("word.charAt is not a function")
        words.append(suffix)
    normalized = " ".join(words)
    return {
        "lowerCamelCase": words[0] + "".join(_capitalize(word) for word in words[1:]),
        "snakeCase": _SPACE_RUNS.sub("_", normalized),
        "kebabCase": _SPACE_RUNS.sub("-", normalized),
        "normalized": normalized,
    }


# --- stringUpdateTextAgent -----------------------------------------------------


def _drop_nulls(value: Any) -> Any:
    """Removes null and undefined from lists and dicts, at any depth (GraphAI's anyInput cleanup)."""
    if isinstance(value, (list, tuple)):
        return [item for item in map(_drop_nulls, value) if not is_null(item)]
    if isinstance(value, dict):
        cleaned = {key: _drop_nulls(item) for key, item in value.items()}
        return {key: item for key, item in cleaned.items() if not is_null(item)}
    return value


async def string_update_text_agent(ctx: AgentContext) -> Any:
    """Returns `newText` when it is set and not empty, otherwise `oldText` (both default to "").

    GraphAI builds this agent from a small nested graph (if/unless and anyInput
    nodes). This computes what that graph gives: its anyInput nodes drop nulls
    from the text, and its last node never runs, so there is no result, when
    the chosen text is null or an empty list.
    """
    # The nested graph's static nodes hold "" unless an input gives them a value (undefined gives none).
    new_text, old_text = (ctx.inputs.get(key, UNDEFINED) for key in ("newText", "oldText"))
    new_text = "" if new_text is UNDEFINED else new_text
    old_text = "" if old_text is UNDEFINED else old_text
    chosen = _drop_nulls(new_text if is_logically_true(new_text) else old_text)
    if is_null(chosen) or chosen == []:
        return UNDEFINED
    return {"text": chosen}


# --- consoleAgent --------------------------------------------------------------

_IDENTIFIER = LazyPattern(r"[A-Za-z_][A-Za-z_0-9]*")
_INSPECT_DEPTH = 2


def _quote(text: str) -> str:
    """A string as Node's `util.inspect` quotes it: single quotes unless the text has one."""
    quote = "'" if "'" not in text else '"' if '"' not in text else "`" if "`" not in text else "'"
    escaped = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return quote + escaped.replace(quote, "\\" + quote) + quote


def _inspect_key(key: str) -> str:
    return key if _IDENTIFIER.fullmatch(key) else _quote(key)


def _inspect(value: Any, depth: int = 0) -> str:
    """A one-line approximation of Node's `util.inspect`, which console.info uses for non-strings."""
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, (list, tuple)):
        if depth > _INSPECT_DEPTH:
            return "[Array]"
        return "[ " + ", ".join(_inspect(item, depth + 1) for item in value) + " ]" if value else "[]"
    if isinstance(value, dict):
        if depth > _INSPECT_DEPTH:
            return "[Object]"
        entries = [f"{_inspect_key(key)}: {_inspect(item, depth + 1)}" for key, item in value.items()]
        return "{ " + ", ".join(entries) + " }" if entries else "{}"
    return js_string(value)


async def console_agent(ctx: AgentContext) -> dict[str, Any]:
    """Prints `inputs.text` to stdout and passes it on as `{text}`.

    A quick way to watch a value go by while a graph runs.
    """
    text = ctx.inputs.get("text", UNDEFINED)
    print(text if isinstance(text, str) else _inspect(text))
    return {"text": text}


# --- function info -------------------------------------------------------------

_CRAZY_ONES = (
    "Here's to the crazy ones, the misfits, the rebels, the troublemakers, the round pegs in the square holes ... "
    "the ones who see things differently -- they're not fond of rules, and they have no respect for the status quo. "
    "... You can quote them, disagree with them, glorify or vilify them, but the only thing you can't do is ignore "
    "them because they change things. ... They push the human race forward, and while some may see them as the "
    "crazy ones, we see genius, because the people who are crazy enough to think that they can change the world, "
    "are the ones who do."
)
_CRAZY_ONES_CHUNKS = [
    "Here's to the crazy ones, the misfits, the rebels, the troublema",
    "roublemakers, the round pegs in the square holes ... the ones wh",
    " ones who see things differently -- they're not fond of rules, a",
    "rules, and they have no respect for the status quo. ... You can ",
    "You can quote them, disagree with them, glorify or vilify them, ",
    "y them, but the only thing you can't do is ignore them because t",
    "ecause they change things. ... They push the human race forward,",
    "forward, and while some may see them as the crazy ones, we see g",
    "we see genius, because the people who are crazy enough to think ",
    "o think that they can change the world, are the ones who do.",
    " do.",
]

STRING_SPLITTER_AGENT = AgentInfo(
    name="stringSplitterAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=string_splitter_agent,
    description="This agent strip one long string into chunks using following parameters",
    inputs={
        "type": "object",
        "properties": {"text": {"type": "string", "description": "text to be chuncked"}},
        "required": ["text"],
    },
    output={
        "type": "object",
        "properties": {
            "contents": {"type": "array", "description": "the array of text chunks"},
            "count": {"type": "number", "description": "the number of chunks"},
            "chunkSize": {"type": "number", "description": "the chunk size"},
            "overlap": {"type": "number", "description": "the overlap size"},
        },
    },
    samples=(
        Sample(
            inputs={"text": _CRAZY_ONES},
            params={"chunkSize": 64},
            result={"contents": _CRAZY_ONES_CHUNKS, "count": 11, "chunkSize": 64, "overlap": 8},
        ),
    ),
    author="Satoshi Nakajima",
    source=_SOURCE + "string_splitter_agent.ts",
    license="MIT",
    **_META,
)

_MESSAGES = {"message1": "hello", "message2": "test"}
_STRING_LIST = {"type": "array", "items": {"type": "string"}}

STRING_TEMPLATE_AGENT = AgentInfo(
    name="stringTemplateAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=string_template_agent,
    description="Template agent",
    inputs={
        "type": "object",
        "description": "Key-value pairs where each key corresponds to a variable used in the template (e.g., ${key}).",
        "additionalProperties": {
            "type": ["string", "number", "boolean", "object", "array", "null"],
            "description": "Any value to be substituted into the template. "
            "Objects and arrays are injected directly if the entire field is a placeholder.",
        },
    },
    params={
        "type": "object",
        "description": "The template to apply substitutions to. "
        "Supports strings, arrays, and deeply nested object structures with placeholder strings.",
        "properties": {
            "template": {
                "description": "The template structure where placeholders like ${key} will be replaced "
                "with values from 'inputs'.",
                "anyOf": [
                    {"type": "string"},
                    {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                {"type": "string"},
                                {
                                    "type": "object",
                                    "additionalProperties": {"anyOf": [{"type": "string"}, _STRING_LIST]},
                                },
                            ]
                        },
                    },
                    {
                        "type": "object",
                        "additionalProperties": {
                            "anyOf": [
                                {"type": "string"},
                                _STRING_LIST,
                                {"type": "object", "additionalProperties": True},
                            ]
                        },
                    },
                ],
            }
        },
        "required": ["template"],
        "additionalProperties": False,
    },
    output={
        "description": "The result after placeholder substitution, matching the structure and type of the "
        "original template.",
        "anyOf": [
            {"type": "string"},
            {
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": True}]},
            },
            {"type": "object", "additionalProperties": True},
        ],
    },
    samples=(
        Sample(inputs=_MESSAGES, params={"template": "${message1}: ${message2}"}, result="hello: test"),
        Sample(
            inputs=_MESSAGES,
            params={"template": ["${message1}: ${message2}", "${message2}: ${message1}"]},
            result=["hello: test", "test: hello"],
        ),
        Sample(
            inputs=_MESSAGES,
            params={"template": {"apple": "${message1}", "lemon": "${message2}"}},
            result={"apple": "hello", "lemon": "test"},
        ),
        Sample(
            inputs=_MESSAGES,
            params={"template": [{"apple": "${message1}", "lemon": "${message2}"}]},
            result=[{"apple": "hello", "lemon": "test"}],
        ),
        Sample(
            inputs=_MESSAGES,
            params={"template": {"apple": "${message1}", "lemon": ["${message2}"]}},
            result={"apple": "hello", "lemon": ["test"]},
        ),
        Sample(
            inputs={"agent": "openAiAgent", "row": "hello world", "params": {"text": "message"}},
            params={
                "template": {
                    "version": 0.5,
                    "nodes": {
                        "ai": {
                            "agent": "${agent}",
                            "isResult": True,
                            "params": "${params}",
                            "inputs": {"prompt": "${row}"},
                        }
                    },
                }
            },
            result={
                "nodes": {
                    "ai": {
                        "agent": "openAiAgent",
                        "inputs": {"prompt": "hello world"},
                        "isResult": True,
                        "params": {"text": "message"},
                    }
                },
                "version": 0.5,
            },
        ),
    ),
    author="Satoshi Nakajima",
    source=_SOURCE + "string_template_agent.ts",
    cache_type="pureAgent",
    license="MIT",
    **_META,
)

_FRUIT_COLORS = {"apple": "red", "lemon": "yellow"}
_JSON_DATA_SCHEMA = [{"type": "object"}, {"type": "array"}, {"type": "string"}, {"type": "number"}]


def _fenced(language: str) -> str:
    return "\n".join(["```" + language, json_stringify(_FRUIT_COLORS), "```"])


JSON_PARSER_AGENT = AgentInfo(
    name="jsonParserAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=json_parser_agent,
    # GraphAI's says "Template agent", a copy slip from stringTemplateAgent.
    description="Parses JSON text (fenced code blocks too) into data, or writes data as JSON text",
    inputs={
        "type": "object",
        "description": "The input object containing either a JSON string in 'text' or a raw JavaScript object in "
        "'data'. One of them is required.",
        "properties": {
            "text": {
                "type": "string",
                "description": "A JSON string, possibly embedded in a Markdown code block. "
                "If provided, it will be parsed into a data object.",
            },
            "data": {
                "anyOf": _JSON_DATA_SCHEMA,
                "description": "Raw data to be converted into a formatted JSON string in the 'text' output.",
            },
        },
        "required": [],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "No parameters are required for this agent.",
        "properties": {},
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "description": "Returns either a parsed data object (from 'text') or a formatted JSON string (from 'data').",
        "properties": {
            "text": {
                "type": "string",
                "description": "A pretty-printed JSON string generated from the 'data' input, if provided.",
            },
            "data": {
                "anyOf": _JSON_DATA_SCHEMA,
                "description": "Parsed data object from the 'text' input, or the original 'data' if no parsing "
                "was required.",
            },
        },
        "required": [],
        "additionalProperties": False,
    },
    samples=(
        Sample(inputs={"data": _FRUIT_COLORS}, params={}, result={"text": json_stringify(_FRUIT_COLORS, indent=2)}),
        Sample(inputs={"text": json_stringify(_FRUIT_COLORS, indent=2)}, params={}, result={"data": _FRUIT_COLORS}),
        Sample(inputs={"text": _fenced("")}, params={}, result={"data": _FRUIT_COLORS}),
        Sample(inputs={"text": _fenced("json")}, params={}, result={"data": _FRUIT_COLORS}),
        Sample(inputs={"text": _fenced("JSON")}, params={}, result={"data": _FRUIT_COLORS}),
    ),
    author="Satoshi Nakajima",
    source=_SOURCE + "json_parser_agent.ts",
    license="MIT",
    **_META,
)

STRING_CASE_VARIANTS_AGENT = AgentInfo(
    name="stringCaseVariantsAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=string_case_variants_agent,
    description="Format String Cases agent",
    inputs={
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The input string to be transformed into various casing styles."}
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "properties": {
            "suffix": {
                "type": "string",
                "description": "An optional suffix to append to the input string before transforming cases.",
            }
        },
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "properties": {
            "kebabCase": {
                "type": "string",
                "description": "The input string converted to kebab-case (e.g., 'this-is-a-pen').",
            },
            "snakeCase": {
                "type": "string",
                "description": "The input string converted to snake_case (e.g., 'this_is_a_pen').",
            },
            "lowerCamelCase": {
                "type": "string",
                "description": "The input string converted to lowerCamelCase (e.g., 'thisIsAPen').",
            },
            "normalized": {
                "type": "string",
                "description": "The original string, optionally appended with the suffix, in lowercase with "
                "normalized spacing.",
            },
        },
        "required": ["kebabCase", "snakeCase", "lowerCamelCase", "normalized"],
        "additionalProperties": False,
    },
    samples=(
        Sample(
            inputs={"text": "this is a pen"},
            params={},
            result={
                "kebabCase": "this-is-a-pen",
                "lowerCamelCase": "thisIsAPen",
                "normalized": "this is a pen",
                "snakeCase": "this_is_a_pen",
            },
        ),
        Sample(
            inputs={"text": "string case variants"},
            params={"suffix": "agent"},
            result={
                "kebabCase": "string-case-variants-agent",
                "lowerCamelCase": "stringCaseVariantsAgent",
                "normalized": "string case variants agent",
                "snakeCase": "string_case_variants_agent",
            },
        ),
    ),
    author="Receptron team",
    source=_SOURCE + "string_case_variants_agent.ts",
    license="MIT",
    **_META,
)

# GraphAI leaves this agent's metadata (description, category, author, license) empty. It sets
# hasGraphData there because it runs a nested graph; this port computes the result directly.
STRING_UPDATE_TEXT_AGENT = AgentInfo(
    name="stringUpdateTextAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=string_update_text_agent,
    description="",
    inputs={
        "type": "object",
        "properties": {
            "newText": {"type": "string", "description": "The new text to use if provided and not empty."},
            "oldText": {
                "type": "string",
                "description": "The fallback text used if 'newText' is empty or not provided.",
            },
        },
        "additionalProperties": False,
    },
    params={
        "type": "object",
        "description": "No parameters are used in this agent.",
        "properties": {},
        "additionalProperties": False,
    },
    output={
        "type": "object",
        "properties": {
            "text": {
                "type": "string",
                "description": "The resulting text. It is either the value of 'newText' if non-empty, otherwise "
                "'oldText', or an empty string if both are missing.",
            }
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    samples=(
        Sample(inputs={"newText": "new", "oldText": "old"}, params={}, result={"text": "new"}),
        Sample(inputs={"newText": "", "oldText": "old"}, params={}, result={"text": "old"}),
        Sample(inputs={}, params={}, result={"text": ""}),
        Sample(inputs={"oldText": "old"}, params={}, result={"text": "old"}),
    ),
    source=_SOURCE + "string_update_text_agent.ts",
    package="@graphai/vanilla",
)

CONSOLE_AGENT = AgentInfo(
    name="consoleAgent",
    runs_local=True,  # pure and quick: a trip to a cluster worker would cost more than the call
    func=console_agent,
    description="Just text to console.info",
    inputs={"type": "object", "properties": {"text": {"type": "string", "description": "text"}}},
    output={"type": "object", "properties": {"text": {"type": "string", "description": "text"}}},
    samples=(Sample(inputs={"text": "hello"}, params={}, result={"text": "hello"}),),
    author="Receptron team",
    source=_SOURCE + "console_agent.ts",
    license="MIT",
    **_META,
)

AGENTS: list[AgentInfo] = [
    STRING_SPLITTER_AGENT,
    STRING_TEMPLATE_AGENT,
    JSON_PARSER_AGENT,
    STRING_CASE_VARIANTS_AGENT,
    STRING_UPDATE_TEXT_AGENT,
    CONSOLE_AGENT,
]
