"""Shared display helpers: escaping, number formatting, tables, SVG bar charts, highlighting.

Every HTML fragment built here is self-contained (inline CSS and SVG, no scripts, no
external resources) so it survives nbconvert/reveal.js export and PDF printing, and every
piece of text that came from user code or JAX passes through :func:`esc`.

Colours are CSS variables with the light values as fallbacks: the deck's theme (``--jd-*``,
e.g. jaxdeck's projector-dark) or JupyterLab's (``--jp-*``) recolours an output already
executed, so one notebook reads right on a light page, a dark one, on paper and live. SVG
paints are given in ``style`` (:func:`paint`), where ``var()`` is understood.
"""

from __future__ import annotations

import functools
import html
import math
from typing import Iterable, Sequence

# Projector-friendly defaults: large monospace, near-black on white, fits ~1100 px.
FONT = "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace"


def themed(name: str, light: str, lab: str | None = None) -> str:
    """The page's ``--jd-NAME`` colour, else JupyterLab's ``lab`` variable, else ``light``."""
    fallback = f"var(--{lab}, {light})" if lab else light
    return f"var(--jd-{name}, {fallback})"


INK = themed("fg", "#111111", "jp-content-font-color0")
MUTED = themed("muted", "#4a4a4a", "jp-content-font-color2")
RULE = themed("chart-rule", "#c8c8c8", "jp-border-color2")
BG = themed("bg", "#ffffff", "jp-layout-color0")
CODE_BG = themed("code-bg", "#f6f6f4", "jp-cell-editor-background")
PALETTE = tuple(themed(f"chart-{i}", light) for i, light in
                enumerate(("#1f4e9c", "#c4501a", "#2e7d32", "#6a1b9a", "#00838f", "#8d6e00"), start=1))
REFERENCE_COLOUR = themed("chart-reference", "#9e9e9e")
HIGHLIGHT_ROW = themed("chart-highlight", "#eef3fb", "jp-layout-color2")
WARN = themed("warn", "#b00020")
GOOD = themed("good", "#2e7d32")

BOX_STYLE = (
    f"font-family:{FONT};font-size:18px;line-height:1.35;color:{INK};background:{BG};"
    "max-width:1100px;box-sizing:border-box;padding:0.3em 0;text-align:left"
)
#: a line that never wraps: what does not fit ends in an ellipsis (give the element the whole text as its title)
ONE_LINE = "white-space:nowrap;overflow:hidden;text-overflow:ellipsis"


def paint(fill: str | None = None, stroke: str | None = None) -> str:
    """An SVG element's paint as a ``style`` attribute (presentation attributes take no ``var()``)."""
    rules = [f"fill:{fill}" if fill else "", f"stroke:{stroke}" if stroke else ""]
    return f'style="{";".join(r for r in rules if r)}"'


def esc(text: object) -> str:
    """Escape anything for HTML/SVG text and attribute values (``<``, ``>``, ``&``, quotes)."""
    return html.escape(str(text), quote=True)


def box(inner_html: str, title: str | None = None) -> str:
    """Wrap a fragment in the shared projector style, with an optional escaped title."""
    head = ""
    if title:
        head = f'<div style="font-weight:bold;margin-bottom:0.3em">{esc(title)}</div>'
    return f'<div class="demos-output" style="{BOX_STYLE}">{head}{inner_html}</div>'


def small(text: str, one_line: bool = False) -> str:
    """A muted, smaller line (provenance, footnotes); the text is escaped.

    ``one_line``: never wraps, cut with an ellipsis, the whole text on hover (for a crowded slide).
    """
    if one_line:
        return (f'<div title="{esc(text)}" style="font-size:14px;color:{MUTED};margin-top:0.3em;{ONE_LINE}">'
                f'{esc(text)}</div>')
    return f'<div style="font-size:14px;color:{MUTED};margin-top:0.3em">{esc(text)}</div>'


# ---------------------------------------------------------------------------- numbers

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def unit_for(seconds: float) -> tuple[float, str]:
    """The (scale, unit) that shows ``seconds`` with 1-3 digits before the point."""
    s = abs(seconds)
    for scale, unit in _UNITS:
        if s >= scale * 0.9995:
            return scale, unit
    return 1e-9, "ns"


def _decimals(value: float) -> int:
    """Decimals that give three significant digits for a value in [1, 1000)."""
    value = abs(value)
    return 2 if value < 10 else 1 if value < 100 else 0


