"""A jaxdeck process starts without jsonschema's IRI checker (rfc3987_syntax builds 35 parsers at
import), and notebooks still validate; a build imports neither jupytext's contents managers nor
jupyter_server, and jupytext still reads the deck."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT

PROBE = """
import sys, time
began = time.perf_counter()
import jaxdeck, nbformat
nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("x")]))
print(sys.modules.get("rfc3987_syntax"), round(time.perf_counter() - began, 3))
"""


def test_jaxdeck_keeps_the_slow_iri_checker_out_and_notebooks_still_validate():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    module, _seconds = done.stdout.split()
    assert module == "None"  # marked absent: jsonschema left that checker out



#: what `python -m jaxdeck build` has imported once it rebuilt a deck after a prose edit
AFTER_A_PROSE_EDIT = """
import runpy, sys
sys.argv = ["jaxdeck", "build", "slides/talk.md", "--out", "build"]
try:
    runpy.run_module("jaxdeck", run_name="__main__", alter_sys=True)
except SystemExit as done:
    assert not done.code, done.code
print(sorted(name for name in ("jupyter_server", "jupytext.sync_contentsmanager") if sys.modules.get(name)))
"""


def test_a_build_imports_no_jupyter_server_and_jupytext_still_reads_the_deck(tmp_path):
    """jupytext's contents managers (and jupyter_server with them) are for the live server's own process."""
    (tmp_path / "slides").mkdir()
    deck = tmp_path / "slides" / "talk.md"
    deck.write_text("# Talk\n\nHello.\n\n---\n\n## Two\n\nA point.\n", encoding="utf-8")
    run = lambda: subprocess.run([sys.executable, "-c", AFTER_A_PROSE_EDIT], cwd=tmp_path,  # noqa: E731
                                 env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True,
                                 text=True, timeout=300)
    first = run()
    assert first.returncode == 0, first.stderr
    deck.write_text(deck.read_text(encoding="utf-8") + "\nAnother point.\n", encoding="utf-8")
    done = run()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "[]", done.stdout
    assert "Another point." in (tmp_path / "build" / "html" / "talk.html").read_text(encoding="utf-8")
