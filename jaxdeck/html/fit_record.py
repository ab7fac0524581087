"""The record of an auto-fit's cuts and fitted blocks, kept beside the HTML: ``build/html/NAME.cuts.json``.

The live view (:mod:`jaxdeck.live.pieces`) cuts the served notebook where the HTML's fit cut
it and fits its tall blocks as the fit did (:class:`Block`), and the PDF export counts one page more per cut; both read this record only, so neither
depends on how the cuts were found (:mod:`jaxdeck.html.fit_cuts`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

#: what a continuation slide's heading adds to the section's heading text
CONTINUED = " (continued)"


@dataclass(frozen=True)
class Cut:
    """One cut a fit made, for the live view to make the same (:mod:`jaxdeck.live.pieces`).

    The cut falls before the cell of the unfitted deck whose ``metadata.jaxdeck.line`` is
    ``line`` (a markdown cell's first line, a code cell's fence) or inside a markdown cell at
    that source line; ``text`` is that line of the cell's source (a cut whose text no longer
    matches is stale and skipped); ``heading`` is the continued heading shown above it, if any.
    """

    line: int
    text: str
    heading: str | None = None


@dataclass(frozen=True)
class Block:
    """A block a fit made smaller or cut (:mod:`jaxdeck.html.fit_tall`), for the live view to do the same.

    ``line`` and ``text`` name the cell of the unfitted deck as :class:`Cut` does; ``fit`` is
    its ``metadata.jaxdeck.fit`` record (type scale, side by side, lines kept, zoom); ``split``
    the number of its source lines that stay on the slide when the rest continues on the next.
    """

    line: int
    text: str
    fit: dict
    split: int | None = None


def cuts_path(html: str | Path) -> Path:
    """Where the fit of ``build/html/NAME.html`` keeps its cuts: ``build/html/NAME.cuts.json``."""
    return Path(html).with_suffix(".cuts.json")


def write_cuts(html: str | Path, cuts: Sequence[Cut], blocks: Sequence[Block] = ()) -> None:
    """Keep a fit's cuts and fitted blocks beside its HTML (:func:`cuts_path`); none: no file."""
    from jaxdeck.atomic import write_text

    path = cuts_path(html)
    if not cuts and not blocks:
        path.unlink(missing_ok=True)
        return
    write_text(path, json.dumps({"cuts": [asdict(cut) for cut in cuts],
                                 "blocks": [asdict(block) for block in blocks]}, indent=1) + "\n")


def read_blocks(html: str | Path) -> list[Block]:
    """The fitted blocks :func:`write_cuts` kept for ``html``; none when the file is missing or not ours."""
    try:
        found = json.loads(cuts_path(html).read_text(encoding="utf-8")).get("blocks") or []
        return [Block(int(b["line"]), str(b["text"]), dict(b.get("fit") or {}),
                      None if b.get("split") is None else int(b["split"])) for b in found]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def read_cuts(html: str | Path) -> list[Cut]:
    """The cuts :func:`write_cuts` kept for ``html``; none when the file is missing or not ours."""
    try:
        found = json.loads(cuts_path(html).read_text(encoding="utf-8"))["cuts"]
        return [Cut(int(c["line"]), str(c["text"]), c.get("heading")) for c in found]
    except (OSError, ValueError, KeyError, TypeError):
        return []
