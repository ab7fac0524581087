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

The explorers themselves live in ``demos._widgets`` (``size``, ``retrace``, ``line_chart``).
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ._widgets import explorer as _explorer
from ._widgets.line_chart import svg_lines
from ._widgets.retrace import PY_FLOAT, RetraceExplorer
from ._widgets.size import SizeExplorer

__all__ = ["PY_FLOAT", "STATIC", "RetraceExplorer", "SizeExplorer", "retrace_explorer", "size_explorer", "svg_lines"]

STATIC = _explorer.static_from_environment()
_explorer.static_only = lambda: STATIC  # read at display time, so setting demos.widgets.STATIC takes effect


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
