"""``%jaxtime`` / ``%%jaxtime``: the :func:`demos.timing.bench` protocol with ``%timeit`` syntax.

    %load_ext demos
    %jaxtime f(x)                 # f jitted: compile timed apart, run time blocked and autoranged
    %jaxtime -r 5 -b 1.0 g(x, y)  # 5 repeats within a 1 s budget
    %%jaxtime -o                  # cell mode: the body is timed; its last expression is blocked on
    y = jnp.dot(a, b)
    y + 1

Options: ``-n N`` calls per repeat, ``-r R`` repeats, ``-w W`` warm-up calls, ``-b S`` budget in
seconds, ``-o`` return the Timing, ``-q`` do not display it. In cell mode, code after the
options on the magic line is setup, run once and not timed.

A single call whose callee and arguments are plain names, attributes or constants is timed
directly with ``bench(f, *args)``, so a jitted ``f`` gets its compile time reported apart;
any other statement is wrapped in a function (like ``timeit``) and its value blocked on.
"""

from __future__ import annotations

import ast

from IPython.core.magic import Magics, line_cell_magic, magics_class

from .timing import DEFAULT_BUDGET_S, DEFAULT_REPEAT, bench


def _simple(node: ast.AST) -> bool:
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    return False


def _direct_call(tree: ast.Module):
    """``f(a, b, k=c)`` with only simple parts -> the Call node, else None."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not isinstance(call, ast.Call) or not _simple(call.func):
        return None
    if not all(_simple(a) for a in call.args):
        return None
    if not all(k.arg is not None and _simple(k.value) for k in call.keywords):
        return None
    return call


def _as_function(tree: ast.Module, ns: dict, name: str = "__jaxtime_body"):
    """Compile statements into a zero-argument function that returns the last expression."""
    body = list(tree.body)
    if body and isinstance(body[-1], ast.Expr):
        body[-1] = ast.Return(value=body[-1].value)
    else:
        body.append(ast.Return(value=ast.Constant(value=None)))
    fn_def = ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                           kw_defaults=[], kwarg=None, defaults=[]),
                             body=body, decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[fn_def], type_ignores=[])
    ast.fix_missing_locations(module)
    exec(compile(module, "<jaxtime>", "exec"), ns)
    return ns.pop(name)


def time_statement(code: str, ns: dict, setup: str = "", **options):
    """Run the bench protocol on ``code`` evaluated in namespace ``ns`` (the magics' engine)."""
    scope = dict(ns)
    if setup.strip():
        exec(compile(setup, "<jaxtime setup>", "exec"), scope)
    tree = ast.parse(code)
    if not tree.body:
        raise ValueError("%jaxtime needs a statement to time")
    label = code.strip().splitlines()[0] if len(code.strip().splitlines()) == 1 else "cell"
    call = _direct_call(tree)
    if call is not None:
        fn = eval(compile(ast.Expression(call.func), "<jaxtime>", "eval"), scope)
        args = [eval(compile(ast.Expression(a), "<jaxtime>", "eval"), scope) for a in call.args]
        kwargs = {k.arg: eval(compile(ast.Expression(k.value), "<jaxtime>", "eval"), scope) for k in call.keywords}
        clash = set(kwargs) & {"warmup", "repeat", "number", "budget_s", "label"}
        if not clash:
            return bench(fn, *args, label=label, **options, **kwargs)
    return bench(_as_function(tree, scope), label=label, **options)


@magics_class
class JaxTimeMagics(Magics):
    """Registers ``%jaxtime`` and ``%%jaxtime``."""

    @line_cell_magic
    def jaxtime(self, line: str, cell: str | None = None):
        """Time a statement with demos.timing.bench (see ``demos.magics`` for options)."""
        opts, rest = self.parse_options(line, "n:r:w:b:oq", posix=False, strict=False)
        options = {
            "number": int(opts["n"]) if "n" in opts else None,
            "repeat": int(opts.get("r", DEFAULT_REPEAT)),
            "warmup": int(opts.get("w", 1)),
            "budget_s": float(opts["b"]) if "b" in opts else DEFAULT_BUDGET_S,
        }
        transform = getattr(self.shell, "transform_cell", lambda s: s)
        if cell is None:
            code, setup = transform(rest), ""
        else:
            code, setup = transform(cell), transform(rest) if rest.strip() else ""
        timing = time_statement(code, self.shell.user_ns, setup=setup, **options)
        if "q" not in opts:
            from IPython.display import display

            display(timing)
        if "o" in opts:
            return timing
        return None
