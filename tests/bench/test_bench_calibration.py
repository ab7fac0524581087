"""The timing harness's benchmark runs as its own process, from the demos package that has it."""

from __future__ import annotations

import json

from jaxdeck.bench.calibration import demos_folder, timing_harness


def _package(tmp_path, body: str):
    package = tmp_path / "pkg" / "demos"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "calibration.py").write_text(body)
    return package


def test_runs_demos_calibration_into_the_folder(tmp_path):
    package = _package(tmp_path, "import json, pathlib, sys\n"
                                 "out = pathlib.Path(sys.argv[sys.argv.index('--out') + 1])\n"
                                 "(out / 'timing.json').write_text(json.dumps({'ran': True}))\n")
    out = tmp_path / "bench"
    out.mkdir()
    result = timing_harness(out, package)
    assert result["available"] and result["ok"] and result["returncode"] == 0 and result["tail"] == ""
    assert json.loads((out / "timing.json").read_text()) == {"ran": True}


def test_a_failure_keeps_the_end_of_its_error(tmp_path):
    result = timing_harness(tmp_path, _package(tmp_path, "raise SystemExit('no backend')\n"))
    assert result["available"] and not result["ok"] and result["returncode"] == 1 and "no backend" in result["tail"]


def test_without_the_module_it_says_why(tmp_path):
    assert timing_harness(tmp_path, tmp_path) == {"available": False, "why": "demos/calibration.py not found"}


def test_the_installed_demos_has_it():
    assert (demos_folder() / "calibration.py").is_file()
