"""demos/README.md, the reference deck authors paste from: its examples run, and it names every public name.

The page's fenced ``python`` blocks are found with markdown-it-py (the Markdown parser the project
already uses), then run in order, as the cells of one deck, in one IPython shell of a fresh Python
on the CPU: the first block asks for simulated devices before JAX starts, and ``%jaxtime`` is an
IPython magic.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import demos

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "demos" / "README.md"

#: run in the child: one IPython shell, every block in order; stops at the first that fails
RUNNER = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell

blocks = json.load(sys.stdin)
shell = InteractiveShell.instance()
for number, block in enumerate(blocks, 1):
    result = shell.run_cell(block, store_history=False)
    if not result.success:
        error = result.error_in_exec or result.error_before_exec
        print(f"BLOCK {number} FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
print(f"RAN {len(blocks)} BLOCKS")
"""


def python_blocks(text: str) -> list[str]:
    """The contents of the page's fenced blocks whose info string is ``python``, in order."""
    return [token.content for token in MarkdownIt("commonmark").parse(text)
            if token.type == "fence" and token.info.strip().split(" ")[0] == "python"]


def public_names() -> dict[str, list[str]]:
    """Every public name of demos, by module: a module's ``__all__``, else the functions and classes it defines."""
    names = {"demos": [n for n in demos.__all__ if n not in demos._SUBMODULES]}
    for sub in demos._SUBMODULES:
        module = importlib.import_module(f"demos.{sub}")
        if hasattr(module, "__all__"):
            names[module.__name__] = list(module.__all__)
        else:
            # callable, not isfunction: a cached function (functools.cache) is public too
            names[module.__name__] = [name for name, obj in vars(module).items()
                                      if not name.startswith("_") and callable(obj)
                                      and getattr(obj, "__module__", None) == module.__name__]
    return names


def test_the_page_is_found_and_has_examples():
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 20, f"only {len(blocks)} python blocks found in {PAGE}"
    assert python_blocks("```python\n1 + 1\n```\n\n```bash\nls\n```\n\n    indented = 1\n") == ["1 + 1\n"]


def test_every_public_name_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    names = public_names()
    assert {"simulate_cpu_devices", "host_cpu"} <= set(names["demos.devices"]) and "time_statement" in names["demos.magics"]
    missing = [f"{module}.{name}" for module, listed in names.items() for name in listed
               if f"{module}.{name}" not in text]
    assert not missing, f"public names of demos without a word in {PAGE.relative_to(ROOT)}: {missing}"


def test_every_module_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    missing = [sub for sub in demos._SUBMODULES if f"## `demos.{sub}`" not in text]
    assert not missing, f"no section for {missing}"


@pytest.mark.heavy
@pytest.mark.timeout(600)
def test_the_examples_run_in_order(tmp_path):
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    env = {k: v for k, v in os.environ.items() if k not in ("JAXDECK_DEVICES", "JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
    env.update(JAX_PLATFORMS="cpu", DEMOS_TIMING_BUDGET_SCALE="0.25", PYTHONPATH=str(ROOT),
               IPYTHONDIR=str(tmp_path / "ipython"), MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(blocks), cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert f"RAN {len(blocks)} BLOCKS" in done.stdout
    assert "Traceback" not in done.stdout, done.stdout[-4000:]
