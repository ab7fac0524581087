"""Where in a cell the kernel was: the line a failing cell raised on, the frames a stuck one sat in.

A deck's reader needs a deck line, not a fence: ``Cell In[7], line 3`` in IPython's traceback
is the third line of the cell run as the 7th, so the deck line is the fence's line plus 3. A
cell that outlives its timeout is asked for its threads' stacks (:mod:`jaxdeck.execute.launch`);
the kernel's main thread, top frames first, says whether it was computing or waiting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: how IPython names a cell's frames in a traceback ("Cell In[7], line 3")
_CELL_FRAME = re.compile(r"Cell In\s*\[(\d+)\],\s*line (\d+)")
#: faulthandler's dump: a thread's first line, a frame's line; and the part of a path before a package
_THREAD = re.compile(r"^(Current thread|Thread) (0x[0-9a-f]+)", re.MULTILINE)
_LIBRARY = re.compile(r"^.*/(site-packages|dist-packages|lib/python\d+\.\d+)/")
_FRAME = re.compile(r'^\s+File "(?P<path>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)', re.MULTILINE)


def plain(text: str) -> str:
    """``text`` without the terminal colours IPython puts in tracebacks."""
    return _ANSI.sub("", text)


def traceback_text(error_output: dict) -> str:
    """An error output's traceback as plain text (its ``ename: evalue`` when it has none)."""
    lines = error_output.get("traceback") or []
    text = plain("\n".join(lines)).strip()
    return text or f"{error_output.get('ename')}: {error_output.get('evalue')}"


def raised_at(traceback: str, execution_count: int | None) -> int | None:
    """The line of the cell run as ``execution_count`` that raised: the deepest of its frames
    in ``traceback`` (a function the cell defines and calls names its own line, not the call's)."""
    found = [int(line) for count, line in _CELL_FRAME.findall(plain(traceback))
             if execution_count is None or int(count) == execution_count]
    return found[-1] if found else None


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str

    @property
    def in_cell(self) -> bool:
        """A frame of code typed into a cell: IPython compiles cells as ``.../ipykernel_PID/HASH.py``."""
        return "/ipykernel_" in self.path.replace("\\", "/")

    def short(self) -> str:
        """``function (package/module.py:line)``, the path from its package on."""
        path = _LIBRARY.sub("", self.path.replace("\\", "/"))
        return f"{self.function} ({path}:{self.line})"


def threads(stacks: str) -> list[str]:
    """faulthandler's dump of every thread, one text per thread, the kernel's main thread first."""
    starts = [m.start() for m in _THREAD.finditer(stacks)]
    parts = [stacks[a:b].strip() for a, b in zip(starts, starts[1:] + [len(stacks)])]
    return sorted(parts, key=lambda part: not _frames(part) or not _is_main(_frames(part)))


def _frames(text: str) -> list[Frame]:
    return [Frame(m["path"], int(m["line"]), m["function"]) for m in _FRAME.finditer(text)]


def _is_main(frames: list[Frame]) -> bool:
    """The main thread's outermost frame is the kernel's entry point."""
    return frames[-1].path.replace("\\", "/").endswith(("execute/launch.py", "ipykernel_launcher.py"))


def main_thread(stacks: str) -> list[Frame]:
    """The main thread's frames, most recent first, from faulthandler's dump of every thread; [] when it is not there."""
    for part in threads(stacks):
        frames = _frames(part)
        if frames and _is_main(frames):
            return frames
    return []


def stuck_at(frames: list[Frame], fence_line: int | None, depth: int = 3) -> str:
    """One phrase for where a stuck cell was: its top frames, then the cell's own line as a deck line."""
    if not frames:
        return ""
    cells = [f for f in frames if f.in_cell]
    # the running cell is the outermost frame typed into a cell; deeper frames of the same file
    # are its own functions, frames of other such files functions of earlier cells
    ours = [f for f in cells if cells and f.path == cells[-1].path]
    above = frames[:frames.index(ours[0])] if ours else frames
    shown = " <- ".join(f.short() for f in above[:depth])
    if len(above) > depth:
        shown += " <- ..."
    if not ours:
        return f"the kernel was in {shown}"
    inner = ours[0]
    at = f"line {inner.line} of the cell" + (f" (deck line {fence_line + inner.line})" if fence_line else "")
    return f"the kernel was in {shown}, called from {at}" if shown else f"the kernel was at {at}"
