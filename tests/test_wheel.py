"""jaxdeck as a plain wheel: built offline, installed into a fresh virtual environment, used outside the repository.

The wheel is built from a copy of the working tree (nothing is written into the
repository), installed with ``--no-deps --no-index`` into a venv made in tmp_path, and
that venv's ``python -m jaxdeck build`` builds a deck in a folder with no slides/, no
jupytext.toml and no repository around it. The venv gets the dependencies without a
download: a ``.pth`` line appends the project venv's site-packages to its path (the
``.pth`` files in there, among them the editable install's finder, are not run from an
appended folder, so ``jaxdeck`` and ``demos`` come from the wheel), and its share/jupyter
(nbconvert's base templates) links to the project venv's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from support import WITHOUT_BROWSER_MODULES, bare_venv, left_behind, see_the_project, without_browser

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("jaxdeck", "demos", "themes", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md",
           "package.json", "package-lock.json")
SETUPTOOLS = "80.9.0"  # the build backend pinned in pyproject.toml

DECK = """\
---
title: Installed
---

# An installed jaxdeck

```python
print("wheel" + "-ok", 6 * 7)
```
"""


def run(*command, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    return done


def copy_sources(source: Path) -> Path:
    """What a wheel is built from, copied to ``source``; jaxdeck/ comes with the live extension `make`
    built into it (jaxdeck/live/labextensions/), as it is in the working tree."""
    source.mkdir(parents=True)
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules"))
        else:
            shutil.copy2(ROOT / name, source / name)
    (source / "node_modules").symlink_to(ROOT / "node_modules")
    return source


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a fresh venv with the wheel of this working tree installed."""
    if metadata.version("setuptools") != SETUPTOOLS:
        pytest.fail(f"setuptools {metadata.version('setuptools')} in the project venv; run `make setup` "
                    f"(uv.lock pins setuptools=={SETUPTOOLS}, the build backend)")
    tmp = tmp_path_factory.mktemp("wheel")
    source = copy_sources(tmp / "src")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
        "--wheel-dir", tmp / "dist", source, cwd=tmp)
    wheel, = (tmp / "dist").glob("jaxdeck-*.whl")

    venv = tmp / "venv"
    python = bare_venv(venv)
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel, cwd=tmp)
    see_the_project(python)  # the dependencies, after the wheel is in (pip never sees the project's jaxdeck)
    return python


@pytest.mark.heavy
def test_the_wheel_carries_the_theme_and_the_front_end(installed):
    wheel, = (installed.parents[2] / "dist").glob("jaxdeck-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("jaxdeck/themes/jaxdeck/index.html.j2", "jaxdeck/themes/jaxdeck/handout.html.j2",
                 "jaxdeck/themes/jaxdeck/static/projector.css", "jaxdeck/themes/jaxdeck/static/print.css",
                 "jaxdeck/themes/jaxdeck/static/projector-dark.css",
                 "jaxdeck/themes/jaxdeck/single/files.js", "jaxdeck/themes/jaxdeck/single/files.html.j2",
                 "jaxdeck/npm/reveal.js/dist/reveal.js", "jaxdeck/npm/reveal.js/dist/theme/white.css",
                 "jaxdeck/npm/reveal.js/package.json", "jaxdeck/npm/katex/dist/katex.min.js",
                 "jaxdeck/npm/katex/dist/contrib/auto-render.min.js", "jaxdeck/npm/katex/LICENSE",
                 "jaxdeck/npm/reveal.js/dist/plugin/search.js", "jaxdeck/npm/reveal.js/dist/plugin/zoom.js",
                 "jaxdeck/npm/reveal.js-menu/menu.js", "jaxdeck/npm/reveal.js-menu/font-awesome/css/all.css",
                 "jaxdeck/npm/reveal.js-menu/font-awesome/webfonts/fa-solid-900.woff2",
                 "jaxdeck/npm/reveal.js-plugins/chalkboard/plugin.js",
                 "jaxdeck/npm/reveal.js-plugins/chalkboard/img/blackboard.png",
                 "jaxdeck/live/labextensions/jaxdeck-live/package.json", "jaxdeck/preview/reload.js",
                 "jaxdeck/preview/waiting.html", "jaxdeck/templates/new-deck.md", "demos/__init__.py"):
        assert name in names, name
    assert any(n.startswith("jaxdeck/npm/katex/dist/fonts/") for n in names)
    # the live extension as built, with the container its package.json names; not its sources
    built = json.loads(zipfile.ZipFile(wheel).read("jaxdeck/live/labextensions/jaxdeck-live/package.json"))
    assert f"jaxdeck/live/labextensions/jaxdeck-live/{built['jupyterlab']['_build']['load']}" in names
    assert not [n for n in names if n.startswith("jaxdeck/live/extension/")]
    assert not [n for n in names if n.startswith(("themes/", "node_modules/", "tests/")) or "__pycache__" in n]


