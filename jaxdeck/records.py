"""The records the stages leave inside a notebook for the stages after them.

A notebook carries three: the deck's options (``metadata.jaxdeck``, read by
:class:`jaxdeck.options.DeckOptions` alone), the build record (``metadata.jaxdeck_build``:
:class:`BuildRecord`, what reading and executing the deck found) and on every cell its cell
record (``cell.metadata.jaxdeck``: :class:`CellInfo`, where the cell came from and how it ran).
Their keys are spelt here and nowhere else, so a stage reads and writes them through these
functions and a new key is added in one place, with its type.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict

#: ``nb.metadata[OPTIONS_KEY]``: the deck header's options
OPTIONS_KEY = "jaxdeck"
#: ``nb.metadata[BUILD_KEY]``: the build record
BUILD_KEY = "jaxdeck_build"
#: ``cell.metadata[CELL_KEY]``: the cell record
CELL_KEY = "jaxdeck"
#: the build record's layout; a record of another version is read field by field all the same
SCHEMA = 1
#: ``CellInfo.outputs_from``: the cell shows the outputs kept in the frozen notebook, or those this build made
KEPT, OWN = "kept", "build"


@dataclass
class BuildRecord:
    """What the read and execute stages learnt about a deck, kept in ``metadata.jaxdeck_build``."""

    # read
    source: str | None = None            # the deck's path as given
    slides: int | None = None            # slides counted at the markers (or headings)
    marker_mode: bool | None = None      # the deck has slide markers: its layout is the presenter's own
    format: dict | None = None           # jupytext's format to write the deck back in (MyST, percent, ...)
    images: dict | None = None           # remote image URL -> its local copy ("" if it could not be fetched)
    warnings: list | None = None         # "file:line: what" for what the build shows another way (offline images)
    # execute
    executed_at: str | None = None
    provenance: dict | None = None       # python, jax, backend, devices... of the kernel that ran it (frozen: the
                                         # kept notebook's when any output was kept; the title slide names it)
    kernel_start_s: float | None = None
    execute_s: float | None = None
    kernel_peak_rss_mb: float | None = None
    cpu_share: dict | None = None        # the CPUs the kernel had when decks were built side by side
    cells_executed: int | None = None
    cells_reused: int | None = None
    cache: str | None = None             # miss, hit, off, frozen, warm (the preview's kernel)
    cache_key: str | None = None
    frozen_from: str | None = None       # the executed notebook --frozen took its outputs from
    frozen_cells: int | None = None      # how many code cells, from the first, show its outputs (kept)
    frozen_provenance: dict | None = None  # the machine that made those kept outputs, as that notebook records it
    own_provenance: dict | None = None   # this build's machine, when a frozen build made the later cells' outputs
    other: dict = field(default_factory=dict)  # keys this version does not know, kept as they were

    #: the fields that describe an execution: stored with a cache entry and restored on a hit
    EXECUTION: ClassVar[tuple[str, ...]] = ("executed_at", "provenance", "kernel_peak_rss_mb", "kernel_start_s",
                                            "execute_s", "cells_executed", "cpu_share")

    @classmethod
    def of(cls, nb) -> BuildRecord:
        """The record of ``nb`` (an empty one when it has none)."""
        stored = dict(nb.metadata.get(BUILD_KEY) or {})
        stored.pop("schema", None)
        known = {f.name for f in dataclasses.fields(cls)} - {"other"}
        return cls(**{k: _plain(v) for k, v in stored.items() if k in known},
                   other={k: v for k, v in stored.items() if k not in known})

    def to_metadata(self) -> dict:
        """The record as ``metadata.jaxdeck_build`` holds it: set fields only, with the schema."""
        out = {"schema": SCHEMA, **self.other}
        out.update({f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                    if f.name != "other" and getattr(self, f.name) is not None})
        return out

    def write(self, nb) -> None:
        import nbformat  # here: `make` with nothing to do imports this module, and no nbformat

        nb.metadata[BUILD_KEY] = nbformat.from_dict(self.to_metadata())

    def execution(self) -> dict:
        return {k: getattr(self, k) for k in self.EXECUTION if getattr(self, k) is not None}


class Facts:
    """What a stage learnt of a deck, some of :class:`BuildRecord`'s fields, for :func:`write_build`
    (None: nothing learnt of that field)."""

    def merged(self, other):
        """These facts with what ``other`` learnt over them."""
        return dataclasses.replace(self, **{f.name: getattr(other, f.name) for f in dataclasses.fields(other)
                                           if getattr(other, f.name) is not None})


@dataclass(frozen=True)
class ReadFacts(Facts):
    """What the read stage learnt of a deck."""

    source: str | None = None
    slides: int | None = None
    marker_mode: bool | None = None
    format: dict | None = None
    images: dict | None = None
    warnings: list | None = None


@dataclass(frozen=True)
class ExecFacts(Facts):
    """What the execute stage learnt of a deck: how it ran (:attr:`BuildRecord.EXECUTION`, what a cache entry
    keeps), whence its outputs came, and the warnings of the read stage's and its own."""

    executed_at: str | None = None
    provenance: dict | None = None
    kernel_start_s: float | None = None
    execute_s: float | None = None
    kernel_peak_rss_mb: float | None = None
    cpu_share: list | None = None
    cells_executed: int | None = None
    cells_reused: int | None = None
    cache: str | None = None
    cache_key: str | None = None
    warnings: list | None = None
    frozen_from: str | None = None
    frozen_cells: int | None = None
    frozen_provenance: dict | None = None
    own_provenance: dict | None = None

    def execution(self) -> dict:
        """The fields a cache entry keeps, as :meth:`BuildRecord.execution` gives them."""
        return {k: getattr(self, k) for k in BuildRecord.EXECUTION if getattr(self, k) is not None}


