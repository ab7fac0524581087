""":func:`explain`: JAX's own ``jax_log_compiles`` / ``jax_explain_cache_misses`` log, captured
into a displayable :class:`CompileLog` instead of the cell's stderr.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from .._display import MUTED, Displayable, box, fmt_seconds, html_table, small, text_table

_PATTERNS = (
    ("cache miss", re.compile(r"^TRACING CACHE MISS at (?P<where>.*?)(?::\n|$)(?P<detail>.*)", re.S)),
    ("compiling", re.compile(r"^Compiling (?P<fn>\S+) with global shapes and types (?P<detail>.*?)\. Argument", re.S)),
    ("traced", re.compile(r"^Finished tracing (?P<fn>.+?) for jit in (?P<secs>[\d.e-]+) sec")),
    ("lowered", re.compile(r"^Finished jaxpr to MLIR module conversion (?P<fn>\S+) in (?P<secs>[\d.e-]+) sec")),
    ("compiled", re.compile(r"^Finished XLA compilation of (?P<fn>\S+) in (?P<secs>[\d.e-]+) sec")),
)


#: a link JAX appends to an explanation, glued to its last line
_LINK = re.compile(r"https?://\S+")


@dataclass
class LogEvent:
    kind: str
    function: str
    detail: str
    message: str

    @property
    def differences(self) -> list[str]:
        """What a cache miss found different from the closest key seen before, one item each
        (``"at x, now f32[]{weak_type=False} and before f32[]{weak_type=True}"``), without JAX's
        links: so a slide quotes JAX's reason without cutting its message. ``[]`` for other events."""
        items = [ln.strip()[2:] for ln in self.message.splitlines() if ln.strip().startswith("* ")]
        return [_LINK.sub("", item).strip() for item in items] if self.kind == "cache miss" else []


def _parse(message: str) -> LogEvent:
    for kind, pattern in _PATTERNS:
        m = pattern.match(message)
        if not m:
            continue
        groups = m.groupdict()
        if kind == "cache miss":
            lines = [ln.strip() for ln in groups.get("detail", "").splitlines() if ln.strip()]
            fn = ""
            for ln in lines:
                mm = re.match(r"(?:for|never seen function:)\s*(\S+)", ln)
                if mm:
                    fn = mm.group(1)
                    break
            if not fn and len(lines) > 1 and lines[0].startswith("never seen function"):
                fn = lines[1].split()[0]
            return LogEvent(kind, fn, " ".join(lines), message)
        detail = groups.get("detail", "")
        if "secs" in groups:
            what = {"traced": "tracing", "lowered": "lowering to StableHLO", "compiled": "XLA compilation"}[kind]
            detail = f"{what} took {fmt_seconds(float(groups['secs']))}"
        return LogEvent(kind, groups.get("fn", ""), detail.strip(), message)
    return LogEvent("log", "", message.strip(), message)


class _Capture(logging.Handler):
    def __init__(self, sink: list):
        super().__init__(level=logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.sink.append(_parse(record.getMessage()))
        except Exception:  # never let a display helper break the demo
            pass


class CompileLog(Displayable):
    """What JAX itself logged about tracing and compiling inside a ``with explain():`` block."""

    def __init__(self, show: bool | None = None, echo: bool = False):
        self.events: list[LogEvent] = []
        self.show = show
        self.echo = echo
        self._saved = None

    def __enter__(self) -> "CompileLog":
        import jax

        self._saved = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
        jax.config.update("jax_log_compiles", True)
        jax.config.update("jax_explain_cache_misses", True)
        self._logger = logging.getLogger("jax")
        self._handler = _Capture(self.events)
        self._propagate = self._logger.propagate
        self._logger.addHandler(self._handler)
        if not self.echo:
            self._logger.propagate = False  # keep the raw log out of the cell's stderr
        return self

    def __exit__(self, *exc) -> None:
        import jax

        jax.config.update("jax_log_compiles", self._saved[0])
        jax.config.update("jax_explain_cache_misses", self._saved[1])
        self._logger.removeHandler(self._handler)
        self._logger.propagate = self._propagate
        show = self.show
        if show is None:
            show = _in_ipython()
        if show:
            try:
                from IPython.display import display

                display(self)
            except Exception:
                pass

    # ------------------------------------------------------------------ views
    def of_kind(self, kind: str) -> list[LogEvent]:
        return [e for e in self.events if e.kind == kind]

    @property
    def compiles(self) -> int:
        return len(self.of_kind("compiled"))

    @property
    def cache_misses(self) -> list[str]:
        """JAX's own explanations of why the tracing cache missed."""
        return [e.detail for e in self.of_kind("cache miss")]

    def summary(self) -> str:
        names = [e.function for e in self.of_kind("compiled")]
        counts = {n: names.count(n) for n in dict.fromkeys(names)}
        listed = ", ".join(f"{n} × {c}" for n, c in counts.items()) or "none"
        return f"JAX compile log: {self.compiles} XLA compilations ({listed}); {len(self.cache_misses)} cache misses explained"

    def _rows(self):
        return [[str(i), e.kind, e.function, e.detail] for i, e in enumerate(self.events, 1)]

    def _text(self) -> str:
        if not self.events:
            return self.summary()
        return self.summary() + "\n" + text_table(["#", "event", "function", "detail"], self._rows(), "rlll")

    def _html(self) -> str:
        rows = self._rows()
        body = html_table(["#", "event", "function", "detail"], rows, "rlll") if rows else \
            f'<div style="color:{MUTED}">nothing was traced or compiled</div>'
        return box(body + small("captured with jax_log_compiles + jax_explain_cache_misses"), title=self.summary())


def explain(show: bool | None = None, echo: bool = False) -> CompileLog:
    """``with explain() as log: ...`` captures JAX's compile log and cache-miss explanations.

    In IPython the log is displayed when the block ends (``show=None``); ``echo=True`` also
    lets the raw messages through to stderr.
    """
    return CompileLog(show=show, echo=echo)


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython

        return get_ipython() is not None
    except Exception:
        return False
