"""The background printer: PDFs from a browser started while decks execute."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jaxdeck.build import build
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError
from jaxdeck.pdf.export import Printed
from jaxdeck.pdf.printer import BackgroundPrinter

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

DECK = "# Printed\n\nNote: title notes\n\n---\n\n## Two\n\n```python\n6 * 7\n```\n\nNote: second notes\n"


def test_build_with_pdf_writes_both_pdfs(write_deck, tmp_path):
    deck = write_deck(DECK)
    (outputs,) = build([deck], tmp_path / "build", pdf=True)
    for pdf in (outputs.pdf, outputs.handout):
        assert pdf.read_bytes().startswith(b"%PDF")
    assert outputs.html.is_file() and outputs.notebook.is_file()


def test_an_error_in_the_printer_thread_reaches_the_caller(tmp_path):
    with BackgroundPrinter() as printer:
        outputs = Outputs(tmp_path / "missing.md", tmp_path / "build")
        with pytest.raises(DeckError, match="no HTML deck to print"):
            printer.print_pdfs(nbformat.v4.new_notebook(), Path(tmp_path / "missing.html"), outputs)


def test_print_pdfs_returns_the_paths_and_seconds_of_what_it_printed(write_deck, tmp_path):
    deck = write_deck(DECK)
    build([deck], tmp_path / "build")
    outputs = Outputs(deck, tmp_path / "build")
    nb = nbformat.read(outputs.notebook, as_version=4)
    with BackgroundPrinter() as printer:
        printed = printer.print_pdfs(nb, outputs.html, outputs, parts=("pdf",))
    assert isinstance(printed, Printed)
    assert printed.paths == [outputs.pdf] and set(printed.seconds) == {"slides", "total"}
    assert outputs.pdf.read_bytes().startswith(b"%PDF") and not outputs.handout.exists()
