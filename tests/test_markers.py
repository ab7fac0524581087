"""The slide markers are spelled in jaxdeck/markers.py alone: every other module uses its names.

A marker spelled twice drifts (one stage learns a new spelling, another does not), so any string
constant in the package's code equal to a marker, ``Note:``, a near-miss pattern or its hint is
an error here, named at its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jaxdeck
from jaxdeck import markers

PACKAGE = Path(jaxdeck.__file__).parent
#: the modules that read a YAML header, whose ``---`` fences are YAML's, not a slide marker
YAML_FENCES = {"read/yaml_header.py", "read/header.py", "html/myst/syntax.py"}


def spellings() -> set[str]:
    """The texts only markers.py may write: the markers, ``Note:``, the near misses and their hints."""
    said = set(markers.MARKERS) | {markers.NOTE_PREFIX, markers.BREAK_HINT}
    for miss in markers.NEAR_MISSES:
        said |= {miss.pattern.pattern, miss.hint}
    return said


def spelled(source: str, allowed: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """The (line, text) of each string constant in ``source`` that spells a marker."""
    forbidden = spellings() - allowed
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in forbidden)


def test_the_scan_finds_a_marker_spelled_in_code():
    source = 'if line == "|||":\n    pass\nhint = "use \'. . .\' (three dots with spaces) for a pause"\n'
    assert spelled(source) == [(1, "|||"), (3, markers.NEAR_MISSES[2].hint)]
    assert spelled('"""A docstring that names ``|||`` and \'---\'."""\nx = f"{a} ---"\n') == []


def test_no_module_but_markers_spells_a_marker():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "markers.py":
            continue
        allowed = frozenset({markers.SLIDE_MARKER}) if name in YAML_FENCES else frozenset()
        found += [f"jaxdeck/{name}:{line}: {text!r}" for line, text in spelled(path.read_text(encoding="utf-8"), allowed)]
    assert not found, "spell these with jaxdeck.markers' names:\n" + "\n".join(found)


def test_the_markers_are_the_named_ones():
    assert markers.MARKERS == {markers.SLIDE_MARKER: markers.SLIDE, markers.SUBSLIDE_MARKER: markers.SUBSLIDE,
                               markers.PAUSE_MARKER: markers.FRAGMENT, markers.COLUMN_MARKER: markers.CONTINUE}
    assert markers.BREAKING == (markers.SLIDE_MARKER, markers.SUBSLIDE_MARKER)
    assert all(markers.near_miss(m, m, notes=True) is None for m in markers.MARKERS)
    assert markers.near_miss("Notes: say", "Notes: say", notes=True).notes
    assert markers.near_miss("Notes: say", "Notes: say", notes=False) is None
