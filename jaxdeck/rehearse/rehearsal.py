"""One rehearsal of one deck, from its source to its record: the server, the browser, the walk.

The live server is started as ``present`` starts it (port 0, the deck's folder, the build's
outputs), or is the running ``present --detach``'s (``--attach``, left running); the browser is
jaxdeck's headless Chromium. With ``browser=False`` (``--no-browser``, a GPU box with none) the
deck's code runs through the server's kernel alone (:mod:`.kernel_walk`), and nothing on this path
imports the browser or Playwright. What was started is gone when :func:`rehearse` returns or
raises, a stop signal included.
"""

from __future__ import annotations

import contextlib
import socket
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote, urlsplit

from jaxdeck.check.measure import Overflow, overflow_said, wide_said
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError, display_path
from jaxdeck.options import DeckOptions
from jaxdeck.rehearse import clock, compare
from jaxdeck.rehearse.record import KINDS, Problem, Rehearsal, SlideRun
from jaxdeck.rehearse.runs import Ran

PROJECTOR = (1920, 1080)
ORDER = list(KINDS)
#: a cell's time limit when the deck sets no `timeout:`
TIMEOUT_S = 60


def size_name(width: int, height: int) -> str:
    return f"{width}x{height}"


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` as two positive numbers, or a one-line error."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise DeckError(None, None, f"--size {text!r} is not WIDTHxHEIGHT", "write it as 1920x1080") from None
    if not (200 <= width <= 8000 and 200 <= height <= 8000):
        raise DeckError(None, None, f"--size {text} is out of range", "use a window size between 200 and 8000 pixels")
    return width, height


def read_build(deck: Path, out: Path):
    """The build's executed notebook, or None when the deck was not built here."""
    import nbformat

    path = Outputs(deck, out).notebook
    if not path.is_file():
        return None
    try:
        return nbformat.read(path, as_version=4)
    except Exception as err:  # a truncated or foreign file: one line saying to rebuild it
        raise DeckError(path, None, f"cannot read the build's notebook ({type(err).__name__})",
                        "rebuild it: make slides DECK=NAME") from None


@dataclass(frozen=True)
class Attached:
    """The server of a running ``present --detach``, rehearsed against and left running."""

    base: str
    token: str
    root: Path

    def slideshow_url(self, deck: Path) -> str:
        path = Path(deck).resolve().relative_to(self.root).as_posix()
        return f"{self.base}/rise/{quote(path)}?token={self.token}"


def attach(out: Path, root: Path) -> Attached:
    """The detached present recorded in ``out`` (started from ``root``), or a one-line error."""
    from jaxdeck.live import detached

    state = detached.running(out)  # a record that is not a whole one: a one-line error
    if state is None:
        raise DeckError(None, None, f"no detached present is running from {display_path(out)}",
                        "start one with `make present DETACH=1`, or rehearse without --attach")
    url = urlsplit(state.lab)
    if state.token is None or not url.scheme or not url.netloc:
        raise DeckError(detached.state_path(out), None, "the detached present's record is stale or incomplete "
                        "(no URL with a token)", f"stop it and start it again: {detached.stop_words(out)}, then "
                        f"{detached.start_words(out)}")
    return Attached(f"{url.scheme}://{url.netloc}", state.token, root)


@contextlib.contextmanager
def live_server(root: Path, deck: Path, out: Path, log: Path | None, server=None):
    """A live server for ``deck``: the one handed in, else one started as ``present`` starts it."""
    if server is not None:
        yield server
        return
    from jaxdeck.live.server import start_server

    decks_dir = deck.resolve().parent.relative_to(root).as_posix() or "."
    out = out.resolve()
    build_dir = out.relative_to(root).as_posix() if out.is_relative_to(root) else str(out)
    started = start_server(root, port=0, decks_dir=decks_dir, build_dir=build_dir, log_path=log)
    try:
        yield started
    finally:
        started.stop()


def rehearse(deck: Path, out: Path = Path("build"), projector: tuple[int, int] = PROJECTOR, faults: bool = False,
             log: Path | None = None, attached: bool = False, browser: bool = True, say=print) -> Rehearsal:
    """Walk ``deck``'s live slideshow on this machine; the record of what it found. ``attached``: on the
    server of the running ``present --detach`` (its kernel, warm for the talk), left running after.
    ``browser=False``: its code on the server's kernel alone, no slide laid out."""
    from jaxdeck.read import deck_to_notebook
    from jaxdeck.read.structure import notes_by_slide
    from jaxdeck.records import BuildRecord

    began = time.monotonic()
    root = Path.cwd().resolve()
    if not deck.resolve().is_relative_to(root):
        raise DeckError(deck, None, "the deck is outside the current folder", "run from the repository root")
    nb = deck_to_notebook(deck)  # a broken deck fails here, with file:line, before anything starts
    options = DeckOptions.of(nb)
    built = read_build(deck, out)
    sizes = [size_name(*options.size)]
    if size_name(*projector) not in sizes:
        sizes.append(size_name(*projector))
    record = Rehearsal(deck=display_path(deck), sizes=sizes if browser else [], duration_min=options.duration,
                       words_per_minute=options.words_per_minute, laid_out=browser,
                       started_at=datetime.now().astimezone().isoformat(timespec="seconds"), host=socket.gethostname())
    if built is not None:
        build = BuildRecord.of(built)
        record.build = {"executed_at": build.executed_at, "provenance": build.provenance, "execute_s": build.execute_s}
    else:
        say(f"{display_path(deck)}: no build in {display_path(out)} to compare with; times and outputs are checked "
            "against the budget only (make slides builds it)")
    server = attach(out, root) if attached else None
    before = compare.built_cells(built)
    timeout_s = float(options.timeout or TIMEOUT_S)

    def ran(slide: SlideRun, result: Ran) -> None:
        cell = result.cell
        run = compare.cell_run(cell["line"], result.status, result.seconds, result.outputs, result.error,
                               cell["tags"], options.budget_s, compare.take(before, cell["source"]), result.checks,
                               kinds=not browser)
        slide.cells.append(run)
        record.problems.extend(compare.problems_of(slide.number, run))
        took = f" in {run.live_s:.2f} s" if run.live_s is not None else ""
        built_s = f" (build {run.build_s:.2f} s)" if run.build_s is not None else ""
        held = ""
        if run.checks:
            checks = "its check" if len(run.checks) == 1 else f"its {len(run.checks)} checks"
            held = f", {checks} held" if all(c.get("ok") for c in run.checks) else ", a check after it FAILED"
        say(f"  slide {slide.number}: cell on line {run.line or '?'} {run.status}{took}{built_s}{held}")

    with live_server(root, deck, out, log, server) as started:
        if browser:
            in_browser(record, nb, started, deck, options, projector, timeout_s, faults, ran, say)
        else:
            on_kernel(record, started, root, deck, timeout_s, attached, ran, say)
            clock_the_talk(record, notes_by_slide(nb))
    record.seconds = round(time.monotonic() - began, 1)
    record.problems.sort(key=lambda p: (p.slide or 10**6, ORDER.index(p.kind)))
    return record


def in_browser(record: Rehearsal, nb, started, deck: Path, options: DeckOptions, projector: tuple[int, int],
               timeout_s: float, faults: bool, ran, say) -> None:
    """The slideshow walked in headless Chromium at each size, the talk clocked, pictures of slides with problems."""
    from jaxdeck.browser import chromium
    from jaxdeck.read.structure import notes_by_slide, slide_count
    from jaxdeck.rehearse import walk

    sizes = record.sizes
    middle = max(1, slide_count(nb) // 2)

    def fault_at(show: dict) -> bool:
        """The first slide from the middle on with code to run, once some ran before it (R has work to do)."""
        return show["number"] >= middle and bool(show["cells"]) and any(s.cells for s in record.slides)

    with chromium() as browser:
        width, height = options.size
        page = browser.new_page(viewport={"width": width, "height": height})
        walk.open_slideshow(page, started.slideshow_url(deck))
        say(f"{display_path(deck)}: rehearsing at {sizes[0]}")
        record.faults = walk.walk(page, sizes[0], timeout_s, record.slides, fault_at if faults else None, ran)
        if len(sizes) > 1:
            say(f"{display_path(deck)}: measuring every slide at {sizes[1]}")
            walk.remeasure(page, record.slides, sizes[1], *projector)
        record.problems.extend(fit_problems(record.slides, width, height))
        if faults:
            record.problems.extend(fault_problems(record.faults))
        clock_the_talk(record, notes_by_slide(nb))
        for slide in record.slides:
            if record.problems_on(slide.number):
                for size in sizes:
                    if size == sizes[0] or not slide.fits[size].fits:
                        slide.pictures[size] = walk.picture(page, slide, *(int(n) for n in size.split("x")))
        page.close()


def on_kernel(record: Rehearsal, started, root: Path, deck: Path, timeout_s: float, attached: bool, ran, say) -> None:
    """The slideshow's notebook run on the server's kernel, as the slideshow runs it, with no browser."""
    import nbformat

    from jaxdeck.rehearse import kernel_walk
    from jaxdeck.rehearse.kernel_channel import KernelChannel

    channel = KernelChannel(started.base, started.token, deck.resolve().relative_to(root).as_posix())
    channel.interrupt_on_stop = attached  # the talk's own kernel is left running: not with a cell of ours in it
    try:
        served = nbformat.from_dict(channel.notebook())
        slides = kernel_walk.slides_of(served)
        channel.start((served.metadata.get("kernelspec") or {}).get("name") or "python3")
        say(f"{display_path(deck)}: rehearsing {len(slides)} slides on the kernel alone (no browser: "
            "the slides are not laid out)")
        record.problems.extend(kernel_walk.walk(channel, slides, timeout_s, record.slides, ran, say))
    finally:
        channel.close()


def fit_problems(slides: list[SlideRun], width: int, height: int) -> list[Problem]:
    """Each slide's overflow at each window size, said as ``jaxdeck check`` says it of the static slide
    (the same measure, in the deck's ``width`` x ``height`` slide pixels), naming what runs over."""
    problems = []
    for slide in slides:
        for size, fit in slide.fits.items():
            found = Overflow(fit.down, fit.right, fit.below, fit.beyond, fit.scrollable, fit.wide, width, height)
            said = overflow_said(found)
            if said:
                problems.append(Problem(slide.number, "overflow", f"at {size}, with its live outputs, {said}"))
            for px, count, text, kind in fit.wide:
                problems.append(Problem(slide.number, "code-width", f"at {size}, {wide_said(px, count, text, kind)}"))
    return problems


def fault_problems(faults: dict | None) -> list[Problem]:
    if faults is None:
        return [Problem(None, "fault", "no slide with code from the middle on: the kernel was not killed")]
    if faults["recovered"]:
        return []
    return [Problem(faults["slide"], "fault", f"after the kernel was killed, R did not bring the talk back: "
                    f"{faults['message'] or 'nothing said'}")]


def clock_the_talk(record: Rehearsal, notes: dict[int, list[str]]) -> None:
    for slide in record.slides:
        slide.notes_words = clock.words(notes.get(slide.number, []))
        said = slide.notes_words or slide.text_words  # a tutorial's slides carry their text, not notes
        slide.estimate_s = round(clock.slide_seconds(said, slide.live_s, record.words_per_minute), 1)
    if record.duration_min and record.estimate_s > 60 * record.duration_min * 1.05:
        record.problems.append(Problem(None, "clock", clock.verdict(record.estimate_s, record.duration_min)))
