"""The public faces: every name the decks and the talks' cells import stays where it was."""

import importlib
import subprocess
import sys

import pytest

import demos

PUBLIC = {
    "demos.timing": ["bench", "compare", "compact", "scoreboard", "Timing", "Comparison", "CompactComparison",
                     "Verdict", "verdict_from_ratios", "FIGURES", "DEFAULT_BUDGET_S", "DEFAULT_REPEAT"],
    "demos.tracing": ["watch", "explain", "refusal", "Refusal", "Watched", "CompileLog", "describe_args", "signature_diff"],
    "demos.jaxpr": ["show", "hlo", "diff", "residuals", "clean_hlo", "parse_hlo", "kernels_of", "canonical", "collectives",
                    "program", "Program",
                    "JaxprLexer", "IRLexer", "HloDiff"],
    "demos.widgets": ["size_explorer", "retrace_explorer", "svg_lines", "STATIC", "PY_FLOAT"],
    "demos.devices": ["banner", "pick", "balance", "simulate_cpu_devices", "gpu_memory", "flagged_transfer"],
}


@pytest.mark.parametrize("module", list(PUBLIC))
def test_public_names_import_from_the_tools_module(module):
    mod = importlib.import_module(module)
    missing = [name for name in PUBLIC[module] if not hasattr(mod, name)]
    assert not missing, f"{module} lost {missing}"
    assert set(PUBLIC[module]) - {"STATIC", "FIGURES"} <= set(getattr(mod, "__all__", PUBLIC[module]))


def test_submodules_load_lazily_by_attribute():
    assert demos.calibration.__name__ == "demos.calibration"
    assert demos.timing.compact is importlib.import_module("demos._timing.comparison").compact
    with pytest.raises(AttributeError):
        demos.bench  # noqa: B018 - renamed to demos.calibration


def test_calibration_runs_as_a_module():
    out = subprocess.run([sys.executable, "-m", "demos.calibration", "--help"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "python -m demos.calibration" in out.stdout


def test_the_pieces_never_import_the_public_faces():
    """``demos`` is a set of pieces (``demos._timing``, ``demos._devices``, ...) under thin public modules
    that re-export them: a piece importing a public module would close a circle through that face."""
    from jaxdeck.bench.structure import graph, modules

    faces = {f"demos.{name}" for name in demos._SUBMODULES}
    edges = graph(modules(packages=("demos",)))
    upward = sorted(f"{piece} imports {face}" for piece, targets in edges.items() if piece.startswith("demos._")
                    for face in targets & faces)
    assert not upward, upward
