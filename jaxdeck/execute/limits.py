"""A cell's outputs within a size: a cell that prints 200 MB must not make a 200 MB deck.

Applied to every run before its notebook is cached, exported or served: the outputs of a code
cell beyond the deck's cap (``max_output_mb:``, :data:`DEFAULT_MB` by default) are cut, a
stream at a line boundary, and a last line on the slide says how much there was.
"""

from __future__ import annotations

import json

from jaxdeck.options import DeckOptions
from jaxdeck.records import update_cell_info

MB = 1024 * 1024


def size_of(output) -> int:
    """An output's size in bytes, as the notebook will hold it."""
    if output.get("output_type") == "stream":
        text = output.get("text", "")
        return len(("".join(text) if isinstance(text, list) else text).encode("utf-8"))
    return len(json.dumps(output.get("data", {}) or output.get("traceback", []), ensure_ascii=False).encode("utf-8"))


def _cut_stream(output, room: int) -> None:
    text = output.get("text", "")
    text = "".join(text) if isinstance(text, list) else text
    kept = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    output["text"] = kept[: kept.rfind("\n") + 1] if "\n" in kept else kept


def cap_outputs(nb, limit_mb: float | None = None) -> list[int]:
    """Cut each code cell's outputs to ``limit_mb`` (the deck's cap by default); the cells cut."""
    from nbformat.v4 import new_output

    cap = limit_mb if limit_mb is not None else DeckOptions.of(nb).max_output_mb
    limit = int(cap * MB)
    cut = []
    for index, cell in enumerate(nb.cells):
        outputs = cell.get("outputs") if cell.get("cell_type") == "code" else None
        if not outputs:
            continue
        sizes = [size_of(o) for o in outputs]
        total = sum(sizes)
        if total <= limit:
            continue
        kept, room = [], limit
        for output, size in zip(outputs, sizes):
            if size <= room:
                kept.append(output)
                room -= size
            elif output.get("output_type") == "stream" and room > 0:
                _cut_stream(output, room)
                kept.append(output)
                room = 0
        said = (f"… output truncated: {total / MB:.1f} MB in all, over this deck's {cap:g} MB cap "
                "(max_output_mb: in the header)\n")
        kept.append(new_output("stream", name="stdout", text=said))
        cell["outputs"] = kept
        update_cell_info(cell, output_truncated_mb=round(total / MB, 1))
        cut.append(index)
    return cut
