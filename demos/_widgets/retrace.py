"""The retrace explorer: menus of shapes, dtypes and a static value; each change is one watched call."""

from __future__ import annotations

from typing import Callable, Sequence

from .._display import INK, MUTED, WARN, box, esc, small
from .._tracing.watch import Watched, watch
from .explorer import _Explorer, error_text


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
        table = self.watched.log_table(last=self.max_rows, highlight_last=True)
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
                self.error = error_text(err)
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