@pytest.mark.heavy
def test_no_wheel_is_built_without_the_live_extension(tmp_path):
    """A checkout where `make` never built it: the build says so instead of shipping a wheel whose
    `present` refuses to start."""
    source = copy_sources(tmp_path / "src")
    shutil.rmtree(source / "jaxdeck" / "live" / "labextensions")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "--wheel-dir", str(tmp_path / "dist"), str(source)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "the live slideshow's extension is not built" in done.stdout + done.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))


@pytest.mark.heavy
def test_the_installed_jaxdeck_builds_a_deck_in_any_folder(installed, tmp_path):
    folder = tmp_path / "talk"
    folder.mkdir()
    (folder / "talk.md").write_text(DECK)

    where = run(installed, "-c", "import jaxdeck, demos, jaxdeck.html.assets as a; "
                "print(jaxdeck.__file__, demos.__file__, a.THEMES, a.NODE_MODULES, sep='\\n')", cwd=folder)
    venv = installed.parents[1]
    for path in where.stdout.split():
        assert Path(path).is_relative_to(venv), where.stdout
        assert not Path(path).is_relative_to(ROOT), where.stdout

    done = run(installed, "-m", "jaxdeck", "build", "talk.md", cwd=folder)
    assert done.stdout.strip() == "talk.md: executed 1 cell, HTML"
    html = folder / "build" / "html" / "talk.html"
    assert (folder / "build" / "notebooks" / "talk.ipynb").is_file()
    assert "wheel-ok 42" in html.read_text(encoding="utf-8")
    for asset in ("reveal.js/dist/reveal.js", "reveal.js/dist/reveal.css", "reveal.js/dist/plugin/notes.js",
                  "katex/dist/katex.min.js", "katex/dist/fonts", "themes/projector.css", "themes/projector-dark.css",
                  "reveal.js-menu/menu.js", "reveal.js-plugins/chalkboard/img"):
        assert (html.parent / "assets" / asset).exists(), asset


def test_the_installed_jaxdeck_starts_a_deck_from_its_own_template(installed, tmp_path):
    done = run(installed, "-m", "jaxdeck", "new", "talk", "--author", "Ada", cwd=tmp_path)
    assert done.stdout.splitlines()[0] == "wrote slides/talk.md"
    text = (tmp_path / "slides" / "talk.md").read_text(encoding="utf-8")
    assert text.startswith("---\njupyter:\n  jaxdeck:\n    author: Ada\n") and "demos.timing.compare(" in text


def needs_chromium() -> None:
    """Skips the test, saying why, where no Chromium is found: the wheel prints with the one it finds."""
    from jaxdeck.browser import find_chromium
    from jaxdeck.errors import DeckError

    try:
        find_chromium()
    except DeckError as missing:
        pytest.skip(str(missing))


@pytest.mark.heavy
def test_the_installed_jaxdeck_prints_pdfs_when_a_chromium_is_found(installed, tmp_path):
    needs_chromium()
    (tmp_path / "talk.md").write_text(DECK)
    done = run(installed, "-m", "jaxdeck", "build", "--pdf", "talk.md", cwd=tmp_path)
    assert done.stdout.strip() == "talk.md: executed 1 cell, HTML + PDF"
    for name in ("talk.pdf", "talk-handout.pdf"):
        assert (tmp_path / "build" / "pdf" / name).read_bytes().startswith(b"%PDF")


