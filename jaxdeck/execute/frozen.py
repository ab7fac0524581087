"""Frozen outputs (``jaxdeck build --frozen PATH``): a deck's outputs kept from another machine, cell by cell.

``gpu/h100/NAME.ipynb`` keeps a deck executed on a GPU box. A build here takes a code cell's kept
output while that cell and every code cell before it still match the kept notebook
(:func:`jaxdeck.execute.cache.cell_identity`): an earlier changed cell may change what a later one
computes, so from the first changed, removed or new code cell on the outputs are this build's. Those
come the normal way (``own``, :func:`jaxdeck.execute.run_deck` without ``frozen``: the execution cache,
else a kernel run of the whole deck here, which has to run the earlier cells for their state anyway),
and the kept outputs are grafted onto the matching cells. When every code cell matches, no kernel
runs. Markdown, speaker notes and slide breaks are never compared: a prose edit keeps every output.

Each code cell records whose outputs it shows (``CellInfo.outputs_from``: :data:`KEPT` or :data:`OWN`);
the build record the kept notebook (``frozen_from``), its machine (``frozen_provenance``), how many
code cells were kept (``frozen_cells``) and this build's machine when it made any (``own_provenance``);
``provenance``, the one the title slide names, is the kept machine's while any output is kept.
Kept outputs are sanitised unless this user's builds signed the kept notebook (:mod:`jaxdeck.untrusted`);
this build's are its own. A kept notebook of the wrong shape is one line naming its field
(:mod:`jaxdeck.execute.shape`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Callable

import nbformat

from jaxdeck import trust
from jaxdeck.errors import DeckError, display_path
from jaxdeck.execute.cache import cell_identity, code_cells, entry_of, graft, graft_cell
from jaxdeck.execute.shape import read_executed
from jaxdeck.machines import Split, split_of
from jaxdeck.options import DeckOptions
from jaxdeck.records import KEPT, OWN, BuildRecord, ExecFacts, update_cell_info


def kept_notebook(frozen: str | Path, deck: str | Path,
                  max_output_mb: float | None = None) -> tuple[Path, nbformat.NotebookNode]:
    """The executed notebook ``frozen`` names for ``deck`` (a file, or a folder holding NAME.ipynb), read;
    an output bigger than ``max_output_mb`` (the deck's cap) is refused."""
    path = Path(frozen)
    if path.is_dir():
        path = path / f"{Path(deck).stem}.ipynb"
    if not path.is_file():
        raise DeckError(path, None, "no executed notebook to take frozen outputs from",
                        "give build/notebooks/NAME.ipynb from the machine that executed the deck")
    source = read_executed(path, max_output_mb=max_output_mb)  # or one line naming the field of the wrong shape
    theirs = code_cells(source)
    if theirs and all(c.get("execution_count") is None and not c.get("outputs") for c in theirs):
        raise DeckError(path, None, "the frozen notebook was never executed",
                        "give build/notebooks/NAME.ipynb from a finished build")
    return path, source


def matching(ours: list, theirs: list) -> int:
    """How many code cells, from the first, are the same in both (source, tags, timeout, listing)."""
    count = 0
    for mine, other in zip(ours, theirs):
        if cell_identity(mine) != cell_identity(other):
            break
        count += 1
    return count


def take_frozen(nb, frozen: str | Path, deck: str | Path,
                own: Callable[[], tuple[nbformat.NotebookNode, ExecFacts]]) -> tuple[nbformat.NotebookNode, ExecFacts]:
    """``nb`` executed, and how (:class:`jaxdeck.records.ExecFacts`): the kept outputs of ``frozen`` on its
    matching first code cells, ``own()``'s (this build's executed ``nb`` and how it ran) on the others;
    ``own`` is called only when some cell does not match."""
    path, source = kept_notebook(frozen, deck, DeckOptions.of(nb).max_output_mb)
    ours = code_cells(nb)
    kept = matching(ours, code_cells(source))
    if not trust.signed(source):
        from jaxdeck.untrusted import sanitised  # nbconvert's sanitiser: imported only for outputs made elsewhere

        source = sanitised(source)
    entry = entry_of(source, key="frozen", deck=str(deck))
    theirs = BuildRecord.of(source).provenance or {}
    if kept == len(ours):  # the kept notebook may have more cells, removed from the deck's end since
        (out, facts), own_provenance = graft(nb, dict(entry, cells=entry["cells"][:kept]), "frozen"), None
    else:
        out, facts = own()
        out = copy.deepcopy(out)
        for cell, record in zip(code_cells(out), entry["cells"][:kept]):
            graft_cell(cell, record)
        own_provenance = facts.provenance or {}
    for k, cell in enumerate(code_cells(out)):
        update_cell_info(cell, outputs_from=KEPT if k < kept else OWN)
    return out, facts.merged(ExecFacts(frozen_from=str(path), frozen_cells=kept, frozen_provenance=theirs,
                                       own_provenance=own_provenance, provenance=theirs if kept else own_provenance))


def frozen_line(nb, deck: str | Path) -> str | None:
    """The build's line on a frozen deck: which code cells (and slides) show the kept outputs, from which
    machine, and from which deck line on they are this build's (None: not built frozen)."""
    split = split_of(nb)
    return None if split is None else said(split, display_path(deck))


def said(split: Split, deck: str) -> str:
    """:func:`frozen_line`'s words for ``split`` of the deck ``deck``."""
    source = f"{display_path(split.source)} ({split.kept_machine})"
    if split.kept == split.cells:
        return f"outputs of all {split.cells} code cells kept from {source}" if split.cells else \
            f"no code cells: nothing to keep from {source}"
    own = f"this build ({split.own_machine})"
    at = f"{deck}:{split.stale_line}" if split.stale_line else deck
    if not split.kept:
        return f"code cell 1 changed since {source}, at {at}: every output is from {own}"

    def cells(first: int, last: int) -> str:
        return f"code cell {first}" if first == last else f"code cells {first}-{last}"

    def slides(span) -> str:
        return f"slide {span[0]}" if span[0] == span[1] else f"slides {span[0]}-{span[1]}"

    one = split.kept + 1 == split.cells
    return (f"outputs of {cells(1, split.kept)} ({slides(split.kept_slides)}) kept from {source}; "
            f"{cells(split.kept + 1, split.cells)} ({slides(split.own_slides)}) changed since, "
            + (f"at {at}: its outputs are" if one else f"from {at} on: their outputs are") + f" from {own}")
