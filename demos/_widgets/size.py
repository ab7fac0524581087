"""The size explorer: a slider over problem sizes that re-times the functions at each move."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from .._display import INK, WARN, box, esc, fmt_int, fmt_seconds, html_table, small, text_table
from .._timing.comparison import Comparison, compare
from .explorer import _Explorer, error_text
from .line_chart import svg_lines


class SizeExplorer(_Explorer):
    """Slider over problem sizes; every move re-times the functions and redraws table and chart.

    Each move is a fresh measurement (also at a size measured before), under the protocol of
    :func:`demos.timing.compare`: jit compiles apart, a warm-up call, every call blocked on its
    result. ``results`` keeps the latest comparison per size; ``runs`` counts measurements.
    """

    def __init__(self, fns: Mapping[str, Callable], make_args: Callable[[int], object], sizes: Sequence[int],
                 value: int | None = None, budget_s: float = 0.1, baseline: str | None = None, title: str = "",
                 upfront: Sequence[int] = (), description: str = "size"):
        if not sizes:
            raise ValueError("sizes must not be empty")
        self.fns = dict(fns)
        self.make_args = make_args
        self.sizes = list(sizes)
        start = self.sizes[0] if value is None else value
        for s in [start, *upfront]:
            if s not in self.sizes:
                raise ValueError(f"size {s!r} is not one of the slider's sizes {self.sizes}")
        self.budget_s = budget_s
        self.baseline = baseline
        self.description = description
        self.title = title  # shown above the output when given (a slide's heading often says it already)
        self.results: dict[int, Comparison] = {}
        self.runs = 0
        self.state = "done"  # "measuring" while a slider move is being timed, "error" if it failed
        self.target = None  # the size that state is about (None: the current size)
        self.error = ""
        for s in dict.fromkeys(upfront):
            if s != start:
                self.measure(s)
        self.size = start
        self.measure(start)

    def measure(self, size: int) -> Comparison:
        """Time every function at ``size`` afresh and make it the current size."""
        made = self.make_args(size)
        if isinstance(made, Mapping):  # per-function arguments, e.g. NumPy vs device arrays
            args_for = {k: tuple(v) if isinstance(v, (tuple, list)) else (v,) for k, v in made.items()}
            shared = ()
        else:
            args_for = {}
            shared = tuple(made) if isinstance(made, (tuple, list)) else (made,)
        result = compare(self.fns, *shared, args_for=args_for, baseline=self.baseline,
                         budget_s=self.budget_s, title=f"{self.description} {fmt_int(size)}",
                         remeasure=0)  # a slider move must stay quick; moving back measures again
        self.results[size] = result
        self.runs += 1
        self.size = size
        self.target, self.state, self.error = None, "done", ""
        return result

    @property
    def comparison(self) -> Comparison:
        return self.results[self.size]

    # ------------------------------------------------------------------ words
    def headline(self) -> str:
        """``'n = 1 000: fastest JAX jit (450 µs), 2.00× ahead of JAX eager'``."""
        where = f"{self.description} = {fmt_int(self.target if self.target is not None else self.size)}"
        if self.state == "measuring":
            return f"timing {where} …"
        if self.state == "error":
            return f"{where}: {self.error}"
        ranked = sorted(self.comparison.timings.items(), key=lambda kv: kv[1].median_s)
        name, best = ranked[0]
        line = f"{where}: fastest {name} ({fmt_seconds(best.median_s)})"
        if len(ranked) > 1 and best.median_s > 0:
            runner, second = ranked[1]
            line += f", {second.median_s / best.median_s:.2f}× ahead of {runner}"
        return line

    def _history(self):
        """Table rows: every slider size when there are few (unmeasured ones show "—", so the
        table keeps its height as the presenter explores), else the measured sizes only."""
        names = list(self.fns)
        sizes = sorted(self.sizes) if len(self.sizes) <= 8 else sorted(self.results)
        rows = [[fmt_int(s)] + [fmt_seconds(self.results[s][n].median_s) if s in self.results else "—"
                                for n in names] for s in sizes]
        return names, sizes, rows

    def _footnote(self) -> str:
        c = self.comparison
        first = next(iter(c.timings.values()))
        places = dict.fromkeys(t.place for t in c.timings.values())
        compiles = [f"{n} {fmt_seconds(t.compile_s)}{' cached' if t.compile_cached else ''}"
                    for n, t in c.timings.items() if t.compile_s is not None]
        text = ("median per call, blocked on each result"
                + (f"; compile apart: {', '.join(compiles)}" if compiles else "")
                + f"; {', '.join(places)}; jax {first.jax_version}")
        noisy = [n for n, t in c.timings.items() if t.warnings()]
        if noisy:
            text += f"; noisy: {', '.join(noisy)}"
        return text

    def _text(self) -> str:
        names, _, rows = self._history()
        return (f"{self.title or f'time per call vs {self.description}'}\n{self.headline()}\n\n"
                + text_table([self.description] + names, rows, "r" * (len(names) + 1))
                + f"\n\n{self.comparison._text()}")

    def _html(self) -> str:
        names, sizes, rows = self._history()
        for row, s in zip(rows, sizes):  # the fastest entry of each measured row in bold
            row[:] = [esc(c) for c in row]
            if s in self.results:
                times = [self.results[s][n].median_s for n in names]
                best = times.index(min(times))
                row[best + 1] = f"<b>{row[best + 1]}</b>"
        table = html_table([self.description] + names, rows, "r" * (len(names) + 1),
                           raw_columns=range(len(names) + 1), highlight_row=sizes.index(self.size))
        measured = sorted(self.results)
        chart = svg_lines(self.sizes, {n: {s: self.results[s][n].median_s for s in measured} for n in names},
                          current=self.size, x_label=self.description)
        colour = WARN if self.state == "error" else INK
        shown = self.target if self.target is not None else self.size
        head = (f'<div class="jd-size-current" data-size="{int(shown)}" data-state="{esc(self.state)}" '
                f'data-runs="{self.runs}" style="font-size:20px;color:{colour};margin-bottom:0.2em">'
                f"{esc(self.headline())}</div>")
        body = ('<div style="display:flex;flex-wrap:wrap;gap:0 28px;align-items:flex-start">'
                f'<div>{table}</div><div style="flex:1 1 520px;max-width:600px">{chart}</div></div>')
        return box(head + body + small(self._footnote()), title=self.title or None)

    # ------------------------------------------------------------------ live view
    def _build(self):
        import ipywidgets as w

        slider = w.SelectionSlider(options=[(fmt_int(s), s) for s in self.sizes], value=self.size,
                                   description=self.description, continuous_update=False,
                                   layout=w.Layout(width="700px"), style={"description_width": "initial"})
        slider.add_class("jd-size-slider")
        view = w.HTML(value=self._html())
        view.add_class("jd-size-output")

        def changed(change):
            self.target, self.state, self.error = change["new"], "measuring", ""
            view.value = self._html()  # the previous figures stay, under a "timing …" line
            try:
                self.measure(change["new"])
            except Exception as err:  # show it on the slide rather than in the kernel's log
                self.state, self.error = "error", error_text(err)
            view.value = self._html()

        slider.observe(changed, names="value")
        self.slider, self.view = slider, view
        box_ = w.VBox([slider, view])
        box_.add_class("jd-size-explorer")
        return box_
