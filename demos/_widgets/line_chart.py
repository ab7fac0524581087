"""A log-log line chart of time per call against problem size, as inline SVG (for the size explorer)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from .._display import FONT, INK, MUTED, PALETTE, RULE, esc, fmt_int, paint, unit_for


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
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" {paint(stroke=RULE)}/>')
        parts.append(f'<text x="{left - 8}" y="{y + 5:.1f}" font-size="15" text-anchor="end" '
                     f'{paint(MUTED)}>{esc(_decade_label(k))}</text>')
    last_end = -math.inf
    for x in sorted(xs):  # size labels, leaving out any that would overlap the previous one
        text = fmt_int(x)
        half = 4.6 * len(text)
        if px(x) - half < last_end + 6:
            continue
        last_end = px(x) + half
        parts.append(f'<text x="{px(x):.1f}" y="{top + plot_h + 20}" font-size="15" text-anchor="middle" '
                     f'{paint(MUTED)}>{esc(text)}</text>')
    if x_label or y_label:
        label = ", ".join(s for s in (f"{y_label} (log)" if y_label else "", f"{x_label} (log)" if x_label else "") if s)
        parts.append(f'<text x="{left}" y="{height - 6}" font-size="14" {paint(MUTED)}>{esc(label)}</text>')
    if current is not None:
        x = px(current)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" {paint(stroke=INK)} '
                     'stroke-dasharray="5,4" stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" {paint(stroke=INK)} stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
                 f'{paint(stroke=INK)} stroke-width="1.5"/>')
    legend_x = left
    for i, (name, points) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        pts = sorted((x, v) for x, v in points.items() if v and v > 0)
        if len(pts) > 1:
            path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in pts)
            parts.append(f'<polyline points="{path}" {paint("none", colour)} stroke-width="3"/>')
        for x, v in pts:
            r = 7 if x == current else 4.5
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="{r}" {paint(colour)}/>')
        parts.append(f'<rect x="{legend_x}" y="6" width="14" height="14" {paint(colour)}/>')
        parts.append(f'<text x="{legend_x + 20}" y="18" font-size="16" {paint(INK)}>{esc(name)}</text>')
        legend_x += 44 + 10 * len(name)
    parts.append("</svg>")
    return "".join(parts)
