"""fetchAgent's XML: what xml2js (explicitArray false, mergeAttrs true) makes of a document."""

from __future__ import annotations

import pytest
from graphrt_agents.service.xml import XmlError, parse_xml


@pytest.mark.parametrize(("xml", "json"), [
    ("<a>text</a>", {"a": "text"}),
    ("<a/>", {"a": ""}),
    ("<a>  </a>", {"a": "  "}),
    ('<a x="1" y="2"/>', {"a": {"x": "1", "y": "2"}}),
    ('<a x="1">text</a>', {"a": {"_": "text", "x": "1"}}),
    ("<a><b>1</b><b>2</b><c/></a>", {"a": {"b": ["1", "2"], "c": ""}}),
    ("<a>\n  <b>1</b>\n</a>", {"a": {"b": "1"}}),
    ("<a>hi<b/>there</a>", {"a": {"_": "hithere", "b": ""}}),
    ("<a><![CDATA[ ]]></a>", {"a": " "}),
    ("<a>&lt;&amp;&#65;</a>", {"a": "<&A"}),
    ('<atom:feed xmlns:atom="http://www.w3.org/2005/Atom"><atom:id>7</atom:id></atom:feed>',
     {"atom:feed": {"xmlns:atom": "http://www.w3.org/2005/Atom", "atom:id": "7"}}),
    ("\ufeff<a>bom</a>", {"a": "bom"}),
    ("   ", None),
])
def test_xml_becomes_what_xml2js_makes_of_it(xml: str, json: object) -> None:
    assert parse_xml(xml) == json


def test_xml_that_is_not_well_formed_is_an_error() -> None:
    with pytest.raises(XmlError, match="^the response is not well-formed XML: mismatched tag"):
        parse_xml("<a><b></a>")


def test_entities_declared_in_a_dtd_are_refused_not_expanded() -> None:
    laughs = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><l>&lol2;</l>'
    with pytest.raises(XmlError, match="declares the entity 'lol'"):
        parse_xml(laughs)
