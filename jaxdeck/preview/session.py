"""One deck under preview: rebuilt on every save, with the fewest cells run that keep it right.

- A prose edit (text, notes, slide breaks) keeps the outputs on show and runs nothing.
- A code edit runs only the changed (or added) cells, in a kernel kept warm between edits:
  no kernel start and no JAX import per edit. The cells after them keep their outputs.
- A fresh kernel runs the whole deck when the warm one could mislead: a code cell was
  deleted or moved (its definitions would linger), the kernel died, or on demand (``R``
  in the page, Enter in the terminal). A fresh run is a build's run, so its outputs go to
  the execution cache that ``make`` reads; a warm run's outputs never do.

The warm kernel's state is that of every cell it ran, in the order it ran them, as in a
notebook: a cell that was edited ran twice; a later cell that read what it defines shows
what it printed with the old definition until it is run again. The page says "warm" while
it shows such outputs. The HTML goes to ``build/preview/NAME.html``, apart from the
artefacts ``make`` builds (those always come from a fresh kernel).
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Callable

from jaxdeck import execute
from jaxdeck.execute import fingerprint
from jaxdeck.execute.limits import cap_outputs
from jaxdeck.decks import BUILD
from jaxdeck.errors import DeckError
from jaxdeck.records import ExecFacts, cell_info, write_build


@dataclass
class State:
    """What the page needs to know; ``seq`` counts every change."""

    version: int = 0  # of the last good HTML
    error: str | None = None
    warm: bool = False
    seq: int = 0
    did: str = ""  # the last rebuild, in words
    ran_s: float = 0.0  # seconds the kernel spent on the cells the last rebuild ran
    kernel: str = "none"  # "warming up" (behind outputs from the cache), "ready" or "none"

    def public(self) -> dict:
        return {"version": self.version, "error": self.error, "warm": self.warm, "seq": self.seq, "did": self.did,
                "ran_s": self.ran_s, "kernel": self.kernel}


def plan(old: list[str | None], new: list[str]) -> list[int] | None:
    """Positions of ``new``'s code cells to run in the warm kernel, or None when only a fresh kernel is honest.

    ``old`` holds the key of each code cell the kernel ran, None for one that failed or never ran.
    Changed and added cells run; a deleted or moved cell needs a fresh kernel.
    """
    old = [key if key is not None else f"not run {i}" for i, key in enumerate(old)]
    todo: list[int] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete" or (tag == "replace" and i2 - i1 > j2 - j1):
            return None
        todo.extend(range(j1, j2))
    return todo


def cell_key(cell) -> str:
    return fingerprint.digest(execute.cell_identity(cell))


def code_cells(nb) -> list:
    return execute.code_cells(nb)


@dataclass
class Session:
    """The deck's preview: ``rebuild()`` after each save; ``state`` and ``changed`` for the server."""

    deck: Path
    root: Path = BUILD
    timeout: float | None = None
    say: Callable[[str], None] = print
    state: State = field(default_factory=State)

    def __post_init__(self):
        self.html = self.root / "preview" / f"{self.deck.stem}.html"
        self.changed = threading.Condition()
        self.images: list[Path] = []
        self.kernel = None
        self.ran: list[tuple[str | None, dict | None]] = []  # per code cell: what the warm kernel last ran
        self.shown_keys: list[str] | None = None
        self.shown = None  # cache entry (jaxdeck.execute.cache.entry_of) of the outputs on show
        self.stopping = False
        self._lock = threading.Lock()
        self._priming: threading.Thread | None = None
        self._fresh_kernel = None  # the kernel of a fresh run in progress

    # -- what the page sees

    def publish(self, executed, did: str, warm: bool, ran: list | None = None) -> None:
        """Write the HTML of ``executed``; ``ran``: the cells this rebuild ran (their times are reported)."""
        from jaxdeck.html.export import export_html

        export_html(executed, self.deck, self.html)
        self.shown = execute.entry_of(executed, key="preview")
        self.shown_keys = [cell_key(c) for c in code_cells(executed)]
        with self.changed:
            self.state.version += 1
            self.state.error = None
            self.state.warm = warm
            self.state.ran_s = round(sum(cell_info(c).get("duration_s", 0.0) for c in ran or []), 4)
            self._bump(did)

    def _kernel_is(self, word: str) -> None:
        with self.changed:
            self.state.kernel = word
            self._bump(self.state.did)

    def fail(self, err: DeckError | str, did: str = "error") -> None:
        self.say(f"error: {err}")
        with self.changed:
            self.state.error = f"error: {err}"
            self._bump(did)

    def _bump(self, did: str) -> None:
        self.state.did = did
        self.state.seq += 1
        self.changed.notify_all()

    # -- rebuilding

    def rebuild(self, fresh: bool = False) -> str:
        """Rebuild after a save (``fresh``: in a new kernel); returns what was done, in words."""
        from jaxdeck.read import deck_to_notebook
        from jaxdeck.html.shown import ShownFiles

        began = time.perf_counter()
        try:
            nb = deck_to_notebook(self.deck, self.root)
            self.images = [(self.deck.parent / image).resolve() for image in ShownFiles.of(nb, self.deck).local]
            keys = [cell_key(c) for c in code_cells(nb)]
            if fresh:
                did = self._fresh(nb, use_cache=False)
            elif self.shown is not None and keys == self.shown_keys:
                did = self._prose(nb)
            else:
                did = self._code(nb, keys)
        except DeckError as err:
            self.fail(err)
            return "error"
        did = f"{did} ({time.perf_counter() - began:.2f} s)"
        with self.changed:
            self.state.did = did
        self.say(f"{self.deck}: {did}")
        return did

    def _prose(self, nb) -> str:
        executed, grafted = execute.graft(nb, self.shown, "preview")
        write_build(executed, grafted)
        self.publish(executed, "prose edit, no cell run", warm=self.state.warm)
        return "prose edit, no cell run"

    def _code(self, nb, keys: list[str]) -> str:
        self._wait_for_priming()
        todo = plan([k for k, _ in self.ran], keys) if self.kernel is not None else None
        if todo is None:
            return self._fresh(nb, use_cache=True)
        return self._warm(nb, keys, todo)

    def _warm(self, nb, keys: list[str], todo: list[int]) -> str:
        graft, cell_record, is_listing = execute.graft, execute.cell_record, execute.is_listing
        old = {}
        matcher = SequenceMatcher(None, [k if r is not None else None for k, r in self.ran], keys, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                old.update({j: self.ran[i1 + (j - j1)][1] for j in range(j1, j2)})
        empty = {"outputs": [], "execution_count": None, "execution": {}}
        entry = dict(self.shown or {}, cells=[old.get(j, empty) for j in range(len(keys))])
        executed, grafted = graft(nb, entry, "preview")
        cells = code_cells(executed)
        index = {id(c): i for i, c in enumerate(executed.cells)}
        runs = [j for j in todo if not is_listing(cells[j])]
        reached = [0]
        error = None
        try:
            self.kernel.run(executed, [index[id(cells[j])] for j in runs],
                            on_cell=lambda k, n: reached.__setitem__(0, k), timeout=self._timeout(nb))
            done = set(todo)
        except DeckError as err:
            error = err
            done = set(todo) - set(runs[max(reached[0] - 1, 0):])
            if self.kernel.dead:
                self._discard_kernel()
        cap_outputs(executed)  # a cell that printed 200 MB does not make a 200 MB preview
        self.ran = [(key, old[j]) if j in old else (key, cell_record(cells[j])) if j in done else (None, None)
                    for j, key in enumerate(keys)] if self.kernel is not None else []
        if error is not None:
            raise error
        write_build(executed, grafted.merged(ExecFacts(cells_executed=len(runs), cache="warm")))
        did = f"{len(runs)} cell{'' if len(runs) == 1 else 's'} run in the warm kernel"
        self.publish(executed, did, warm=True, ran=[cells[j] for j in runs])
        return did

    def _fresh(self, nb, use_cache: bool) -> str:
        """The deck from the cache (then a warm kernel primed behind it), or run in a fresh kernel
        that stays warm; either way through the execute stage, as a build runs it."""
        self._wait_for_priming()
        self._discard_kernel()
        if not execute.runnable(nb):
            self.publish(nb, "no code to run", warm=False)
            return "no code to run"
        if self.stopping:
            raise DeckError(self.deck, None, "stopping")
        run = execute.run_deck(nb, self.deck, self.root, timeout=self.timeout, lookup=use_cache, keep_kernel=True,
                               on_start=self._running)
        write_build(run.notebook, run.learnt)
        if run.kernel is None:
            self.publish(run.notebook, "outputs from the execution cache", warm=False)
            self._prime(nb)
            return "outputs from the execution cache; a kernel warms up behind them"
        with self._lock:  # a stop may have come while the deck ran: then its kernel goes at once
            keep, self._fresh_kernel = not self.stopping, None
            if keep:
                self.kernel = run.kernel
        if not keep:
            run.kernel.close()
            raise DeckError(self.deck, None, "stopping")
        self.ran = [(cell_key(c), execute.cell_record(c)) for c in code_cells(run.notebook)]
        self.publish(run.notebook, "fresh kernel", warm=False, ran=code_cells(run.notebook))
        self._kernel_is("ready")
        return f"ran {len(self.ran)} cells in a fresh kernel"

    def _running(self, kernel) -> None:
        """The kernel of a fresh run in progress: closed by a stop (the run then ends at once)."""
        with self._lock:
            self._fresh_kernel = kernel
            stopping = self.stopping
        if stopping:
            kernel.close()

    def _timeout(self, nb) -> float:
        return execute.deck_timeout(nb, self.timeout)

    # -- the warm kernel

    def _prime(self, nb) -> None:
        """Start a kernel and run the deck in it, behind outputs already on show (from the cache)."""
        execute.import_kernel_libraries()  # in this thread, before the other one starts
        self._priming = threading.Thread(target=self._prime_run, args=(copy.deepcopy(nb),), name="jaxdeck-warm-up",
                                         daemon=True)
        self._kernel_is("warming up")
        self._priming.start()

    def _prime_run(self, nb) -> None:
        kernel = None
        try:
            kernel, ran = self._warm_up(nb)
        finally:
            with self._lock:
                if kernel is not None and not self.stopping:
                    self.kernel, self.ran = kernel, ran
                    kernel = None
            if kernel is not None:
                kernel.close()
            self._kernel_is("ready" if self.kernel is not None else "none")

    def _warm_up(self, nb):
        """A kernel that has run ``nb`` (as far as it could), and what it ran; (None, []) when it could not."""
        Kernel, deck_timeout, runnable, cell_record = (execute.Kernel, execute.deck_timeout, execute.runnable,
                                                        execute.cell_record)
        if self.stopping:
            return None, []
        try:
            kernel = Kernel(self.deck, deck_timeout(nb, self.timeout), caches=self.root / "cache")
        except (DeckError, RuntimeError, OSError) as err:
            self.say(f"warm kernel: could not start ({err})")
            return None, []
        reached = [0]
        cells = code_cells(nb)
        try:
            kernel.run(nb, on_cell=lambda k, n: reached.__setitem__(0, k))
            return kernel, [(cell_key(c), cell_record(c)) for c in cells]
        except DeckError as err:
            self.say(f"warm kernel: {err} (the next code edit runs from there)")
            if kernel.dead:
                kernel.close()
                return None, []
        done = set(runnable(nb)[:max(reached[0] - 1, 0)])
        position = {id(c): i for i, c in enumerate(nb.cells)}
        return kernel, [(cell_key(c), cell_record(c)) if position[id(c)] in done or c.metadata.get("highlight")
                        else (None, None) for c in cells]

    def _wait_for_priming(self) -> None:
        if self._priming is not None:
            self._priming.join()
            self._priming = None

    def _discard_kernel(self) -> None:
        with self._lock:
            kernel, self.kernel, self.ran = self.kernel, None, []
        if kernel is not None:
            kernel.close()
            self._kernel_is("none")

    def close(self) -> None:
        """Stop the warm kernel (and one warming up)."""
        with self._lock:
            self.stopping = True
            running, self._fresh_kernel = self._fresh_kernel, None
        if running is not None:
            running.close()
        self._discard_kernel()
        if self._priming is not None:
            self._priming.join(timeout=10)
        self._discard_kernel()
