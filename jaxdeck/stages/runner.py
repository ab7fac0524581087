"""The stage runner: a deck through the stages its plan names, each once, in order.

Each stage is given the record of the stage it takes and hands on its own; the runner says on the
progress line which stage runs, times it, and, after it, writes the input record of every artefact it
made (:func:`jaxdeck.stamps.save`), so every input record is written here and nowhere else; so is what the stage
learnt of the deck (its record's ``learnt``), into the notebook's build record (:func:`jaxdeck.records.write_build`). Earlier
artefacts stay until each is replaced.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from jaxdeck import stamps
from jaxdeck.decks import BUILD, Outputs
from jaxdeck.records import BuildRecord, write_build
from jaxdeck.stages.job import Job, Shared
from jaxdeck.stages.options import BuildOptions
from jaxdeck.stages.plan import Plan, plan as plan_of
from jaxdeck.stages.records import Built, StageSeconds, summary
from jaxdeck.stages.steps import STAGES


def build_deck(deck: Path, root: Path = BUILD, options: BuildOptions | None = None, *, plan: Plan | None = None,
               shared: Shared | None = None, cpus: frozenset[int] | None = None) -> Built:
    """Make the artefacts ``plan`` names (without one: every artefact ``options`` asks for, the PDFs
    only with ``shared.printer``); ``cpus`` is the deck's share of the machine when decks are built side by side."""
    options = options or BuildOptions()
    outputs = Outputs(deck, root)
    shared = shared or Shared(stamps.Sources(root))
    plan = plan or plan_of(deck, outputs, shared.sources, dataclasses.replace(options, force=True))
    return run(Job(deck, outputs, options, plan, shared, cpus))


def run(job: Job) -> Built:
    """Every stage ``job``'s plan wants, once each; what the build says of the deck."""
    made: dict[str, object] = {}
    seconds: dict[str, float] = {}
    progress = job.shared.progress
    for stage in STAGES:
        if not stage.wanted(job):
            continue
        if stage.name and progress is not None:
            progress.stage(job.deck.name, stage.name)
        began = time.perf_counter()
        record = stage.run(job, made.get(stage.takes) if stage.takes else None)
        learnt = getattr(record, "learnt", None)
        if learnt is not None:  # what the stage learnt, into the notebook's build record
            write_build(record.notebook, learnt)
        for stamp in stage.stamps(job, record):
            stamps.save(stamp.artefact, stamp.inputs, **stamp.extra)
        seconds[stage.clock] = seconds.get(stage.clock, 0.0) + time.perf_counter() - began
        made[stage.gives] = record
    return built(job, made, seconds)


def built(job: Job, made: dict, seconds: dict[str, float]) -> Built:
    """The deck's :class:`Built`: the report's words, the stages' seconds, what its execution did."""
    plan = job.plan
    executed = made.get("executed")
    record = getattr(executed, "record", None) or BuildRecord()  # none: the notebook was up to date
    printed = made.get("printed")
    done = summary(record.cells_executed, plan.html, plan.pdfs if printed is not None else (), plan.single,
                   plan.article)
    return Built(job.deck, job.outputs.root, done,
                 seconds=StageSeconds(seconds.get("convert", 0.0), seconds.get("execute", 0.0),
                                      seconds.get("export_html", 0.0), seconds.get("pdf")),
                 cache=record.cache, cells_executed=record.cells_executed, printed=printed,
                 warnings=tuple(record.warnings or ()), frozen=getattr(executed, "frozen", None))
