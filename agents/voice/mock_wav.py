"""The voice mocks' audio: a WAV file of silence that carries the text it was made from.

ttsOpenaiAgent's mock makes one (8 kHz, 8-bit mono, 10 ms of silence per character, the text in
the RIFF INFO comment, `ICMT`); sttOpenaiAgent's mock reads the comment back, so that a graph
that speaks and then listens runs offline and gives its text back.
"""

from __future__ import annotations

import struct

__all__ = ["silent_wav", "wav_comment"]

_RATE = 8000
_SAMPLES_PER_CHARACTER = _RATE // 100


def _chunk(kind: bytes, data: bytes) -> bytes:
    return kind + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def silent_wav(text: str) -> bytes:
    """A WAV file of silence as long as `text` takes to say at 10 ms a character, `text` in its comment."""
    fmt = struct.pack("<HHIIHH", 1, 1, _RATE, _RATE, 1, 8)  # PCM, mono, 8 kHz, 8 bits
    info = _chunk(b"LIST", b"INFO" + _chunk(b"ICMT", text.encode() + b"\0"))
    body = b"WAVE" + _chunk(b"fmt ", fmt) + info + _chunk(b"data", b"\x80" * (_SAMPLES_PER_CHARACTER * len(text)))
    return _chunk(b"RIFF", body)


def wav_comment(data: bytes) -> str | None:
    """The INFO comment of a WAV file, or None (not a WAV file, or one without a comment)."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    position = 12
    while position + 8 <= len(data):
        kind, size = data[position:position + 4], struct.unpack("<I", data[position + 4:position + 8])[0]
        content = data[position + 8:position + 8 + size]
        if kind == b"LIST" and content[:4] == b"INFO":
            inner = 4
            while inner + 8 <= len(content):
                name, length = content[inner:inner + 4], struct.unpack("<I", content[inner + 4:inner + 8])[0]
                if name == b"ICMT":
                    return content[inner + 8:inner + 8 + length].rstrip(b"\0").decode(errors="replace")
                inner += 8 + length + length % 2
        position += 8 + size + size % 2
    return None
