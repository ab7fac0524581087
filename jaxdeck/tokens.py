"""A cell's Markdown parsed once per parser: the reader checks, splits and scans the same cells
for images, attributes and headings, and the exporter scans them again; each parse is a pure
function of the parser and the text, so one parse serves them all.

The tokens are shared: a caller reads them and never changes them (one that rewrites tokens
parses its own copy with ``parser.parse``).
"""

from __future__ import annotations

from functools import lru_cache


def parsed(parser, text: str) -> tuple:
    """``parser.parse(text)``, the same tuple of tokens for every caller that asks again."""
    return _parse(parser, text)


@lru_cache(maxsize=4096)  # a long preview session re-reads its deck on every save: the old texts age out
def _parse(parser, text: str) -> tuple:
    return tuple(parser.parse(text))
