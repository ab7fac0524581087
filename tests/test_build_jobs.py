"""Decks built side by side (`jaxdeck build --jobs N`): real kernels, each on its own share of the CPUs.

The report still comes one line per deck in deck order; each kernel runs on CPUs no other
deck's kernel uses, and the executed notebook (and the title slide) says how many; after a
deck fails, no other deck starts, those running finish, and the first failure is the one line.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from support import RUN_MARK, run_cli, started_by
from jaxdeck.build import cpu_shares, default_jobs

CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

DECK = """# Deck {name}

Note: a deck built beside others.

```python
import os, time
time.sleep({sleep})
print("{name} ran on", len(os.sched_getaffinity(0)), "CPUs")
```
"""


def write(folder: Path, name: str, sleep: float = 0.0, body: str | None = None) -> Path:
    """The deck written to ``folder/slides/NAME.md``; returned relative to ``folder`` (the CLI's working folder)."""
    (folder / "slides").mkdir(parents=True, exist_ok=True)
    path = Path("slides") / f"{name}.md"
    (folder / path).write_text(body if body is not None else DECK.format(name=name, sleep=sleep), encoding="utf-8")
    return path


def printed(nb: dict) -> str:
    """What the notebook's last cell printed."""
    return "".join("".join(o.get("text", "")) for o in nb["cells"][-1]["outputs"])


def test_the_cpus_are_dealt_into_disjoint_shares():
    cpus = set(os.sched_getaffinity(0))
    for jobs in range(1, len(cpus) + 1):
        shares = cpu_shares(jobs)
        assert len(shares) == jobs and all(shares) and set().union(*shares) <= cpus
        assert sum(len(s) for s in shares) == len(set().union(*shares)), shares  # no CPU in two shares
        assert len({len(s) for s in shares}) == 1, shares  # equal shares


def test_default_jobs_one_per_core_and_one_on_an_accelerator():
    assert default_jobs(50) == min(CPUS, default_jobs(50))
    assert 1 <= default_jobs(50) <= CPUS
    assert default_jobs(1) == 1
    assert default_jobs(50, backend="gpu") == default_jobs(50, backend="tpu") == 1


@pytest.mark.heavy
@pytest.mark.skipif(CPUS < 2, reason="one CPU: no two decks can have shares of their own")
def test_decks_side_by_side_report_in_order_each_on_its_own_cpus(tmp_path):
    decks = [write(tmp_path, name, sleep) for name, sleep in (("a", 1.5), ("b", 0), ("c", 0))]
    done = run_cli("build", "--jobs", "2", *map(str, decks), "--out", str(tmp_path / "build"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{d}: executed 1 cell, HTML" for d in decks]  # a was last done, first said
    per = CPUS // 2
    for deck in decks:
        nb = json.loads((tmp_path / "build" / "notebooks" / f"{deck.stem}.ipynb").read_text())
        assert nb["metadata"]["jaxdeck_build"]["cpu_share"] == [per, CPUS]
        assert nb["metadata"]["jaxdeck_build"]["provenance"]["cpu_share"] == [per, CPUS]
        assert f"{deck.stem} ran on {per} CPUs" in printed(nb)
        html = (tmp_path / "build" / "html" / f"{deck.stem}.html").read_text(encoding="utf-8")
        assert f"{per} of {CPUS} CPU cores" in html


@pytest.mark.heavy
def test_one_deck_at_a_time_keeps_every_cpu(tmp_path):
    deck = write(tmp_path, "alone")
    done = run_cli("build", "--jobs", "1", str(deck), "--out", str(tmp_path / "build"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    nb = json.loads((tmp_path / "build" / "notebooks" / "alone.ipynb").read_text())
    assert "cpu_share" not in nb["metadata"]["jaxdeck_build"]
    assert f"alone ran on {CPUS} CPUs" in printed(nb)


@pytest.mark.heavy
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_failing_deck_does_not_stop_the_others_and_every_failure_is_listed(tmp_path, jobs):
    decks = [write(tmp_path, "a", 2.0),
             write(tmp_path, "b", body="# B\n\nNote: fails.\n\n```python\n1 / 0\n```\n"),
             write(tmp_path, "c"),
             write(tmp_path, "d", body="# D\n\nNote: fails too.\n\n```python\nx = 1\nundefined\n```\n")]
    mark = uuid.uuid4().hex  # every process the build starts carries it: its kernels outlive it only if left
    done = run_cli("build", "--jobs", jobs, *map(str, decks), "--out", str(tmp_path / "build"), cwd=tmp_path,
                   env={RUN_MARK: mark})
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 3, done.stderr
    assert lines[0].startswith(f"error: {decks[1]}:6") and "ZeroDivisionError" in lines[0]
    assert lines[1].startswith(f"error: {decks[3]}:7") and "NameError" in lines[1]
    assert lines[2] == "error: 2 of 4 decks failed (b, d); every other deck is built"
    assert "Traceback" not in done.stderr
    assert done.stdout.splitlines() == [f"{decks[0]}: executed 1 cell, HTML", f"{decks[2]}: executed 1 cell, HTML"]
    built = {p.stem for p in (tmp_path / "build" / "notebooks").glob("*.ipynb")}
    assert built == {"a", "c"}
    assert started_by(mark) == []
    verbose = run_cli("build", "--verbose", str(decks[1]), "--out", str(tmp_path / "build"), cwd=tmp_path)
    assert "ZeroDivisionError" in verbose.stderr.splitlines()[-2] and "Cell In[1], line 1" in verbose.stderr
    assert verbose.stderr.strip().splitlines()[-1].startswith(f"error: {decks[1]}:6")


def test_jobs_must_be_a_count(tmp_path):
    deck = write(tmp_path, "x")
    done = run_cli("build", "--jobs", "none", str(deck), cwd=tmp_path)
    assert done.returncode == 2 and "--jobs" in done.stderr and "Traceback" not in done.stderr