def fmt_seconds(seconds: float | None, unit: tuple[float, str] | None = None, decimals: int | None = None) -> str:
    """``0.00000123`` -> ``'1.23 µs'`` (three significant digits, trailing zeros kept).

    ``unit``/``decimals`` force a scale, so a spread prints like its median: ``0.04 µs``.
    """
    if seconds is None or (isinstance(seconds, float) and (math.isnan(seconds) or math.isinf(seconds))):
        return "—"
    scale, name = unit or unit_for(seconds)
    value = seconds / scale
    if decimals is None:
        decimals = _decimals(value)
        if unit is None and round(abs(value), decimals) >= 1000 and scale < 1:  # 999.96 ms -> 1.00 s
            scale, name = next(u for u in _UNITS if u[0] == scale * 1000)
            value, decimals = seconds / scale, 2
    return f"{value:.{decimals}f} {name}"


def fmt_spread(spread: float, centre: float) -> str:
    """Format ``spread`` in the unit and precision of ``centre`` (``'± 0.04 µs'`` style)."""
    unit = unit_for(centre)
    decimals = _decimals(centre / unit[0])
    scaled = abs(spread) / unit[0]
    while decimals < 3 and 0 < scaled < 10 ** -decimals:  # keep one significant digit of spread
        decimals += 1
    return fmt_seconds(spread, unit=unit, decimals=decimals)


def fmt_bytes(n: int | None) -> str:
    """A size in MiB, GiB or TiB (``"unknown"`` for none)."""
    if not n:
        return "unknown"
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def fmt_int(n: int) -> str:
    """``100000`` -> ``'100 000'`` (thin-space style grouping that reads well on slides)."""
    return f"{int(n):,}".replace(",", "\u202f")


def fmt_ratio(ratio: float | None) -> str:
    """A time ratio to a baseline: ``'1.00×'``, ``'6.21×'``, ``'0.031×'``."""
    if ratio is None or (isinstance(ratio, float) and (math.isnan(ratio) or math.isinf(ratio))):
        return "—"
    if ratio >= 0.1:
        return f"{ratio:.{_decimals(ratio)}f}×"
    return f"{ratio:.2g}×"


def fmt_speed(ratio: float | None) -> str:
    """Say a time ratio in words: ``6.2× slower`` / ``3.1× faster`` / ``same``."""
    if ratio is None or ratio <= 0 or math.isnan(ratio) or math.isinf(ratio):
        return ""
    if 0.995 <= ratio <= 1.005:
        return "same"
    if ratio > 1:
        return f"{ratio:.{_decimals(ratio)}f}× slower"
    return f"{1 / ratio:.{_decimals(1 / ratio)}f}× faster"


_PARSE_UNITS = {
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3,
    "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "usec": 1e-6,
    "ns": 1e-9, "nsec": 1e-9,
    "min": 60.0,
}


