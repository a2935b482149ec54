"""LazyPattern: compiled on first use, then the compiled pattern's own methods."""

import re

from graphrt.base.patterns import LazyPattern
from graphrt.base.secrets import SECRET_KEY


def test_nothing_is_compiled_before_first_use():
    pattern = LazyPattern(r"a+")
    assert "_compiled" not in pattern.__dict__
    assert pattern.search("baa").group() == "aa"
    assert isinstance(pattern.__dict__["_compiled"], re.Pattern)


def test_answers_as_the_compiled_pattern_does():
    source, flags = r"(?P<name>[a-z]+)=(\d+)", re.IGNORECASE
    lazy, compiled = LazyPattern(source, flags), re.compile(source, flags)
    text = "A=1, bb=22; CCC=333"
    assert lazy.search(text).groupdict() == compiled.search(text).groupdict()
    assert lazy.match(text, 4) is None and compiled.match(text, 4) is None
    assert lazy.match(text, 5).span() == compiled.match(text, 5).span()
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.sub(r"\2=\g<name>", text) == compiled.sub(r"\2=\g<name>", text)
    assert lazy.pattern == source and lazy.flags == compiled.flags
    assert lazy.compiled is lazy.compiled


def test_a_method_is_looked_up_once():
    pattern = LazyPattern("x")
    first = pattern.fullmatch
    assert pattern.__dict__["fullmatch"] == first  # kept on the instance: the next call skips __getattr__
    assert pattern.fullmatch("x") and not pattern.fullmatch("xx")


def test_dunder_lookups_are_not_forwarded():
    pattern = LazyPattern("x")
    assert not hasattr(pattern, "__len__")
    assert "_compiled" not in pattern.__dict__  # asking for a special name compiles nothing


def test_a_module_pattern_still_works_lazily():
    assert SECRET_KEY.search("db_password") and not SECRET_KEY.search("password_hint")
