"""Credentials found and hidden in one place (graphrt/base/secrets.py): one mask, and every pass linear in its text."""

from __future__ import annotations

import re
from typing import Any

import pytest

from graphrt.base import secrets
from graphrt.base.secrets import MASK, SECRET_KEY, Redactor, credentials, hide_credentials, is_mask


@pytest.mark.parametrize(("text", "hidden"), [
    ("https://me:hunter2@host/v1", "https://me:REDACTED@host/v1"),
    ("postgresql://u:p@ss@db.local:5432/runs", "postgresql://u:REDACTED@db.local:5432/runs"),  # up to the last '@'
    ("https://:pw@host", "https://:REDACTED@host"),
    ("postgresql://u@h/db?password=s3cret&sslmode=require", "postgresql://u@h/db?password=REDACTED&sslmode=require"),
    ("GET /v1?api_key=k-123&q=tea#top", "GET /v1?api_key=REDACTED&q=tea#top"),
    ("https://h/cb?access_token=abc.def&X-Api-Key=K", "https://h/cb?access_token=REDACTED&X-Api-Key=REDACTED"),
    ("host=db user=me password='two words' dbname=x", "host=db user=me password='REDACTED' dbname=x"),
    ("401 for Authorization: Bearer abcdefgh12345 at /v1", "401 for Authorization: Bearer REDACTED at /v1"),
    ("the key sk-abcdefghijklmnopqrstuvwx was refused", "the key REDACTED was refused"),
    ("https://u:a&token=b@h/", "https://u:REDACTED@h/"),  # overlapping finds: the first one is kept
])
def test_a_credential_is_replaced_by_the_mask_and_the_words_around_it_stay(text: str, hidden: str) -> None:
    assert hide_credentials(text) == hidden


@pytest.mark.parametrize("text", [
    "https://host/path?page=2&sort=name", "ssh://git@github.com/o/r", "http://[::1]:8080/x", "https://me:@host",
    "max_tokens=5 tokens=7", "token=", "Bearer short", "task-abcdefghijklmnopqrstuvwx", "sk-short", "a" * 100,
])
def test_text_without_a_credential_is_unchanged(text: str) -> None:
    assert hide_credentials(text) == text
    assert credentials(text) == []


def test_credentials_are_what_the_mask_replaces() -> None:
    text = "https://me:pw1@h/?token=t2 Authorization: Bearer abcdefgh3 sk-abcdefghijklmnop4"
    assert credentials(text) == ["pw1", "t2", "abcdefgh3", "sk-abcdefghijklmnop4"]


def test_every_secret_name_is_found_before_an_equals_sign() -> None:
    # The key names and the names in text are one vocabulary.
    for name in secrets._SECRET_NAMES:
        assert SECRET_KEY.search(f"db_{name.upper()}")
        assert credentials(f"?db_{name.upper()}=v1") == ["v1"], name


def test_the_mask_is_one_plain_word_and_older_masks_are_recognised() -> None:
    assert MASK == "REDACTED"
    assert is_mask("REDACTED") and is_mask("[redacted]")  # checkpoints saved by an earlier graphrt
    assert not is_mask("redacted") and not is_mask(None)


def test_the_redactor_hides_the_environments_secrets_and_secret_keys() -> None:
    redactor = Redactor(environ={"MY_SERVICE_TOKEN": "tok-3f9a8b7c6d", "PATH": "/usr/bin:/bin", "SHORT_KEY": "1"})
    value = {"apiKey": "x", "note": "used tok-3f9a8b7c6d with 1", "url": "https://me:pw@h", "n": [1, float("inf")]}
    assert redactor.value(value) == {"apiKey": "REDACTED", "note": "used REDACTED with 1",
                                     "url": "https://me:REDACTED@h", "n": [1, None]}


