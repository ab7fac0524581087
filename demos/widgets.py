"""Interactive explorers for live slides, each with a static rendering for exported decks.

Displaying an explorer sends one output with three representations: the live ipywidgets
view (used by Jupyter/RISE), and ``text/html`` + ``text/plain`` of its current state, which
nbconvert/reveal.js exports and PDFs fall back to when no widget JavaScript runs. Set
``demos.widgets.STATIC = True`` (or the environment variable ``DEMOS_STATIC_WIDGETS=1``)
to send only the static part.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping, Sequence

from ._display import Displayable, box, esc, fmt_int, fmt_seconds, html_table, small, text_table
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


# ---------------------------------------------------------------------------- size explorer


class SizeExplorer(_Explorer):
    """Slider over problem sizes; every move re-times the functions and redraws the chart."""

    def __init__(self, fns: Mapping[str, Callable], make_args: Callable[[int], object], sizes: Sequence[int],
                 value: int | None = None, budget_s: float = 0.1, baseline: str | None = None, title: str = ""):
        if not sizes:
            raise ValueError("sizes must not be empty")
        self.fns = dict(fns)
        self.make_args = make_args
        self.sizes = list(sizes)
        self.budget_s = budget_s
        self.baseline = baseline
        self.title = title or "time per call vs problem size"
        self.results: dict[int, Comparison] = {}
        self.size = self.sizes[0] if value is None else value
        self.measure(self.size)

    def measure(self, size: int) -> Comparison:
        """Time every function at ``size`` (cached per size) and make it the current size."""
        if size not in self.results:
            made = self.make_args(size)
            if isinstance(made, Mapping):  # per-function arguments, e.g. NumPy vs device arrays
                args_for = {k: tuple(v) if isinstance(v, (tuple, list)) else (v,) for k, v in made.items()}
                shared = ()
            else:
                args_for = {}
                shared = tuple(made) if isinstance(made, (tuple, list)) else (made,)
            self.results[size] = compare(self.fns, *shared, args_for=args_for, baseline=self.baseline,
                                         budget_s=self.budget_s, title=f"size {fmt_int(size)}")
        self.size = size
        return self.results[size]

    @property
    def comparison(self) -> Comparison:
        return self.results[self.size]

    def _history_rows(self):
        names = list(self.fns)
        return [[fmt_int(s)] + [fmt_seconds(self.results[s][n].median_s) for n in names]
                for s in sorted(self.results)]

    def _text(self) -> str:
        names = list(self.fns)
        return (f"{self.title}\n{self.comparison._text()}\n\nmeasured sizes:\n"
                + text_table(["size"] + names, self._history_rows(), "r" * (len(names) + 1)))

    def _html(self) -> str:
        names = list(self.fns)
        history = html_table(["size"] + names, self._history_rows(), "r" * (len(names) + 1))
        return box(self.comparison._html() + '<div style="margin-top:0.4em">measured sizes</div>' + history,
                   title=self.title)

    def _build(self):
        import ipywidgets as w

        slider = w.SelectionSlider(options=[(fmt_int(s), s) for s in self.sizes], value=self.size,
                                   description="size", continuous_update=False,
                                   layout=w.Layout(width="700px"), style={"description_width": "initial"})
        view = w.HTML(value=self._html())

        def changed(change):
            view.value = box(f"<div>timing size {esc(fmt_int(change['new']))} …</div>")
            self.measure(change["new"])
            view.value = self._html()

        slider.observe(changed, names="value")
        self.slider, self.view = slider, view
        return w.VBox([slider, view])


def size_explorer(fns: Mapping[str, Callable], make_args: Callable[[int], object], sizes: Sequence[int],
                  value: int | None = None, budget_s: float = 0.1, baseline: str | None = None,
                  title: str = "") -> SizeExplorer:
    """A size slider that re-times ``fns`` (e.g. NumPy / JAX eager / JAX jit) at each size.

    ``make_args(n)`` returns the arguments for size ``n``: one value, a tuple shared by all
    functions, or a dict ``{name: args}`` so NumPy gets NumPy arrays and JAX device arrays.
    Only the starting size is timed up front, with ``budget_s`` per function, so the first
    render stays around a second on a small CPU.
    """
    return SizeExplorer(fns, make_args, sizes, value=value, budget_s=budget_s, baseline=baseline, title=title)


# ---------------------------------------------------------------------------- retrace explorer


def _default_fn(x, n=2):
    import jax.numpy as jnp

    return jnp.sin(x) * n


PY_FLOAT = "Python float"


class RetraceExplorer(_Explorer):
    """Pick a shape, dtype (and static value); call the watched function; see what retraced."""

    def __init__(self, fn: Callable | None = None, shapes: Sequence[tuple] = ((3,), (4,), (2, 3)),
                 dtypes: Sequence[str] = ("float32", "int32", "bfloat16", PY_FLOAT),
                 static_name: str | None = None, static_values: Sequence = (),
                 script: Sequence[tuple] | None = None):
        name = None
        if fn is None:
            fn, static_name, name = _default_fn, static_name or "n", "f"
            static_values = tuple(static_values) or (2, 3)
        self.shapes = [tuple(s) for s in shapes]
        self.dtypes = list(dtypes)
        self.static_name = static_name
        self.static_values = list(static_values)
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
        return self.watched(self.make_input(shape, dtype), **kwargs)

    def _text(self) -> str:
        return self.watched._text()

    def _html(self) -> str:
        return self.watched._html() + box(small("pick a shape and dtype, then call: only a new signature traces"))

    def _build(self):
        import ipywidgets as w

        shape = w.Dropdown(options=[(str(s), s) for s in self.shapes], value=self.shapes[0], description="shape")
        dtype = w.Dropdown(options=self.dtypes, value=self.dtypes[0], description="dtype")
        controls = [shape, dtype]
        static = None
        if self.static_name and self.static_values:
            static = w.Dropdown(options=self.static_values, value=self.static_values[0],
                                description=self.static_name)
            controls.append(static)
        go = w.Button(description="call", button_style="primary")
        reset = w.Button(description="reset")
        view = w.HTML(value=self.watched._html())

        def on_call(_):
            self.call(shape.value, dtype.value, static.value if static is not None else None)
            view.value = self.watched._html()

        def on_reset(_):
            self.watched.reset()
            view.value = self.watched._html()

        go.on_click(on_call)
        reset.on_click(on_reset)
        self.controls, self.view, self.buttons = controls, view, (go, reset)
        return w.VBox([w.HBox(controls + [go, reset]), view])


def retrace_explorer(fn: Callable | None = None, shapes: Sequence[tuple] = ((3,), (4,), (2, 3)),
                     dtypes: Sequence[str] = ("float32", "int32", "bfloat16", PY_FLOAT),
                     static_name: str | None = None, static_values: Sequence = (),
                     script: Sequence[tuple] | None = None) -> RetraceExplorer:
    """Choose shapes/dtypes (and a static argument's value) and watch which calls retrace.

    ``fn`` defaults to ``sin(x) * n`` with ``n`` static. ``script``: the calls made before
    display, as ``(shape, dtype[, static value])`` tuples, so the static export already shows
    a first call, a new shape, a cache hit and a new dtype.
    """
    return RetraceExplorer(fn, shapes, dtypes, static_name, static_values, script)