def parse_seconds(value: object) -> float | None:
    """``'1.81 s'``, ``'410 ms'``, ``'7.27 µs'``, ``'7.27us'`` or a number of seconds -> seconds.

    ``None`` stays ``None`` (no reference figure); anything else unreadable raises ValueError.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a duration: {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().replace("\u202f", "").replace(" ", "").replace(",", "")
    number = text.rstrip("abcdefghijklmnopqrstuvwxyzµμ")
    unit = text[len(number):] or "s"
    if unit not in _PARSE_UNITS:
        raise ValueError(f"unknown time unit in {value!r}; use s, ms, µs/us or ns")
    try:
        return float(number) * _PARSE_UNITS[unit]
    except ValueError:
        raise ValueError(f"not a duration: {value!r} (write e.g. '1.81 s' or '410 ms')") from None


# ---------------------------------------------------------------------------- tables

def text_table(headers: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None) -> str:
    """A plain-text table with aligned columns; ``align`` is one 'l'/'r' per column."""
    rows = [[str(c) for c in r] for r in rows]
    headers = [str(h) for h in headers]
    widths = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    align = align or "l" * len(headers)

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            out.append(c.rjust(widths[i]) if align[i] == "r" else c.ljust(widths[i]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def html_table(headers: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None,
               raw_columns: Sequence[int] = (), highlight_row: int | None = None) -> str:
    """An inline-styled HTML table; cells are escaped unless their column is in ``raw_columns``
    (used only for HTML this package built itself)."""
    align = align or "l" * len(headers)
    th = f"padding:0.25em 0.7em;border-bottom:2px solid {INK};font-weight:bold"
    td = f"padding:0.2em 0.7em;border-bottom:1px solid {RULE};vertical-align:top"
    head = "".join(
        f'<th style="{th};text-align:{"right" if align[i] == "r" else "left"}">{esc(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = []
    for j, r in enumerate(rows):
        cells = []
        for i, c in enumerate(r):
            content = str(c) if i in raw_columns else esc(c)
            style = f'{td};text-align:{"right" if align[i] == "r" else "left"}'
            cells.append(f'<td style="{style}">{content}</td>')
        bg = f' style="background:{HIGHLIGHT_ROW}"' if highlight_row == j else ""
        body.append(f"<tr{bg}>{''.join(cells)}</tr>")
    return (
        f'<table style="border-collapse:collapse;font-family:{FONT};font-size:18px;color:{INK};'
        f'margin:0.2em 0">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


# ---------------------------------------------------------------------------- charts
# Drawn as SVG by hand, not with matplotlib: a chart here is a few bars or lines in the deck's own
# colours and font, updated many times a second by the explorers' sliders; as inline SVG it is
# sharp at any projector scale, prints as vectors in the PDFs, reads the same in the live
# slideshow and the static deck, and costs nothing at kernel start (matplotlib.pyplot's import
# takes 0.6 s here). matplotlib stays installed for the talks' own plots and JAX's tutorials.

def svg_bars(labels: Sequence[str], values: Sequence[float | None], value_labels: Sequence[str] | None = None,
             colours: Sequence[str] | None = None, title: str | None = None, log: bool | None = None,
             series: Sequence[Sequence[float | None]] | None = None, series_names: Sequence[str] = (),
             series_colours: Sequence[str] = (), series_value_labels: Sequence[Sequence[str]] | None = None,
             width: int = 1000, axis_label: str = "") -> str:
    """A horizontal bar chart as inline SVG.

    ``values`` is the main series (one bar per label); ``series`` optionally adds further
    series drawn as thinner bars under each main bar (e.g. reference figures). ``log=None``
    picks a log axis when the values span more than 50×, so tiny bars stay visible.
    """
    all_series = [list(values)] + [list(s) for s in (series or [])]
    all_labels = [list(value_labels) if value_labels else [""] * len(values)]
    if series:
        extra = series_value_labels or [[""] * len(values) for _ in series]
        all_labels += [list(x) for x in extra]
    positive = [v for s in all_series for v in s if v is not None and v > 0]
    if not positive:
        return ""
    vmax, vmin = max(positive), min(positive)
    if log is None:
        log = vmax / vmin > 50
    label_w = min(260, 20 + 11 * max((len(str(l)) for l in labels), default=4))
    value_w = 20 + 10 * max((len(v) for vl in all_labels for v in vl), default=0)
    plot_w = max(200, width - label_w - value_w)
    main_h, extra_h, gap = 30, 16, 14
    row_h = main_h + extra_h * len(series or []) + gap
    top = 34 if title else 8
    legend_h = 26 if series_names else 0
    height = top + row_h * len(labels) + legend_h + (22 if axis_label else 4)

    if log:
        lo = math.floor(math.log10(vmin)) - 0.15
        hi = math.log10(vmax) + 0.02

        def length(v):
            return plot_w * (math.log10(v) - lo) / (hi - lo)
    else:
        def length(v):
            return plot_w * v / vmax

    colours = list(colours or [PALETTE[i % len(PALETTE)] for i in range(len(labels))])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" '
        f'viewBox="0 0 {width} {height}" style="max-width:{width}px;font-family:{FONT}">'
    ]
    if title:
        parts.append(f'<text x="0" y="22" font-size="20" font-weight="bold" {paint(INK)}>{esc(title)}</text>')
    y = top
    for i, label in enumerate(labels):
        parts.append(
            f'<text x="{label_w - 10}" y="{y + main_h * 0.7:.1f}" font-size="18" text-anchor="end" '
            f'{paint(INK)}>{esc(label)}</text>'
        )
        yy = y
        for k, s in enumerate(all_series):
            h = main_h if k == 0 else extra_h - 2
            colour = colours[i] if k == 0 else (series_colours[k - 1] if k - 1 < len(series_colours) else REFERENCE_COLOUR)
            v = s[i] if i < len(s) else None
            if v is not None and v > 0:
                w = max(2.0, length(v))
                parts.append(f'<rect x="{label_w}" y="{yy}" width="{w:.1f}" height="{h}" {paint(colour)}/>')
                text = all_labels[k][i] if i < len(all_labels[k]) else ""
                if text:
                    fs = 17 if k == 0 else 13
                    parts.append(
                        f'<text x="{label_w + w + 6:.1f}" y="{yy + h * 0.5 + fs * 0.35:.1f}" font-size="{fs}" '
                        f'{paint(INK if k == 0 else MUTED)}>{esc(text)}</text>'
                    )
            yy += h + (2 if k == 0 else 2)
        y += row_h
    if series_names:
        x = label_w
        names = list(series_names)
        cols = [colours[0]] + [series_colours[k] if k < len(series_colours) else REFERENCE_COLOUR
                               for k in range(len(names) - 1)]
        for name, colour in zip(names, cols):
            parts.append(f'<rect x="{x}" y="{y + 4}" width="14" height="14" {paint(colour)}/>')
            parts.append(f'<text x="{x + 20}" y="{y + 16}" font-size="15" {paint(INK)}>{esc(name)}</text>')
            x += 40 + 9 * len(name)
        y += legend_h
    if axis_label:
        scale_note = " (log scale)" if log else ""
        parts.append(
            f'<text x="{label_w}" y="{y + 14}" font-size="14" {paint(MUTED)}>{esc(axis_label + scale_note)}</text>'
        )
    parts.append(f'<line x1="{label_w}" y1="{top - 2}" x2="{label_w}" y2="{top + row_h * len(labels) - gap + 2}" '
                 f'{paint(stroke=INK)} stroke-width="1.5"/>')
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------- code

#: token type -> (JupyterLab's code colour variable, Pygments' default colour, weight/slant)
_CODE_COLOURS = {
    "Comment": ("comment", "#3d7b7b", "italic"), "Keyword": ("keyword", "#008000", "bold"),
    "Keyword.Type": ("variable-3", "#b00040", "nobold"), "Name.Builtin": ("builtin", "#008000", ""),
    "Name.Function": ("def", "#0000ff", ""), "Name.Variable": ("variable-2", "#19177c", ""),
    "Number": ("number", "#666666", ""), "String": ("string", "#ba2121", ""),
    "Operator": ("operator", "#666666", ""),
}  # other tokens (names, punctuation) take the text's colour


@functools.lru_cache(maxsize=1)
def _themed_style():
    """A Pygments style whose colours are JupyterLab's code variables (as nbconvert's own
    highlighting is), with Pygments' default colours as fallbacks: a dark theme recolours it."""
    from pygments.style import Style
    from pygments.token import string_to_tokentype

    styles = {string_to_tokentype(name): f"{weight} var(--jp-mirror-editor-{var}-color,{light})".strip()
              for name, (var, light, weight) in _CODE_COLOURS.items()}
    return type("ThemedStyle", (Style,), {"styles": styles, "background_color": CODE_BG})


def highlight(code: str, lexer) -> str:
    """Pygments-highlighted code as a self-contained ``<pre>`` (inline styles, no classes)."""
    from pygments import highlight as _hl
    from pygments.formatters import HtmlFormatter

    spans = _hl(code, lexer, HtmlFormatter(noclasses=True, nowrap=True, style=_themed_style()))
    return (
        f'<pre style="font-family:{FONT};font-size:16px;line-height:1.3;background:{CODE_BG};color:{INK};'
        f'padding:0.6em 0.8em;margin:0.2em 0;white-space:pre-wrap;overflow-wrap:anywhere;'
        f'max-width:1100px;box-sizing:border-box;border-left:4px solid {PALETTE[0]}">{spans}</pre>'
    )


class Displayable:
    """Mixin: ``__repr__`` is the readable text form, ``_repr_html_`` the rich one."""

    def _text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def _html(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def __str__(self) -> str:
        return self._text()

    def __repr__(self) -> str:
        return self._text()

    def _repr_html_(self) -> str:
        return self._html()

    def _repr_pretty_(self, p, cycle):  # IPython's text/plain uses this over __repr__
        p.text(self._text())
