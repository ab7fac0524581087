"""MyST syntax as markdown-it-py parses it: roles, directives, and the plugin that puts them on the parser."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

# --------------------------------------------------------------------------- roles

#: roles that name a Python object: shown as the object's name in code
_PY_ROLES = frozenset({"func", "class", "meth", "mod", "obj", "attr", "data", "exc", "const",
                       "function", "method", "module", "attribute", "exception", "any"})
#: roles that point at a place in the book: shown as their text, emphasised
_XREF_ROLES = frozenset({"ref", "doc", "numref", "eq", "term", "download", "cite", "cite:p",
                         "cite:t", "prf:ref"})
#: roles that are one HTML element around their text
_TAG_ROLES = {"sub": "sub", "subscript": "sub", "sup": "sup", "superscript": "sup", "kbd": "kbd"}
_MATH_ROLES = frozenset({"math", "m"})


@dataclass(frozen=True)
class _Role:
    """What a role shows: ``kind`` is code, em, math, abbr or an HTML tag name."""

    kind: str
    text: str
    title: str = ""


def _title_and_target(content: str) -> tuple[str, str]:
    """``Title <target>`` -> (Title, target); a bare ``target`` -> ("", target)."""
    content = content.strip()
    if content.endswith(">") and "<" in content:
        title, _, target = content[:-1].rpartition("<")
        if title.strip():
            return title.strip(), target.strip()
    return "", content


def _resolve_role(name: str, content: str) -> _Role:
    name = name.lower()
    domain, _, bare = name.rpartition(":")
    if name in _MATH_ROLES:
        return _Role("math", content.strip())
    if name in _TAG_ROLES:
        return _Role(_TAG_ROLES[name], content)
    if name == "abbr":
        # {abbr}`CPU (Central Processing Unit)`
        text = content.strip()
        if text.endswith(")") and "(" in text:
            short, _, long = text[:-1].partition("(")
            return _Role("abbr", short.strip(), long.strip())
        return _Role("abbr", text)
    if name in _PY_ROLES or domain in ("py", "c", "cpp", "js") or domain.startswith("external"):
        title, target = _title_and_target(content)
        if title:
            return _Role("code", title)
        target = target.lstrip("!")
        if target.startswith("~"):
            target = target[1:].rpartition(".")[2]
        return _Role("code", target)
    if name in _XREF_ROLES or bare in _XREF_ROLES:
        title, target = _title_and_target(content)
        if title:
            # {numref}`Figure %s <fig-x>`: no numbers in a deck, so the label stands in
            title = title.replace("%s", target).replace("{number}", target).replace("{name}", target)
            return _Role("em", title)
        return _Role("em", target.lstrip("~!"))
    # literal roles and every role this module does not know: the text in code
    return _Role("code", content)


def _role_element(role: _Role, attributes: str, escape: Callable[[str], str]) -> str | None:
    """An abbreviation or a tag role (sub, sup, kbd) as its HTML element, None for the other kinds:
    the same element in the slides' HTML and in the live notebook's Markdown, which keeps inline HTML."""
    text = escape(role.text)
    if role.kind == "abbr":
        title = f' title="{escape(role.title)}"' if role.title else ""
        return f"<abbr{attributes}{title}>{text}</abbr>"
    if role.kind in _TAG_ROLES.values():
        return f"<{role.kind}{attributes}>{text}</{role.kind}>"
    return None


def _role_html(role: _Role, name: str) -> str:
    element = _role_element(role, ' class="myst-role"', escapeHtml)
    if element is not None:
        return element
    text = escapeHtml(role.text)
    css = escapeHtml(name)
    if role.kind == "math":
        return f'<span class="math inline">\\({text}\\)</span>'
    if role.kind == "em":
        return f'<em class="myst-role {css}">{text}</em>'
    return f'<code class="myst-role {css}">{text}</code>'


def _md_code(text: str) -> str:
    """``text`` as a CommonMark code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#!|~$"})


def _role_markdown(role: _Role) -> str:
    element = _role_element(role, "", html.escape)
    if element is not None:
        return element
    if role.kind == "math":
        return f"${role.text}$"
    if role.kind == "em":
        return f"*{role.text.translate(_MD_SPECIAL)}*"
    return _md_code(role.text)


# ---------------------------------------------------------------------- directives

#: admonition directives and the title each shows
ADMONITIONS = {
    "note": "Note", "tip": "Tip", "important": "Important", "warning": "Warning",
    "caution": "Caution", "danger": "Danger", "attention": "Attention", "hint": "Hint",
    "error": "Error", "seealso": "See also", "admonition": "",
}
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_MATH_DIRECTIVES = frozenset({"math"})
#: directives that are book navigation or build machinery: nothing to show on a slide
_HIDDEN_DIRECTIVES = frozenset({"toctree", "contents", "tableofcontents", "glossary-index",
                                "bibliography", "only", "meta", "index"})


@dataclass(frozen=True)
class _Directive:
    name: str
    argument: str
    options: dict[str, str]
    body: str


def _directive_name(info: str) -> tuple[str, str] | None:
    """``{name} argument`` -> (name, argument); None when ``info`` is no directive."""
    info = info.strip()
    if not info.startswith("{") or "}" not in info:
        return None
    name, _, argument = info[1:].partition("}")
    name = name.strip()
    if not name or any(ch.isspace() for ch in name):
        return None
    return name.lower(), argument.strip()


