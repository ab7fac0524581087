"""The live slideshow's extension: TypeScript in jaxdeck/live/extension/, built by `make` with
@jupyterlab/builder into jaxdeck/live/labextensions/jaxdeck-live/, where the server loads it from.

The build is checked where the server finds it (this checkout's, from these sources), and made
again from a changed copy of the sources through the Makefile's own rule.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jupyterlab
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "jaxdeck" / "live" / "extension"
BUILT = ROOT / "jaxdeck" / "live" / "labextensions" / "jaxdeck-live"
#: what the builder names the container it writes: a content hash in the name
REMOTE_ENTRY = re.compile(r"static/remoteEntry\.[0-9a-f]{20}\.js")
COMMANDS = ("jaxdeck-live:run", "jaxdeck-live:interrupt", "jaxdeck-live:restart", "jaxdeck-live:recover",
            "jaxdeck-live:speaker-view")
#: the page's own copies, never bundled (a second reveal.js or notebook would not be RISE's)
FROM_THE_PAGE = ("reveal.js", "@jupyterlab/notebook", "@jupyterlab/apputils")
#: the versions of the shared modules RISE's page (jupyterlab_rise, a JupyterLab 4.3 application) has
RISE_PAGE = {"@jupyterlab/apputils": (4, 4), "@jupyterlab/notebook": (4, 3), "@jupyterlab/console": (4, 3),
             "@jupyterlab/cells": (4, 3), "@jupyterlab/coreutils": (6, 3), "@jupyterlab/observables": (5, 3),
             "@jupyterlab/rendermime": (4, 3), "@jupyterlab/translation": (4, 3), "@jupyterlab/ui-components": (4, 3)}


def sources(folder: Path) -> list[Path]:
    return [folder / "package.json", folder / "tsconfig.json", *sorted((folder / "src").glob("*.ts"))]


def check_build(source: Path, built: Path) -> str:
    """Assert that ``built`` is the builder's output for ``source``; returns its remote entry's name."""
    declared = json.loads((source / "package.json").read_text(encoding="utf-8"))
    package = json.loads((built / "package.json").read_text(encoding="utf-8"))
    assert (package["name"], package["version"]) == (declared["name"], declared["version"])
    build = package["jupyterlab"]["_build"]
    assert REMOTE_ENTRY.fullmatch(build["load"]), build
    assert build["extension"] == "./extension"
    entry = (built / build["load"]).read_text(encoding="utf-8")
    assert '"jaxdeck-live"' in entry  # the container JupyterLab's page asks for by name
    code = "\n".join(path.read_text(encoding="utf-8") for path in (built / "static").glob("*.js"))
    for command in COMMANDS:
        assert command in code, command
    assert "jaxdeckSlideshow" not in code  # nothing of the hand-written container it replaced
    return build["load"]


def test_the_served_extension_is_the_build_of_these_sources():
    if not (BUILT / "package.json").is_file():
        pytest.fail(f"no built extension in {BUILT}: run `make setup`")
    check_build(SOURCE, BUILT)
    newest = max(path.stat().st_mtime for path in sources(SOURCE))
    assert (BUILT / "package.json").stat().st_mtime >= newest, "the sources changed since the last build: run `make`"


def test_the_extension_takes_jupyterlab_and_revealjs_from_the_page_and_brings_the_console_package():
    package = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))
    ranges = package["dependencies"]
    assert all(spec.startswith("^") for spec in ranges.values()), ranges
    shared = package["jupyterlab"]["sharedPackages"]
    for name in FROM_THE_PAGE:
        assert shared[name]["bundled"] is False and shared[name]["singleton"] is True, name
        assert shared[name].get("requiredVersion", ranges[name]) == ranges[name], name
    # RISE's page shares no @jupyterlab/console, which the widget manager imports: this one offers its own
    assert shared["@jupyterlab/console"] == {"bundled": True, "singleton": True, "requiredVersion": "^4.3.0"}
    # what the page shares, it asks for at versions RISE's page (a JupyterLab 4.3 application) has, not at
    # the JupyterLab the builder reads (4.6): else the page warns once a module ("Unsatisfied version")
    core = json.loads((Path(jupyterlab.__file__).parent / "staging" / "package.json").read_text(encoding="utf-8"))
    built = json.loads((BUILT / "package.json").read_text(encoding="utf-8"))
    entry = (BUILT / built["jupyterlab"]["_build"]["load"]).read_text(encoding="utf-8")
    asked = dict(re.findall(r'"default","(@[\w./-]+|reveal\.js)",!\d,\[(\d[\d,]*)', entry))
    assert asked, entry
    for name, version in asked.items():
        major, minor = (int(part) for part in version.split(",")[1:3])
        assert (name.startswith("@lumino/") or name == "reveal.js" or (major, minor) <= RISE_PAGE.get(name, (0, 0))), (
            name, version, core["resolutions"].get(name))
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    builder = package["devDependencies"]["@jupyterlab/builder"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", builder) and lock["node_modules/@jupyterlab/builder"]["version"] == builder


def make(*arguments: str) -> subprocess.CompletedProcess:
    """`make` in the repository with its setup stamps taken as done (the checkout's own .venv and node_modules)."""
    keep = ["-o", ".venv/.jaxdeck-installed", "-o", "node_modules/.jaxdeck-installed"]
    env = {key: value for key, value in os.environ.items() if not key.startswith("MAKE")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *keep, *arguments],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.heavy
def test_make_builds_the_extension_from_its_sources_and_again_when_they_change(tmp_path):
    source = tmp_path / "extension"
    (source / "src").mkdir(parents=True)
    for path in sources(SOURCE):
        shutil.copy(path, source / path.relative_to(SOURCE))
    # as the workspace resolves them: the extension's own nested packages (reveal.js 4, which the live
    # page shares) before the checkout's hoisted ones (reveal.js 6 for the static decks)
    modules = source / "node_modules"
    modules.mkdir()
    for found in (ROOT / "node_modules", SOURCE / "node_modules"):
        for entry in found.iterdir() if found.is_dir() else ():
            if not entry.name.startswith("."):
                (modules / entry.name).unlink(missing_ok=True)
                (modules / entry.name).symlink_to(entry)
    package = json.loads((source / "package.json").read_text(encoding="utf-8"))
    package["version"] = "9.8.7"
    (source / "package.json").write_text(json.dumps(package, indent=2), encoding="utf-8")
    built = tmp_path / "labextensions" / "jaxdeck-live"

    done = make("extension", f"LIVE_EXT={source}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "building the live slideshow's extension" in done.stdout
    first = check_build(source, built)
    assert json.loads((built / "package.json").read_text())["version"] == "9.8.7"

    again = make("extension", f"LIVE_EXT={source}")
    assert again.returncode == 0 and "building" not in again.stdout, again.stdout  # up to date: nothing done

    keys = source / "src" / "keys.ts"
    keys.write_text(keys.read_text(encoding="utf-8").replace("Restart the kernel (press 0 twice)",
                                                            "Restart the kernel (press zero twice)"))
    changed = make("extension", f"LIVE_EXT={source}")
    assert changed.returncode == 0 and "building" in changed.stdout, changed.stdout + changed.stderr
    code = "\n".join(path.read_text(encoding="utf-8") for path in (built / "static").glob("*.js"))
    assert "press zero twice" in code and "press 0 twice" not in code
    assert check_build(source, built) != first  # a new remote entry: the page cannot keep the old one cached
