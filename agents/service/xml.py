"""XML to JSON as fetchAgent's `type: xml` gives it: xml2js's `parseStringPromise(text, {explicitArray: false, mergeAttrs: true})`.

xml2js builds, for each element, an object of its attributes and child elements
(a name seen twice becomes an array), with its text under `_`; an element with
text only is that text, an empty one is its whitespace (usually ""), and the
root is wrapped in `{rootName: ...}`. Whitespace-only text next to children is
dropped; other text keeps its whitespace. A blank document is null.

Parsed with expat, which graphrt refuses to let expand entities declared in a
DTD (the "billion laughs"), as xml2js's sax parser never expands them either.
"""

from __future__ import annotations

import re
from typing import Any
from xml.parsers import expat

from graphrt.base.errors import AgentError

__all__ = ["parse_xml", "XmlError"]

_BLANK = re.compile(r"\s*")
_TEXT = "_"  # xml2js's charkey


class XmlError(AgentError, ValueError):
    """Raised when a response is not well-formed XML, or declares entities."""


class _Element:
    __slots__ = ("name", "fields", "text", "cdata")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, Any] = {}
        self.text = ""
        self.cdata = False


def _assign_or_push(fields: dict[str, Any], key: str, value: Any) -> None:
    """xml2js's assignOrPush without explicitArray: a second value of a key turns it into an array."""
    if key not in fields:
        fields[key] = value
    elif isinstance(fields[key], list):
        fields[key].append(value)
    else:
        fields[key] = [fields[key], value]


def _value(element: _Element) -> Any:
    """What xml2js makes of a closed element."""
    fields = element.fields
    blank_text = ""
    if _BLANK.fullmatch(element.text) and not element.cdata:
        blank_text = element.text
    else:
        if not fields:
            return element.text
        fields = {_TEXT: element.text, **fields} if _TEXT not in fields else fields
    return fields if fields else blank_text


def parse_xml(text: str) -> Any:
    """The JSON xml2js gives for `text` (explicitArray false, mergeAttrs true); None for a blank document.

    Raises:
        XmlError: the text is not well-formed XML, or it declares entities.
    """
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    stack: list[_Element] = []
    result: list[Any] = []
    parser = expat.ParserCreate()
    parser.ordered_attributes = True

    def start(name: str, attributes: list[str]) -> None:
        element = _Element(name)
        for key, value in zip(attributes[::2], attributes[1::2]):
            _assign_or_push(element.fields, key, value)
        stack.append(element)

    def end(name: str) -> None:
        element = stack.pop()
        value = _value(element)
        if stack:
            _assign_or_push(stack[-1].fields, name, value)
        else:
            result.append({name: value})

    def characters(data: str) -> None:
        if stack:
            stack[-1].text += data

    def cdata_start() -> None:
        if stack:
            stack[-1].cdata = True

    def refuse_entity(name: str, *_: Any) -> None:
        raise XmlError(f"the XML declares the entity {name!r}, which is not expanded (only the predefined ones are)")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartCdataSectionHandler = cdata_start
    parser.EntityDeclHandler = refuse_entity
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        raise XmlError(f"the response is not well-formed XML: {error}") from error
    return result[0] if result else None
