"""A jaxdeck process starts without jsonschema's IRI checker (rfc3987_syntax builds 35 parsers at
import), and notebooks still validate."""

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

