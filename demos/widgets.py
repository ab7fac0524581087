"""Interactive explorers for live slides, each with a static rendering for exported decks.

Displaying an explorer sends one output with three representations: the live ipywidgets
view (used by Jupyter/RISE), and ``text/html`` + ``text/plain`` of its current state, which
nbconvert/reveal.js exports and PDFs fall back to when no widget JavaScript runs. Set
``demos.widgets.STATIC = True`` (or the environment variable ``DEMOS_STATIC_WIDGETS=1``)
to send only the static part.

The live views carry CSS classes a presenter's stylesheet or a browser test can find:
``jd-size-explorer`` (its slider ``jd-size-slider``, its output ``jd-size-output``) and
``jd-retrace-explorer`` (controls ``jd-retrace-shape``, ``jd-retrace-dtype``,
``jd-retrace-static``, buttons ``jd-retrace-call`` and ``jd-retrace-reset``, output
``jd-retrace-log``). The first line of each output says what the last action did, with
``data-`` attributes that do not depend on number formatting.
"""

from __future__ import annotations

import math
import os
from typing import Callable, Mapping, Sequence

from ._display import (
    FONT,
    INK,
    MUTED,
    PALETTE,
    RULE,
    WARN,
    Displayable,
    box,
    esc,
    fmt_int,
    fmt_seconds,
    html_table,
    small,
    text_table,
    unit_for,
)
from .timing import Comparison, compare
from .tracing import Watched, watch

STATIC = os.environ.get("DEMOS_STATIC_WIDGETS", "").lower() in ("1", "true", "yes")