def _directive(token: Token) -> _Directive | None:
    """The directive a fence token writes, with its options split from its body."""
    head = _directive_name(token.info)
    if head is None:
        return None
    name, argument = head
    lines = token.content.splitlines()
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":
        # a YAML block of options: `key: value` lines between two `---` lines
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep and key.strip():
                    options[key.strip()] = value.strip().strip("'\"")
            lines = lines[end + 1:]
    else:
        while lines and lines[0].startswith(":") and lines[0].count(":") >= 2:
            key, _, value = lines[0][1:].partition(":")
            if not key.strip() or " " in key.strip():
                break
            options[key.strip()] = value.strip()
            lines = lines[1:]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return _Directive(name, argument, options, "\n".join(lines))


def _admonition_parts(d: _Directive) -> tuple[list[str], str, str]:
    """(css classes, title, body Markdown) of an admonition directive."""
    classes = ["admonition"]
    if d.name == "admonition":
        title, body = d.argument, d.body
    else:
        classes.append(d.name)
        title = ADMONITIONS[d.name]
        # a note's argument is the first line of its body
        body = d.argument + ("\n" + d.body if d.body else "") if d.argument else d.body
    extra = [c for c in d.options.get("class", "").split() if c and c not in classes]
    if d.name == "admonition" and not extra:
        extra = ["note"]
    return classes + extra, title, body


def _css(classes: Sequence[str]) -> str:
    return escapeHtml(" ".join(classes))


# ----------------------------------------------------------------------- the plugin

def myst_plugin(md: MarkdownIt) -> None:
    """MyST's syntax on ``md`` (jaxdeck.html.markdown's parser): roles, targets, comments,
    ``+++`` breaks and directives, parsed and rendered; a directive's body renders with ``md``."""
    myst_role_plugin(md)
    myst_block_plugin(md)
    colon_fence_plugin(md)

    # a colon fence is MyST only when it names a directive (`:::{note}`); any other
    # `:::` line stays the paragraph text CommonMark makes of it
    colon_rule = next(r for r in md.block.ruler.__rules__ if r.name == "colon_fence")
    colon_parse = colon_rule.fn

    def directive_colon_fence(state, start_line, end_line, silent):
        pos = state.bMarks[start_line] + state.tShift[start_line]
        line = state.src[pos:state.eMarks[start_line]]
        if _directive_name(line.lstrip(":")) is None:
            return False
        return colon_parse(state, start_line, end_line, silent)

    md.block.ruler.at("colon_fence", directive_colon_fence, {"alt": colon_rule.alt})

    plain_fence = md.renderer.rules["fence"]

    def fence(self, tokens, idx, options, env):
        d = _directive(tokens[idx])
        if d is None:
            return plain_fence(tokens, idx, options, env)
        return _directive_html(md, d, options, env, plain_fence)

    def colon_fence(self, tokens, idx, options, env):
        return fence(self, tokens, idx, options, env)

    def role(self, tokens, idx, options, env):
        name = tokens[idx].meta.get("name", "")
        return _role_html(_resolve_role(name, tokens[idx].content), name)

    def hidden(self, tokens, idx, options, env):
        return ""

    md.add_render_rule("fence", fence)
    md.add_render_rule("colon_fence", colon_fence)
    md.add_render_rule("myst_role", role)
    md.add_render_rule("myst_target", hidden)
    md.add_render_rule("myst_line_comment", hidden)
    md.add_render_rule("myst_block_break", hidden)


def _math_delimited(content: str, opts: Mapping[str, Any]) -> str:
    if opts.get("display_mode"):
        return escapeHtml(f"\\[{content}\\]")
    return escapeHtml(f"\\({content}\\)")


def _directive_html(md: MarkdownIt, d: _Directive, options, env, plain_fence) -> str:
    if d.name in ADMONITIONS:
        classes, title, body = _admonition_parts(d)
        inner = md.render(body, env)
        title_html = f'<p class="admonition-title">{md.renderInline(title)}</p>\n' if title else ""
        if "dropdown" in classes:
            return (f'<details class="{_css(classes)}"><summary class="admonition-title">'
                    f"{md.renderInline(title or 'Details')}</summary>\n{inner}</details>\n")
        return f'<div class="{_css(classes)}">\n{title_html}{inner}</div>\n'
    if d.name in _MATH_DIRECTIVES:
        parts = [p.strip() for p in re.split(r"\n\s*\n", d.argument + "\n" + d.body) if p.strip()]
        return "".join(f'<div class="math block">\n{_math_delimited(p, {"display_mode": True})}\n</div>\n'
                       for p in parts)
    if d.name in _CODE_DIRECTIVES:
        token = Token("fence", "code", 0, info=d.argument.split()[0] if d.argument else "",
                      content=d.body + "\n" if d.body else "", markup="```", block=True)
        return plain_fence([token], 0, options, env)
    if d.name in _HIDDEN_DIRECTIVES:
        return ""
    if d.name == "raw":
        return d.body + "\n" if d.argument.strip().lower() == "html" else ""
    if d.name == "dropdown":
        return (f'<details class="{_css(["directive", "dropdown", *d.options.get("class", "").split()])}">'
                f"<summary>{md.renderInline(d.argument or 'Details')}</summary>\n"
                f"{md.render(d.body, env)}</details>\n")
    # any other directive: its argument as a title line, its body as Markdown
    title = f'<p class="directive-title">{md.renderInline(d.argument)}</p>\n' if d.argument else ""
    return (f'<div class="{_css(["directive", d.name, *d.options.get("class", "").split()])}">\n'
            f"{title}{md.render(d.body, env)}</div>\n")


#: token types that only MyST writes (dollar math is left out: plain decks use it too)
_MYST_TOKENS = frozenset({"myst_role", "myst_target", "myst_line_comment", "myst_block_break",
                          "colon_fence"})


def _walk(tokens: Sequence[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


# ------------------------------------------------------------------------------ API
