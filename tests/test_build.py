"""Builds make only what is out of date: real builds (a real kernel, a real Chromium) in a project copy.

The project holds its own copy of the toolchain (jaxdeck/ and themes/, node_modules linked), so
that a test can edit the theme or the kernel launcher as a user or a developer would, without
touching the repository. Each test starts from a copy of one built project: records travel with
a copied build/ to another path and still hold.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT
from jaxdeck.build import summary

ALPHA = """# Alpha

Some prose to edit.

Note: what to say first.

```python
with open("executed.log", "a") as log:
    log.write("alpha\\n")
6 * 7
```
"""

BETA = """# Beta

![a dot](images/dot.png)

Note: a deck with an image.

---

## Code

```python
with open("executed.log", "a") as log:
    log.write("beta\\n")
print("beta", 2 + 2)
```
"""

DOT = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
OTHER_DOT = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

ARTEFACTS = {
    "alpha": ["notebooks/alpha.ipynb", "html/alpha.html", "pdf/alpha.pdf", "pdf/alpha-handout.pdf"],
    "beta": ["notebooks/beta.ipynb", "html/beta.html", "pdf/beta.pdf", "pdf/beta-handout.pdf"],
}


def records(paths: list[str]) -> list[str]:
    return [str(Path(p).with_name(f".{Path(p).name}.inputs.json")) for p in paths]


def build(project: Path, *args: str, command: str = "build") -> dict[str, str]:
    """Run the CLI in ``project`` with its own toolchain; returns deck -> what the report says was done."""
    done = subprocess.run([sys.executable, "-m", "jaxdeck", command, *args, "--out", "build"], cwd=project,
                          env=dict(os.environ, PYTHONPATH=str(project / "tool")), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    report = dict(line.split(": ", 1) for line in done.stdout.splitlines() if line.startswith("slides/"))
    return {Path(deck).stem: what for deck, what in report.items()}


def snapshot(project: Path) -> dict[str, tuple[int, str]]:
    """Every file under build/: its modification time (ns) and content digest."""
    build_dir = project / "build"
    return {str(p.relative_to(build_dir)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(build_dir.rglob("*")) if p.is_file()}


def changed(before: dict, after: dict) -> set[str]:
    return {name for name in set(before) | set(after) if before.get(name) != after.get(name)}


def executions(project: Path) -> list[str]:
    """The decks whose cells ran, once per run, sorted: decks are built side by side, in either order."""
    log = project / "slides" / "executed.log"
    return sorted(log.read_text().split()) if log.exists() else []


@pytest.fixture(scope="module")
def built_project(tmp_path_factory):
    """Two decks (one with an image) and a toolchain copy, built once with PDFs."""
    project = tmp_path_factory.mktemp("project")
    tool = project / "tool"
    shutil.copytree(ROOT / "jaxdeck", tool / "jaxdeck", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "themes", tool / "themes")
    (tool / "node_modules").symlink_to(ROOT / "node_modules")
    shutil.copy(ROOT / "jupytext.toml", project / "jupytext.toml")
    slides = project / "slides"
    (slides / "images").mkdir(parents=True)
    (slides / "alpha.md").write_text(ALPHA)
    (slides / "beta.md").write_text(BETA)
    (slides / "images" / "dot.png").write_bytes(DOT)
    assert build(project, "--pdf") == {"alpha": "executed 1 cell, HTML + PDF", "beta": "executed 1 cell, HTML + PDF"}
    assert executions(project) == ["alpha", "beta"]
    return project


@pytest.fixture
def project(built_project, tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(built_project, copy, symlinks=True)
    return copy


def test_summary_words():
    assert summary(None, False, ()) == "up to date"
    assert summary(0, True, ()) == "HTML"
    assert summary(0, True, ("pdf", "handout")) == "HTML + PDF"
    assert summary(0, False, ("handout",)) == "PDF"
    assert summary(1, True, ("pdf", "handout")) == "executed 1 cell, HTML + PDF"
    assert summary(12, True, ()) == "executed 12 cells, HTML"


@pytest.mark.heavy
def test_second_build_writes_no_file(project):
    before = snapshot(project)
    assert all((project / "build" / p).is_file() for p in records(ARTEFACTS["alpha"] + ARTEFACTS["beta"]))
    assert build(project, "--pdf") == {"alpha": "up to date", "beta": "up to date"}
    assert build(project) == {"alpha": "up to date", "beta": "up to date"}
    assert build(project, command="pdf") == {"alpha": "up to date", "beta": "up to date"}
    assert changed(before, snapshot(project)) == set(), "an up-to-date build writes nothing, not even a record"
    assert executions(project) == ["alpha", "beta"]


@pytest.mark.heavy
def test_up_to_date_check_imports_no_heavy_library(project):
    script = ("import json, sys; from pathlib import Path; from jaxdeck.build import build\n"
              "done = build([Path('slides/alpha.md'), Path('slides/beta.md')], Path('build'), pdf=True)\n"
              "heavy = ('nbformat', 'nbconvert', 'nbclient', 'jupytext', 'playwright', 'jupyter_client', 'jax')\n"
              "print(json.dumps([[b.done for b in done], sorted(m for m in sys.modules if m.split('.')[0] in heavy)]))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(project / "tool")))
    assert done.returncode == 0, done.stderr
    reports, imported = json.loads(done.stdout.splitlines()[-1])
    assert reports == ["up to date", "up to date"]
    assert imported == []


@pytest.mark.heavy
def test_prose_edit_rebuilds_only_that_deck(project):
    before = snapshot(project)
    deck = project / "slides" / "alpha.md"
    deck.write_text(ALPHA.replace("Some prose to edit.", "Some prose, edited."))
    assert build(project, "--pdf") == {"alpha": "HTML + PDF", "beta": "up to date"}
    assert changed(before, snapshot(project)) == set(ARTEFACTS["alpha"] + records(ARTEFACTS["alpha"]))
    assert executions(project) == ["alpha", "beta"], "a prose edit runs no cell"
    assert "Some prose, edited." in (project / "build" / "html" / "alpha.html").read_text()

    # an image the deck shows is part of its HTML and PDFs, not of its executed notebook
    before = snapshot(project)
    (project / "slides" / "images" / "dot.png").write_bytes(OTHER_DOT)
    assert build(project, "--pdf") == {"alpha": "up to date", "beta": "HTML + PDF"}
    beta = ARTEFACTS["beta"][1:]
    assert changed(before, snapshot(project)) == set(beta + records(beta) + ["html/beta_files/images/dot.png"])
    assert (project / "build" / "html" / "beta_files" / "images" / "dot.png").read_bytes() == OTHER_DOT


@pytest.mark.heavy
def test_code_edit_executes_that_deck_alone(project):
    before = snapshot(project)
    (project / "slides" / "beta.md").write_text(BETA.replace("2 + 2", "2 + 3"))
    assert build(project, "--pdf") == {"alpha": "up to date", "beta": "executed 1 cell, HTML + PDF"}
    assert executions(project) == ["alpha", "beta", "beta"]
    assert "beta 5" in (project / "build" / "notebooks" / "beta.ipynb").read_text()
    assert not {name for name in changed(before, snapshot(project)) if "alpha" in name}


@pytest.mark.heavy
def test_theme_edit_rebuilds_every_html_and_pdf_and_executes_nothing(project):
    before = snapshot(project)
    theme = project / "tool" / "themes" / "jaxdeck" / "static" / "projector.css"
    theme.write_text(theme.read_text() + "\n.reveal h1 { letter-spacing: 0.01em; }\n")
    assert build(project, "--pdf") == {"alpha": "HTML + PDF", "beta": "HTML + PDF"}
    assert executions(project) == ["alpha", "beta"], "a theme edit runs no kernel"
    after = snapshot(project)
    rebuilt = [p for deck in ARTEFACTS.values() for p in deck[1:]]
    assert set(rebuilt) <= changed(before, after) and set(records(rebuilt)) <= changed(before, after)
    assert not {name for name in changed(before, after) if name.startswith("notebooks/")}
    assert (project / "build" / "html" / "assets" / "themes" / "projector.css").read_text() == theme.read_text()


@pytest.mark.heavy
def test_print_style_edit_reprints_the_pdfs_only(project):
    before = snapshot(project)
    styles = project / "tool" / "themes" / "jaxdeck" / "static" / "print.css"
    styles.write_text(styles.read_text() + "\n/* a print-only edit */\n")
    assert build(project, command="pdf") == {"alpha": "PDF", "beta": "PDF"}
    pdfs = [p for deck in ARTEFACTS.values() for p in deck[2:]]
    assert changed(before, snapshot(project)) == set(pdfs + records(pdfs))
    assert executions(project) == ["alpha", "beta"]


@pytest.mark.heavy
def test_missing_or_hand_edited_artefact_is_rebuilt(project):
    (project / "build" / "pdf" / "alpha-handout.pdf").unlink()
    html = project / "build" / "html" / "beta.html"
    original = html.read_bytes()
    html.write_text(html.read_text().replace("Beta", "Edited by hand"))
    assert build(project, "--pdf") == {"alpha": "PDF", "beta": "HTML + PDF"}
    assert (project / "build" / "pdf" / "alpha-handout.pdf").is_file()
    assert html.read_bytes() == original, "HTML made from the stored notebook is the HTML of a whole build"
    assert executions(project) == ["alpha", "beta"]


@pytest.mark.heavy
def test_force_rebuilds_everything(project):
    before = snapshot(project)
    assert build(project, "--pdf", "--force") == {"alpha": "HTML + PDF", "beta": "HTML + PDF"}
    every = ARTEFACTS["alpha"] + ARTEFACTS["beta"]
    assert set(every) <= changed(before, snapshot(project)), "every artefact is written again"
    assert executions(project) == ["alpha", "beta"], "outputs still come from the execution cache"
    assert build(project, "--force", "--no-cache") == {"alpha": "executed 1 cell, HTML", "beta": "executed 1 cell, HTML"}
    assert executions(project) == ["alpha", "alpha", "beta", "beta"]


@pytest.mark.heavy
def test_same_kernel_environment_on_a_changed_machine_rebuilds_nothing(project):
    before = snapshot(project)
    launcher = project / "tool" / "jaxdeck" / "execute" / "kernel.py"
    launcher.write_text(launcher.read_text() + "\n# a comment: the kernel's environment is the same\n")
    assert build(project, "--pdf") == {"alpha": "up to date", "beta": "up to date"}
    assert changed(before, snapshot(project)) == set(records(["notebooks/alpha.ipynb", "notebooks/beta.ipynb"]))
    before = snapshot(project)
    assert build(project, "--pdf") == {"alpha": "up to date", "beta": "up to date"}
    assert changed(before, snapshot(project)) == set(), "the records learnt the new signature"
    assert executions(project) == ["alpha", "beta"]


@pytest.mark.heavy
def test_frozen_outputs_stay_through_pdf_and_a_plain_build_replaces_them(project, built_project):
    frozen = built_project / "build" / "notebooks"
    assert build(project, "--frozen", str(frozen), "slides/alpha.md") == {"alpha": "HTML"}
    notebook = project / "build" / "notebooks" / "alpha.ipynb"
    assert json.loads(notebook.read_text())["metadata"]["jaxdeck_build"]["cache"] == "frozen"
    assert build(project, command="pdf") == {"alpha": "PDF", "beta": "up to date"}
    assert build(project, "--force", command="pdf") == {"alpha": "PDF", "beta": "PDF"}
    assert json.loads(notebook.read_text())["metadata"]["jaxdeck_build"]["cache"] == "frozen"
    assert build(project, "--frozen", str(frozen), "slides/alpha.md") == {"alpha": "up to date"}
    assert build(project) == {"alpha": "HTML", "beta": "up to date"}, "a plain build judges where outputs came from"
    assert json.loads(notebook.read_text())["metadata"]["jaxdeck_build"]["cache"] == "hit"
    assert executions(project) == ["alpha", "beta"]
