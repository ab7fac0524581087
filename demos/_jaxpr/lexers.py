"""Pygments lexers for jaxpr text and for StableHLO / XLA HLO text (used by the views' highlighting)."""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

_DTYPES = r"(?:bool|pred|bf16|f8\w*|f16|f32|f64|i1|i4|i8|i16|i32|i64|u4|u8|u16|u32|u64|s4|s8|s16|s32|s64|c64|c128|float0|key<\w+>)"


class JaxprLexer(RegexLexer):
    """Pygments lexer for ``str(jax.make_jaxpr(f)(x))``."""

    name = "jaxpr"
    aliases = ["jaxpr"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"\b(lambda|let|in)\b", Keyword),
            (_DTYPES + r"\[[\d,\s]*\]", Keyword.Type),
            (r"(=)(\s*)([A-Za-z_][\w]*)", bygroups(Operator, Whitespace, Name.Builtin)),
            (r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+", Number),
            (r"'[^']*'|\"[^\"]*\"", String),
            (r"[A-Za-z_][\w]*", Name),
            (r"[{}()\[\],;.:=*]", Punctuation),
            (r".", Text),
        ]
    }


class IRLexer(RegexLexer):
    """Pygments lexer for StableHLO (MLIR) and XLA HLO text."""

    name = "xla-ir"
    aliases = ["hlo", "stablehlo"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r'"(?:\\.|[^"\\])*"', String),
            (r"\b(ROOT|ENTRY|HloModule|module|func\.func|public|private|return|attributes)\b", Keyword.Reserved),
            (r"\b(?:stablehlo|chlo|mhlo|sdy|func)\.[\w.]+", Keyword),
            (r"tensor<[^>]*>", Keyword.Type),
            (r"\b" + _DTYPES + r"\[[\d,]*\](?:\{[\d,]*\})?", Keyword.Type),
            (r"%[\w.\-]+", Name.Variable),
            (r"@[\w.\-]+", Name.Function),
            (r"\b[a-z][\w\-]*(?=\()", Name.Builtin),
            (r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+", Number),
            (r"[\w.]+", Name),
            (r"[{}()\[\]<>,;:=]", Punctuation),
            (r".", Text),
        ]
    }
