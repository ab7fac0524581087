"""Claim checks: which cells are checks, and what a failed one says."""

from __future__ import annotations

import nbformat
import pytest

from jaxdeck.claims import failure, is_check


@pytest.mark.parametrize("cell, expected", [
    (nbformat.v4.new_code_cell("assert True", metadata={"tags": ["check"]}), True),
    ({"cell_type": "code", "metadata": {"tags": ["slow", "Check"]}}, True),
    (nbformat.v4.new_code_cell("1", metadata={"tags": ["raises-exception"]}), False),
    (nbformat.v4.new_markdown_cell("x", metadata={"tags": ["check"]}), False),
    (nbformat.v4.new_code_cell("1"), False),
])
def test_a_check_is_a_code_cell_tagged_check(cell, expected):
    assert is_check(cell) is expected


def test_a_failure_names_the_machine_and_keeps_the_assertions_first_line():
    text = failure("8 × cpu, jax 0.10.2", "AssertionError", "expected a copy\nmore detail")
    assert text == "the claim no longer holds on this machine (8 × cpu, jax 0.10.2): expected a copy"
    assert failure(None, "KeyError", "'x'") == "the claim no longer holds on this machine: KeyError: 'x'"
    assert "give the assert a message" in failure("1 × cpu, jax 0.10.2", "AssertionError", "")