def write_build(nb, facts) -> BuildRecord:
    """Write what a stage learnt (``facts``, a record of some of :class:`BuildRecord`'s fields; None: not
    learnt, left as it is) into ``nb``'s build record; the one writer of ``metadata.jaxdeck_build``."""
    record = BuildRecord.of(nb)
    for item in dataclasses.fields(facts):
        value = getattr(facts, item.name)
        if value is not None:
            setattr(record, item.name, value)
    record.write(nb)
    return record


def update_build(nb, **fields: Any) -> BuildRecord:
    """Set ``fields`` of ``nb``'s build record (None removes one) and write it back; the record. For a record
    set by hand (a test's notebook); the stages' facts go through :func:`write_build`."""
    record = BuildRecord.of(nb)
    for name, value in fields.items():
        if name not in BuildRecord.__dataclass_fields__ or name == "other":
            raise TypeError(f"the build record has no field {name!r}")
        setattr(record, name, value)
    record.write(nb)
    return record


class CellInfo(TypedDict, total=False):
    """``cell.metadata.jaxdeck``: where a cell came from (read), how it ran (execute), how it was laid out (html)."""

    line: int | None         # its first line in the deck
    slide: int | None        # the slide it is on (1-based)
    slide_type: str          # reveal.js / RISE slide type
    marker: str              # the marker line that opened it (---, --, . . ., |||)
    column_start: bool       # opens the second column (|||)
    in_columns: bool
    breaks: list             # a MyST cell kept whole: the slide pieces inside it, each with its offset
    images: dict             # remote images this cell shows: URL -> local copy
    duration_s: float        # the code cell's run time
    others_share: float      # the share of the machine's CPU time other processes took meanwhile (0 to 1)
    cpu_s: float             # the CPU time the kernel itself used on the cell (all its threads)
    waited_s: float          # the longest a kernel thread waited for a CPU meanwhile (run queue, Linux)
    outputs_from: str        # a frozen build's: KEPT (the frozen notebook's machine) or OWN (this build's)
    output_truncated_mb: float  # its outputs were this large, and cut to the deck's cap
    cut: bool                # auto-fit started a new slide here


def cell_info(cell) -> dict:
    """The cell record of ``cell`` (a dict or a NotebookNode), empty when it has none; read only."""
    metadata = cell.get("metadata", {}) if isinstance(cell, dict) else cell.metadata
    return metadata.get(CELL_KEY) or {}


def set_cell_info(cell, info: dict) -> None:
    cell.metadata[CELL_KEY] = info


def update_cell_info(cell, **keys: Any) -> dict:
    """Set ``keys`` in the cell record of ``cell``, creating it if needed; the record."""
    info = cell.metadata.setdefault(CELL_KEY, {})
    info.update(keys)
    return info


def take_cell_info(cell: dict, key: str) -> Any:
    """Remove and return ``key`` of the cell record of ``cell`` (a JSON model a save receives); None when absent."""
    info = cell.get("metadata", {}).get(CELL_KEY)
    return info.pop(key, None) if isinstance(info, dict) else None


def _plain(value):
    """NotebookNodes as the plain dicts and lists the record's fields are typed as."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
