"""The background printer: PDFs from a browser started while decks execute."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jaxdeck.build import build
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError
from jaxdeck.pdf.printer import BackgroundPrinter

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
