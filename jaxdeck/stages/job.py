"""One deck's build as every stage sees it: the deck, where its artefacts go, the options, the plan,
and what the decks of one build share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from jaxdeck import stamps
from jaxdeck.decks import Outputs
from jaxdeck.progress import Progress
from jaxdeck.stages.options import BuildOptions
from jaxdeck.stages.plan import Plan


@dataclass(frozen=True)
class Shared:
    """What the decks of one build share: the digests of what artefacts are made from (each taken once a
    build), the printer (:class:`jaxdeck.pdf.printer.BackgroundPrinter`; None prints nothing), the progress
    display, and ``on_start(kernel)``, called when a kernel starts to run a deck (not when its outputs come
    from the cache)."""

    sources: stamps.Sources
    printer: Any = None
    progress: Progress | None = None
    on_start: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class Job:
    """One deck's build: ``cpus`` is the deck's share of the machine when decks are built side by side."""

    deck: Path
    outputs: Outputs
    options: BuildOptions
    plan: Plan
    shared: Shared
    cpus: frozenset[int] | None = None
