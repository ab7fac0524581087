"""demos._jaxpr.lexers: jaxpr and IR text get keyword, primitive and type tokens."""

from pygments.token import Keyword, Name

from demos import jaxpr as J


def test_lexers_mark_keywords_and_primitives():
    tokens = list(J.JaxprLexer().get_tokens("{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }"))
    assert (Keyword, "lambda") in tokens
    assert (Name.Builtin, "sin") in tokens
    assert (Keyword.Type, "f32[3]") in tokens
    ir = list(J.IRLexer().get_tokens("%0 = stablehlo.sine %arg0 : tensor<4xf32>"))
    assert (Keyword, "stablehlo.sine") in ir and (Keyword.Type, "tensor<4xf32>") in ir
