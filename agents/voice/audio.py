"""Audio a node gives sttOpenaiAgent: its bytes, and a file name whose extension says the format.

GraphAI's agent takes an `fs.ReadStream`, whose path names the file. In graphrt the audio is
what fileReadAgent gives: an open binary file (`outputType: stream`) or the bytes (a Buffer).
OpenAI tells the format by the name's extension, so a file without a usable name is named
by its first bytes. It is read once, so that a retry sends it again, and closed, as GraphAI's
stream closes its file once read (the node's result keeps the file object, not the descriptor).
A path is never opened: files are read by the file agents, which stay in their base folder.
"""

from __future__ import annotations

import io
import os
from typing import Any

__all__ = ["audio_upload", "audio_format"]

_SIGNATURES = (  # (offset, bytes, extension): the formats OpenAI's transcriptions take
    (0, b"ID3", "mp3"), (0, b"\xff\xfb", "mp3"), (0, b"\xff\xf3", "mp3"), (0, b"\xff\xf2", "mp3"),
    (0, b"fLaC", "flac"), (0, b"OggS", "ogg"), (0, b"\x1aE\xdf\xa3", "webm"), (4, b"ftyp", "m4a"),
)


def audio_format(data: bytes) -> str | None:
    """The extension of the audio format `data` starts like (wav, mp3, flac, ogg, webm, m4a), or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    for offset, signature, extension in _SIGNATURES:
        if data[offset:offset + len(signature)] == signature:
            return extension
    return None


def audio_upload(value: Any, agent: str, field: str) -> tuple[str, bytes]:
    """`value` as a file to upload: its name and bytes.

    Raises:
        TypeError: `value` is neither bytes nor an open binary file.
    """
    name = None
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    elif isinstance(value, io.IOBase):
        try:
            data = value.read()
        finally:
            value.close()  # read to its end, as GraphAI's fs.ReadStream, which then closes its file
        if not isinstance(data, bytes):
            raise TypeError(f"{agent}: {field} must be audio: a file opened in binary mode, not in text mode")
        name = value.name if isinstance(getattr(value, "name", None), str) else None
    else:
        raise TypeError(f"{agent}: {field} must be audio: an open binary file (fileReadAgent with outputType "
                        f"'stream') or its bytes, got {type(value).__name__}")
    if name and os.path.splitext(name)[1]:
        return os.path.basename(name), data
    extension = audio_format(data)
    return (f"audio.{extension}" if extension else "audio"), data
