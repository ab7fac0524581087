"""A rehearsal told three ways: a table on the terminal, ``NAME.json`` and ``NAME.html``.

The HTML is one file (its pictures inline), so it can be copied off the GPU box with one ``scp``;
its markup is the theme's ``rehearsal.html.j2``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jaxdeck import atomic
from jaxdeck.rehearse import clock
from jaxdeck.rehearse.record import KINDS, Rehearsal

TEMPLATE = "rehearsal.html.j2"
#: what a rehearsal on the kernel alone (``--no-browser``) says it did not do
NOT_LAID_OUT = ("The slides were not laid out (no browser): whether each fits its frame with its live outputs "
                "was not checked; a rehearsal where there is a Chromium checks it.")


def paths(out: Path, deck: str) -> tuple[Path, Path]:
    folder = out / "rehearsal"
    name = Path(deck).stem
    return folder / f"{name}.json", folder / f"{name}.html"


def table(record: Rehearsal):
    """The per-slide table, as a rich renderable."""
    from rich.table import Table

    grid = Table(title=f"Rehearsal of {record.deck}", title_justify="left", box=None, pad_edge=False)
    for name, justify in (("#", "right"), ("slide", "left"), ("cells", "right"), ("live s", "right"),
                          ("build s", "right"), *((s, "center") for s in record.sizes),
                          ("min", "right"), ("problems", "left")):
        grid.add_column(name, justify=justify, no_wrap=name != "problems")
    for slide in record.slides:
        built = [c.build_s for c in slide.cells if c.build_s is not None]
        problems = record.problems_on(slide.number)
        title = slide.title if len(slide.title) <= 32 else slide.title[:31] + "…"
        grid.add_row(str(slide.number), title, str(len(slide.cells)) if slide.cells else "",
                     f"{slide.live_s:.2f}" if slide.cells else "", f"{sum(built):.2f}" if built else "",
                     *(("fits" if slide.fits[s].fits else "[red]OVER[/]") if s in slide.fits else "" for s in record.sizes),
                     f"{slide.estimate_s / 60:.1f}", "[red]" + ", ".join(sorted({p.kind for p in problems})) + "[/]"
                     if problems else "")
    return grid


def print_report(record: Rehearsal, json_path: Path, html_path: Path, console=None) -> None:
    from rich.console import Console

    console = console or Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    console.print(table(record))
    console.print(f"{len(record.slides)} slides, {record.cells} cells, {record.live_s:.1f} s of live code. "
                  + clock.verdict(record.estimate_s, record.duration_min))
    if record.faults:
        said = "recovered" if record.faults["recovered"] else "did NOT recover"
        console.print(f"Fault: the kernel was killed at slide {record.faults['slide']}; R {said} "
                      f"in {record.faults['seconds']:.1f} s.")
    if not record.laid_out:
        console.print(NOT_LAID_OUT)
    for problem in record.problems:
        console.print(f"[red]{problem}[/]", markup=True, soft_wrap=True)
    verdict = "ready to present" if record.ok else f"{len(record.problems)} problem(s)"
    if not record.laid_out:
        verdict += " (its code; the slides were not laid out)"
    console.print(f"{record.deck}: {verdict}; {json_path} and {html_path}")


def write(record: Rehearsal, out: Path) -> tuple[Path, Path]:
    """``build/rehearsal/NAME.json`` and ``NAME.html``, each written atomically."""
    json_path, html_path = paths(out, record.deck)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(json_path, json.dumps(record.to_json(), indent=1) + "\n")
    atomic.write_text(html_path, html(record))
    return json_path, html_path


def html(record: Rehearsal) -> str:
    import jinja2

    from jaxdeck.places import THEMES

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(THEMES / "jaxdeck")), autoescape=True,
                                     undefined=jinja2.StrictUndefined)
    return environment.get_template(TEMPLATE).render(record=record, kinds=KINDS, not_laid_out=NOT_LAID_OUT,
                                                     verdict=clock.verdict(record.estimate_s, record.duration_min))