def test_a_redactor_gives_the_same_answer_for_a_text_it_has_seen_and_keeps_no_credential() -> None:
    """It remembers short clean texts (a server redacts the same ids in every event): a text redacted again,
    after thousands of others, reads as the first time; one that held a credential is never remembered."""
    import enum

    class Kind(str, enum.Enum):
        DONE = "done"

    redactor = Redactor(environ={"MY_SERVICE_TOKEN": "tok-3f9a8b7c6d"})
    texts = ["run-1", "https://me:pw@h", "used tok-3f9a8b7c6d", "Bearer abcdefgh12345", "x" * 300]
    first = [redactor.text(text) for text in texts]
    for number in range(secrets._CLEAN_COUNT * 2):  # past the bound: it starts again
        redactor.text(f"node-{number}")
    assert [redactor.text(text) for text in texts] == first == [
        "run-1", "https://me:REDACTED@h", "used REDACTED", "Bearer REDACTED", "x" * 300]
    assert all(MASK not in text and "tok-" not in text and "pw@" not in text for text in redactor._clean)
    assert redactor.value(Kind.DONE) is Kind.DONE and redactor.value(Kind.DONE) is Kind.DONE  # not a plain str
    assert redactor.value({"token": "a", "token2": "b", 1: "c"}) == {"token": MASK, "token2": "b", "1": "c"}
    assert redactor.value({"token": "a", "token2": "b"}) == {"token": MASK, "token2": "b"}  # the keys, remembered


# ----- linear work -----


class _Counting:
    """A compiled pattern that adds to `work` the characters each search passes or each match reads."""

    def __init__(self, pattern: re.Pattern[str], work: list[int]) -> None:
        self.pattern, self.work = pattern, work

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.search(text, pos)
        self.work[0] += (found.end() if found else len(text)) - pos + 1
        return found

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.match(text, pos)
        self.work[0] += (found.end() if found else pos) - pos + 1
        return found