class _Explorer(Displayable):
    """Shared display plumbing: static text/html always, the widget view when live."""

    _widget = None

    def widget(self):
        """The ipywidgets view (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {"text/plain": self._text(), "text/html": self._html()}
        if not STATIC:
            view = self.widget()._repr_mimebundle_()
            data.update({k: v for k, v in view.items() if k != "text/plain"})
        return data


def _error_text(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")


# ---------------------------------------------------------------------------- line chart


def _decade_label(exponent: int) -> str:
    """``-6`` -> ``'1 µs'``, ``-4`` -> ``'100 µs'``, ``-3`` -> ``'1 ms'``."""
    value = 10.0 ** exponent
    scale, unit = unit_for(value)
    return f"{value / scale:.0f} {unit}"


def svg_lines(xs: Sequence[int], series: Mapping[str, Mapping[int, float]], current: int | None = None,
              width: int = 600, height: int = 220, x_label: str = "", y_label: str = "time per call") -> str:
    """Log-log line chart of seconds against sizes, as inline SVG (no scripts, text escaped).

    ``xs``: every size the axis should show (the explorer's slider positions, so the axis
    does not move as points arrive); ``series``: ``{name: {size: seconds}}``; ``current``:
    the size marked with a dashed line and larger dots.
    """
    values = [v for points in series.values() for v in points.values() if v and v > 0]
    if not xs or not values:
        return ""
    left, right, top, bottom = 78, 16, 32, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    x_lo, x_hi = math.log10(min(xs)), math.log10(max(xs))
    if x_hi - x_lo < 1e-9:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    pad = 0.04 * (x_hi - x_lo)
    x_lo, x_hi = x_lo - pad, x_hi + pad
    y_lo, y_hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    if y_hi <= y_lo:
        y_hi = y_lo + 1

    def px(x):
        return left + plot_w * (math.log10(x) - x_lo) / (x_hi - x_lo)

    def py(v):
        return top + plot_h * (1 - (math.log10(v) - y_lo) / (y_hi - y_lo))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 {width} {height}" '
             f'style="max-width:{width}px;font-family:{FONT}">']
    for k in range(y_lo, y_hi + 1):  # decade grid lines and labels
        y = py(10.0 ** k)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{RULE}"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 5:.1f}" font-size="15" text-anchor="end" '
                     f'fill="{MUTED}">{esc(_decade_label(k))}</text>')
    last_end = -math.inf
    for x in sorted(xs):  # size labels, leaving out any that would overlap the previous one
        text = fmt_int(x)
        half = 4.6 * len(text)
        if px(x) - half < last_end + 6:
            continue
        last_end = px(x) + half
        parts.append(f'<text x="{px(x):.1f}" y="{top + plot_h + 20}" font-size="15" text-anchor="middle" '
                     f'fill="{MUTED}">{esc(text)}</text>')
    if x_label or y_label:
        label = ", ".join(s for s in (f"{y_label} (log)" if y_label else "", f"{x_label} (log)" if x_label else "") if s)
        parts.append(f'<text x="{left}" y="{height - 6}" font-size="14" fill="{MUTED}">{esc(label)}</text>')
    if current is not None:
        x = px(current)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="{INK}" '
                     'stroke-dasharray="5,4" stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="{INK}" stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
                 f'stroke="{INK}" stroke-width="1.5"/>')
    legend_x = left
    for i, (name, points) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        pts = sorted((x, v) for x, v in points.items() if v and v > 0)
        if len(pts) > 1:
            path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in pts)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="3"/>')
        for x, v in pts:
            r = 7 if x == current else 4.5
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="{r}" fill="{colour}"/>')
        parts.append(f'<rect x="{legend_x}" y="6" width="14" height="14" fill="{colour}"/>')
        parts.append(f'<text x="{legend_x + 20}" y="18" font-size="16" fill="{INK}">{esc(name)}</text>')
        legend_x += 44 + 10 * len(name)
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------- size explorer


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
        places = dict.fromkeys("host CPU" if t.backend == "host" else f"{t.device_count} × {t.device} ({t.backend})"
                               for t in c.timings.values())
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
                self.state, self.error = "error", _error_text(err)
            view.value = self._html()

        slider.observe(changed, names="value")
        self.slider, self.view = slider, view
        box_ = w.VBox([slider, view])
        box_.add_class("jd-size-explorer")
        return box_


def size_explorer(fns: Mapping[str, Callable], make_args: Callable[[int], object], sizes: Sequence[int],
                  value: int | None = None, budget_s: float = 0.1, baseline: str | None = None,
                  title: str = "", upfront: Sequence[int] = (), description: str = "size") -> SizeExplorer:
    """A size slider that re-times ``fns`` (e.g. NumPy / JAX eager / JAX jit) at each size.

    ``make_args(n)`` returns the arguments for size ``n``: one value, a tuple shared by all
    functions, or a dict ``{name: args}`` so NumPy gets NumPy arrays and JAX device arrays.
    Before display only ``value`` (default: the first size) and the sizes in ``upfront`` are
    timed, with ``budget_s`` per function, so the first render stays around a second on a
    small CPU; the static rendering shows those. ``description`` names the size (the
    slider's label, the table's first column, the chart's axis).
    """
    return SizeExplorer(fns, make_args, sizes, value=value, budget_s=budget_s, baseline=baseline, title=title,
                        upfront=upfront, description=description)


# ---------------------------------------------------------------------------- retrace explorer


def _default_fn(x, n=2):
    import jax.numpy as jnp

    return jnp.sin(x) * n


PY_FLOAT = "Python float"


class RetraceExplorer(_Explorer):
    """Pick a shape, dtype (and static value): each change calls the watched function once and
    the log says whether it traced and why; "call again" repeats the call (a cache hit)."""

    def __init__(self, fn: Callable | None = None, shapes: Sequence[tuple] = ((3,), (4,), (2, 3)),
                 dtypes: Sequence[str] = ("float32", "int32", "bfloat16", PY_FLOAT),
                 static_name: str | None = None, static_values: Sequence = (),
                 script: Sequence[tuple] | None = None, max_rows: int = 6):
        name = None
        if fn is None:
            fn, static_name, name = _default_fn, static_name or "n", "f"
            static_values = tuple(static_values) or (2, 3)
        self.shapes = [tuple(s) for s in shapes]
        self.dtypes = list(dtypes)
        self.static_name = static_name
        self.static_values = list(static_values)
        self.max_rows = max(1, int(max_rows))
        self.error = ""
        self.last_inputs: tuple | None = None  # (shape, dtype, static value) of the last call
        jit_kwargs = {"static_argnames": (static_name,)} if static_name else {}
        self.watched: Watched = watch(fn, name=name, **jit_kwargs)
        if script is None:
            s0, s1 = self.shapes[0], self.shapes[1 % len(self.shapes)]
            d0, d1 = self.dtypes[0], self.dtypes[1 % len(self.dtypes)]
            script = [(s0, d0), (s1, d0), (s0, d0), (s0, d1)]
            if static_name and len(self.static_values) > 1:
                script.append((s0, d0, self.static_values[1]))
        for step in script:
            self.call(*step)

    def make_input(self, shape: tuple, dtype: str):
        """The argument for one call: zeros of shape/dtype, or a Python float (weakly typed)."""
        import jax.numpy as jnp

        if dtype == PY_FLOAT:
            return 1.0
        return jnp.zeros(tuple(shape), dtype=dtype)

    def call(self, shape: tuple, dtype: str, static=None):
        """Call the watched function once; returns its result."""
        kwargs = {}
        if self.static_name:
            kwargs[self.static_name] = static if static is not None else (
                self.static_values[0] if self.static_values else None)
            if kwargs[self.static_name] is None:
                del kwargs[self.static_name]
        self.last_inputs = (tuple(shape), dtype, kwargs.get(self.static_name) if self.static_name else None)
        return self.watched(self.make_input(shape, dtype), **kwargs)

    # ------------------------------------------------------------------ words
    def headline(self) -> str:
        """What the last call did: ``'call 6 traced and compiled: new dtype: x f32[8] -> i32[8]'``."""
        if self.error:
            return f"call failed: {self.error}"
        if not self.watched.log:
            return "not called yet"
        rec = self.watched.log[-1]
        if rec.traced:
            return f"call {rec.index} traced{' and compiled' if rec.compiled else ''}: {rec.why}"
        return f"call {rec.index}: {rec.why}, nothing traced"

    def _hint(self) -> str:
        what = ", ".join(["shape", "dtype"] + ([self.static_name] if self.static_name and self.static_values else []))
        return f"change {what}: each change is one call, and only a new signature traces; call again: a cache hit"

    def _text(self) -> str:
        return f"{self.headline()}\n{self.watched._text()}"

    def _html(self) -> str:
        log = self.watched.log
        shown = log[-self.max_rows:]
        styled = self.watched._html_rows(last=self.max_rows)
        table = (html_table(["#", "call", "trace", "compile", "why"], styled, "rllll", raw_columns=range(5),
                            highlight_row=len(styled) - 1) if styled
                 else f'<div style="color:{MUTED}">not called yet</div>')
        earlier = (f'<div style="color:{MUTED}">… {len(log) - len(shown)} earlier call(s) not shown</div>'
                   if len(log) > len(shown) else "")
        last = log[-1] if log else None
        state = "error" if self.error else ("none" if last is None else "traced" if last.traced else "hit")
        colour = WARN if state in ("error", "traced") else INK
        head = (f'<div class="jd-retrace-last" data-calls="{len(log)}" data-traces="{self.watched.traces}" '
                f'data-state="{state}" style="font-size:20px;color:{colour};margin-bottom:0.2em">'
                f"{esc(self.headline())}</div>")
        return box(head + earlier + table + small(self._hint()), title=self.watched.summary())

    # ------------------------------------------------------------------ live view
    def _build(self):
        import ipywidgets as w

        # the menus start at the last scripted call, so "call again" repeats what the log shows
        last_shape, last_dtype, last_static = self.last_inputs or (None, None, None)
        narrow = w.Layout(width="auto")
        shape = w.Dropdown(options=[(str(s), s) for s in self.shapes], description="shape", layout=narrow,
                           value=last_shape if last_shape in self.shapes else self.shapes[0])
        dtype = w.Dropdown(options=self.dtypes, description="dtype", layout=narrow,
                           value=last_dtype if last_dtype in self.dtypes else self.dtypes[0])
        shape.add_class("jd-retrace-shape")
        dtype.add_class("jd-retrace-dtype")
        controls = [shape, dtype]
        static = None
        if self.static_name and self.static_values:
            static = w.Dropdown(options=self.static_values, description=self.static_name, layout=narrow,
                                value=last_static if last_static in self.static_values else self.static_values[0])
            static.add_class("jd-retrace-static")
            controls.append(static)
        go = w.Button(description="call again", button_style="primary")
        reset = w.Button(description="reset")
        go.add_class("jd-retrace-call")
        reset.add_class("jd-retrace-reset")
        view = w.HTML(value=self._html())
        view.add_class("jd-retrace-log")

        def call_now(*_):
            try:
                self.call(shape.value, dtype.value, static.value if static is not None else None)
                self.error = ""
            except Exception as err:  # show it on the slide rather than in the kernel's log
                self.error = _error_text(err)
            view.value = self._html()

        def on_reset(_):
            self.watched.reset()
            self.error = ""
            view.value = self._html()

        for control in controls:
            control.observe(call_now, names="value")
        go.on_click(call_now)
        reset.on_click(on_reset)
        self.controls, self.view, self.buttons = controls, view, (go, reset)
        top = w.VBox([w.HBox(controls + [go, reset]), view])
        top.add_class("jd-retrace-explorer")
        return top


def retrace_explorer(fn: Callable | None = None, shapes: Sequence[tuple] = ((3,), (4,), (2, 3)),
                     dtypes: Sequence[str] = ("float32", "int32", "bfloat16", PY_FLOAT),
                     static_name: str | None = None, static_values: Sequence = (),
                     script: Sequence[tuple] | None = None, max_rows: int = 6) -> RetraceExplorer:
    """Choose shapes/dtypes (and a static argument's value) and watch which calls retrace.

    ``fn`` defaults to ``sin(x) * n`` with ``n`` static. ``script``: the calls made before
    display, as ``(shape, dtype[, static value])`` tuples, so the static export already shows
    a first call, a new shape, a cache hit and a new dtype. Live, every change of a control
    calls the function once. The table shows the last ``max_rows`` calls (the title counts
    all of them), so it fits on a slide however long the presenter plays.
    """
    return RetraceExplorer(fn, shapes, dtypes, static_name, static_values, script, max_rows)
