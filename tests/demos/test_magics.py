"""demos.magics: ``%load_ext demos`` gives %jaxtime / %%jaxtime running the bench protocol."""

import ast

import pytest
from IPython.core.interactiveshell import InteractiveShell

from demos.magics import _as_function, _direct_call, time_statement
from demos.timing import Timing


@pytest.fixture(scope="module")
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "demos")
    shell.run_cell("import jax, jax.numpy as jnp\n"
                   "x = jnp.ones(64)\n"
                   "f = jax.jit(lambda v: jnp.cos(v) * 3)\n"
                   "calls = []\n"
                   "def g(v):\n"
                   "    calls.append(1)\n"
                   "    return v + 1\n")
    return shell


def test_extension_registers_line_and_cell_magic(ip):
    magics = ip.magics_manager.magics
    assert "jaxtime" in magics["line"] and "jaxtime" in magics["cell"]


def test_line_magic_on_a_jitted_call_reports_compile_apart(ip):
    t = ip.run_line_magic("jaxtime", "-o -q -b 0.05 f(x)")
    assert isinstance(t, Timing)
    assert t.label == "f(x)"
    assert t.compile_s is not None and t.measured_compiles == 0


def test_line_magic_options(ip):
    ip.user_ns["calls"].clear()
    t = ip.run_line_magic("jaxtime", "-o -q -n 4 -r 3 -w 2 g(x) * 2")
    assert (t.number, t.repeat, t.warmup) == (4, 3, 2)
    assert t.compile_s is None  # an expression, not a direct call: timed as a whole
    assert len(ip.user_ns["calls"]) == 2 + 4 * 3


def test_cell_magic_runs_setup_once_and_keeps_it_local(ip):
    ip.user_ns["calls"].clear()
    t = ip.run_cell_magic("jaxtime", "-o -q -n 2 -r 2 offset = g(x)", "y = x + offset\ny.sum()")
    assert isinstance(t, Timing) and (t.number, t.repeat) == (2, 2)
    assert len(ip.user_ns["calls"]) == 1  # the setup line ran once, untimed
    assert "offset" not in ip.user_ns and "y" not in ip.user_ns
    assert t.backend != "host"  # the cell's value (a JAX array) was what got blocked on


def test_without_o_it_displays_and_returns_nothing(ip, capsys):
    assert ip.run_line_magic("jaxtime", "-b 0.02 g(x)") is None
    out = capsys.readouterr().out
    assert "median of" in out


def test_as_function_returns_the_last_expression():
    fn = _as_function(ast.parse("a = 20\na + 22"), {})
    assert fn() == 42
    assert _as_function(ast.parse("b = 1"), {})() is None


@pytest.mark.parametrize("code, direct", [
    ("f(x)", True), ("mod.f(x, k=y)", True), ("f(x, 3)", True),
    ("f(x) + 1", False), ("f(g(x))", False), ("f(*xs)", False), ("a = f(x)", False),
])
def test_direct_call_detection(code, direct):
    assert (_direct_call(ast.parse(code)) is not None) is direct


def test_time_statement_rejects_empty_code():
    with pytest.raises(ValueError):
        time_statement("   ", {})