@pytest.mark.heavy
def test_the_installed_jaxdeck_makes_the_series_site_from_its_own_theme(installed, tmp_path):
    """`jaxdeck site` from the wheel: its templates, styles and search come from the installed theme."""
    needs_chromium()
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").write_text(DECK)
    done = run(installed, "-m", "jaxdeck", "site", cwd=tmp_path)
    site = tmp_path / "build" / "site"
    assert done.stdout.splitlines()[-1].startswith("build/site/index.html"), done.stdout
    for name in ("index.html", "search-index.js", ".nojekyll", "html/talk.html", "pdf/talk-handout.pdf"):
        assert (site / name).is_file(), name
    assert "An installed jaxdeck" in (site / "search-index.js").read_text(encoding="utf-8")


@pytest.mark.heavy
def test_the_installed_jaxdeck_rehearses_a_talk_on_its_kernel_with_no_browser(installed, tmp_path):
    """A GPU box brings no Chromium and no Makefile: the wheel's `rehearse --no-browser` starts the live
    server, runs the talk's cells on its kernel, writes the report and leaves nothing running."""
    (tmp_path / "talk.md").write_text(DECK)
    run(installed, "-m", "jaxdeck", "build", "talk.md", cwd=tmp_path)
    env = without_browser(tmp_path / "env")
    env.pop("PYTHONPATH")  # the wheel's jaxdeck, not the checkout's
    done = subprocess.run([str(installed), "-c", WITHOUT_BROWSER_MODULES, "rehearse", "--no-browser", "talk.md"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ready to present" in done.stdout and not (tmp_path / "Makefile").exists()
    report = json.loads((tmp_path / "build" / "rehearsal" / "talk.json").read_text(encoding="utf-8"))
    runs = [cell for slide in report["slides"] for cell in slide["cells"]]
    assert [cell["status"] for cell in runs] == ["ok"] and not report["problems"], report
    assert not left_behind(tmp_path)


#: a presenter's own environment: the minor versions before the ones uv.lock pins
OTHER_MINORS = ("numpy>=2.3,<2.4", "jupyterlab>=4.5,<4.6")


@pytest.mark.heavy
@pytest.mark.network
def test_pip_installs_the_wheel_into_an_environment_with_other_minor_versions(installed, tmp_path):
    """The package's ranges, not the lock's pins, are what an installer sees: an environment that
    already has NumPy 2.3 and JupyterLab 4.5 takes the wheel as it is, and it builds a deck there.

    uv (the one `make` bootstraps) fills the environment from the package index through its cache (the
    ``network`` mark: skipped, saying why, when the index cannot be reached); then plain pip installs the
    wheel with no index at all, so it must accept what is installed.
    """
    uv = ROOT / ".uv" / "bin" / "uv"
    if not uv.exists():
        pytest.skip("no .uv/bin/uv: `make setup` bootstraps it")
    wheel, = (installed.parents[2] / "dist").glob("jaxdeck-*.whl")
    venv = tmp_path / "presenter"
    run(uv, "venv", "--quiet", "--seed", "--python", sys.executable, venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    filled = subprocess.run([str(uv), "pip", "install", "--quiet", "--python", str(python), *OTHER_MINORS, str(wheel)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert filled.returncode == 0, filled.stderr
    run(uv, "pip", "uninstall", "--quiet", "--python", python, "jaxdeck", cwd=tmp_path)

    run(python, "-m", "pip", "install", "--quiet", "--no-index", wheel, cwd=tmp_path)
    versions = run(python, "-c", "import numpy, jupyterlab; print(numpy.__version__, jupyterlab.__version__)",
                   cwd=tmp_path).stdout.split()
    assert versions[0].startswith("2.3.") and versions[1].startswith("4.5."), versions

    (tmp_path / "talk.md").write_text(DECK.replace('print("wheel" + "-ok", 6 * 7)',
                                                   'import numpy\nprint("numpy", numpy.__version__)'))
    done = run(python, "-m", "jaxdeck", "build", "talk.md", cwd=tmp_path)
    assert done.stdout.strip() == "talk.md: executed 1 cell, HTML"
    assert f"numpy {versions[0]}" in (tmp_path / "build" / "html" / "talk.html").read_text(encoding="utf-8")