def _work(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """What hide_credentials reads in `text`, counted in characters; it also checks that counting changes nothing.

    Every pattern of the module is wrapped. Each is a literal (or "=" with a bounded
    look back) searched forward, or a possessive run of one character class, which
    reads each character once and never backtracks: so the count is the work, up to
    a constant. Not counted, as plain single passes: `str.lower`, the `in` tests that skip
    a finder whose anchor is absent, and a URL's `rfind("@")` and `find(":")`, which read
    only what `_AUTHORITY` read.
    """
    expected = hide_credentials(text)
    work = [0]
    with monkeypatch.context() as patch:
        for name, value in vars(secrets).items():
            if isinstance(value, re.Pattern) and name.startswith("_") and name != "_SECRET_ENV":
                patch.setattr(secrets, name, _Counting(value, work))
        patch.setattr(secrets, "_QUOTED", {quote: _Counting(run, work) for quote, run in secrets._QUOTED.items()})
        assert hide_credentials(text) == expected
    return work[0]


HOSTILE = {  # each repeated up to a megabyte
    "letters": "x", "letters with capitals": "aB", "prose": "the quick brown fox jumps. ",
    "URL anchors": "a://", "URLs without a password": "a://b:c/", "authorities": "a://user:pass", "at signs": "@",
    "colons": ":", "equals signs": "=", "names without a value": "token=&", "names with values": "token=", "names": "e=",
    "tokens": "bearer ",
    "short tokens": "bearer abc ", "keys": "sk-", "short keys": "sk-abc ", "a dotted capital I": "İ token=",
    "everything": "https://me:pw@h/?token=t&api_key= Bearer abcdefgh12 sk-abcdefghijklmnopq ",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_hiding_credentials_reads_each_character_a_bounded_number_of_times(unit: str, monkeypatch) -> None:
    small = unit * (65_536 // len(unit))
    large = unit * (1_048_576 // len(unit))

    work_small, work_large = _work(small, monkeypatch), _work(large, monkeypatch)

    assert work_large <= 10 * len(large)  # four finders, each one forward pass, and the runs they read
    assert work_large <= 17 * work_small + 17  # 16 times the text: 16 times the work (a quadratic pass: 256 times)


def test_a_megabyte_of_letters_is_returned_as_it_is() -> None:
    text = "x" * 1_048_576
    assert hide_credentials(text) is text
    assert Redactor(environ={}).text(text) is text


STREAMED = ("keys: tok-3f9a8b7c6d and cfg-key-7d1e9a0b, not tok-3f9a8b7 nor cfg-key-7d1e9a0; "
            "tok-3f9a8b7c6dcfg-key-7d1e9a0b")


@pytest.mark.parametrize("size", [1, 2, 3, 7, 500])
def test_a_text_streamed_in_pieces_is_shown_without_a_known_credential_however_it_is_cut(size: int) -> None:
    redactor = Redactor(environ={"MY_SERVICE_TOKEN": "tok-3f9a8b7c6d"}, known=["cfg-key-7d1e9a0b"])
    for offset in range(size):  # every place a cut can fall
        pieces = [STREAMED[:offset], *(STREAMED[at:at + size] for at in range(offset, len(STREAMED), size))]
        stream = redactor.stream()
        shown = [stream.feed(piece) for piece in pieces] + [stream.end()]
        assert "".join(shown) == redactor.data(STREAMED) == (
            "keys: REDACTED and REDACTED, not tok-3f9a8b7 nor cfg-key-7d1e9a0; REDACTEDREDACTED")
        assert all("tok-3f9a8b7c6d" not in "".join(shown[:count]) for count in range(len(shown) + 1))


def test_a_stream_holds_back_only_what_may_begin_a_known_credential() -> None:
    stream = Redactor(environ={}, known=["cfg-key-7d1e9a0b"]).stream()
    pieces = ["no key here", " but cf", "g-key-7d1e", "ss", " and cfg-key-7d1e9a0b."]
    assert [stream.feed(piece) for piece in pieces] == ["no key here", " but ", "", "cfg-key-7d1ess", " and REDACTED."]
    assert stream.feed("c") == "" and stream.end() == "c" and stream.end() == ""
    assert Redactor(environ={}).stream().feed("cfg-key-7d1e") == "cfg-key-7d1e"  # it knows none: nothing waits


def test_a_redactor_knowing_a_runs_credentials_hides_them_and_the_environments() -> None:
    server = Redactor(environ={"MY_SERVICE_TOKEN": "tok-3f9a8b7c6d"})
    run = server.knowing(["cfg-key-7d1e9a0b"])
    assert run.text("tok-3f9a8b7c6d and cfg-key-7d1e9a0b") == "REDACTED and REDACTED"
    assert server.text("cfg-key-7d1e9a0b") == "cfg-key-7d1e9a0b"  # the server's own is left as it was
    assert server.knowing([]) is server and server.knowing(["tok-3f9a8b7c6d"]) is server


@pytest.mark.parametrize("made", [Redactor, Redactor.now], ids=["new", "now"])
def test_a_redactor_knows_the_environment_as_it_is_when_made(monkeypatch: pytest.MonkeyPatch, made: Any) -> None:
    """Each redactor reads the environment anew (every checkpointed run asks for one, `Redactor.now`): a secret set,
    changed or named after an earlier redactor was made is known, one removed is not; only the names' matching, and
    `now`'s redactor of the same credentials, are kept."""
    monkeypatch.setenv("GRAPHRT_TEST_TOKEN", "first-secret-value")
    assert made().text("a first-secret-value b") == f"a {MASK} b"
    assert made(known=["known-secret-value"]).text("known-secret-value first-secret-value") == f"{MASK} {MASK}"
    monkeypatch.setenv("GRAPHRT_TEST_TOKEN", "second-secret-value")
    monkeypatch.setenv("GRAPHRT_OTHER_API_KEY", "third-secret-value")
    monkeypatch.setenv("GRAPHRT_TEST_PLAIN", "not-a-secret-value")
    redactor = made()
    assert redactor.text("first-secret-value second-secret-value third-secret-value not-a-secret-value") == \
        f"first-secret-value {MASK} {MASK} not-a-secret-value"
    assert made().text("known-secret-value") == "known-secret-value"  # known to the run that gave it alone
    monkeypatch.delenv("GRAPHRT_OTHER_API_KEY")
    assert made().text("third-secret-value") == "third-secret-value"
    monkeypatch.setenv("GRAPHRT_TEST_TOKEN", "second-secret-VALUE")  # the same name and length, another value
    assert made().text("second-secret-value second-secret-VALUE") == f"second-secret-value {MASK}"
