"""The house's shape: no import cycle, no module over 400 lines, no import across a floor.

Read with :mod:`ast` by :mod:`jaxdeck.bench.structure` (``python -m jaxdeck.bench.structure`` prints
the same numbers), so this stays fast: nothing is imported.
"""

from __future__ import annotations

import functools

import pytest

from jaxdeck.bench.structure import MOST_LINES, said, shape


@pytest.fixture
def found():
    """The tree as it stands (read once per run: a function-scoped fixture keeps it in make test-quick)."""
    return _shape()


@functools.cache
def _shape():
    return shape()


def _said(found, kind: int) -> str:
    heading, lines = list(said(found).items())[kind]
    return "\n".join([heading, *lines])


def test_no_import_cycle(found):
    """Function-level imports count: a cycle is one however late it closes."""
    if found.cycles:
        pytest.fail(_said(found, 0), pytrace=False)


def test_no_module_over_the_most_lines(found):
    if found.long:
        pytest.fail(_said(found, 1), pytrace=False)


def test_demos_never_import_jaxdeck_and_jaxdeck_never_imports_jax(found):
    """The talks' helpers run in a kernel without the tool; the tool runs without JAX."""
    if found.forbidden:
        pytest.fail(_said(found, 2), pytrace=False)


def test_cycles_are_found_through_every_kind_of_import(tmp_path):
    """A relative import, one in a function's body, `import a.b` and `from a import b` each close a
    circle; a name imported from a package is an edge to the package, not to a module of that name."""
    package = tmp_path / "jaxdeck"
    (package / "inner").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def later():\n    import jaxdeck.a\n",
        "c.py": "from jaxdeck.inner import d\n",
        "inner/__init__.py": "VALUE = 1\n",
        "inner/d.py": "from ..c import thing\n",
        "e.py": "from jaxdeck.inner import VALUE\n",
        "f.py": "import jax\n" + "x = 1\n" * MOST_LINES,
    }
    for name, text in files.items():
        (package / name).write_text(text)
    found = shape(tmp_path, ("jaxdeck",))
    assert found.cycles == [["jaxdeck.a", "jaxdeck.b"], ["jaxdeck.c", "jaxdeck.inner.d"]]
    assert found.long == [("jaxdeck.f", MOST_LINES + 1)]
    assert found.forbidden == [("jaxdeck.f", "jax", 1)]
