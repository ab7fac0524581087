"""MyST Markdown rewritten for JupyterLab's Markdown renderer (CommonMark, raw HTML, dollar math) in the live talk."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from jaxdeck.html.markdown import PARSER as _MD
from jaxdeck.html.myst.syntax import (_CODE_DIRECTIVES, _HIDDEN_DIRECTIVES, _MATH_DIRECTIVES, ADMONITIONS,
                                      _admonition_parts, _css, _directive, _Directive, _resolve_role, _role_markdown)


def _prefixes(first_line: str, marker_at: int) -> tuple[str, str]:
    """The container prefix of a block's first line and of its following lines:
    ``> - ```{note}`` gives ``"> - "`` and ``">   "``."""
    first = first_line[:marker_at]
    rest = "".join(ch if ch == ">" else " " for ch in first)
    return first, rest


def _marker_column(line: str, marker: str) -> int:
    at = line.find(marker)
    return at if at >= 0 else len(line) - len(line.lstrip())


def _directive_markdown(d: _Directive) -> list[str] | None:
    """The lines JupyterLab renders for a directive (None: leave the source as it is)."""
    if d.name in ADMONITIONS:
        classes, title, body = _admonition_parts(d)
        if "dropdown" in classes:
            return [f'<details class="{_css(classes)}"><summary class="admonition-title">'
                    f"{_MD.renderInline(title or 'Details')}</summary>",
                    "", *live_markdown(body).splitlines(), "", "</details>"]
        head = [f'<div class="{_css(classes)}">']
        if title:
            head.append(f'<p class="admonition-title">{_MD.renderInline(title)}</p>')
        return head + ["", *live_markdown(body).splitlines(), "", "</div>"]
    if d.name == "dropdown":
        return [f'<details class="{_css(["directive", "dropdown", *d.options.get("class", "").split()])}">'
                f"<summary>{_MD.renderInline(d.argument or 'Details')}</summary>",
                "", *live_markdown(d.body).splitlines(), "", "</details>"]
    if d.name in _MATH_DIRECTIVES:
        parts = [p.strip() for p in re.split(r"\n\s*\n", d.argument + "\n" + d.body) if p.strip()]
        lines: list[str] = []
        for part in parts:
            lines += ([""] if lines else []) + ["$$", *part.splitlines(), "$$"]
        return lines
    if d.name in _CODE_DIRECTIVES:
        longest = max((len(run) for run in re.findall("`{3,}", d.body)), default=2)
        fence = "`" * (longest + 1)
        lang = d.argument.split()[0] if d.argument else ""
        return [fence + lang, *d.body.splitlines(), fence]
    if d.name in _HIDDEN_DIRECTIVES:
        return []
    if d.name == "raw":
        return d.body.splitlines() if d.argument.strip().lower() == "html" else []
    classes = ["directive", d.name, *d.options.get("class", "").split()]
    head = [f'<div class="{_css(classes)}">']
    if d.argument:
        head.append(f'<p class="directive-title">{_MD.renderInline(d.argument)}</p>')
    return head + ["", *live_markdown(d.body).splitlines(), "", "</div>"]


def _removed(lines: Sequence[str], start: int, end: int, prefix: str) -> list[str]:
    """What stands for lines that show nothing: a blank line (keeping a container's
    ``>``) where it still separates two blocks, otherwise nothing at all."""
    before = lines[start - 1].strip(" >\n") if start > 0 else ""
    after = lines[end].strip(" >\n") if end < len(lines) else ""
    return [prefix.rstrip()] if before and after else []


def _rewrite_roles(text: str, roles: Sequence[Token]) -> str:
    """Replace each role's source in ``text`` (one block's lines), in order."""
    out, cursor = [], 0
    for token in roles:
        name = token.meta.get("name", "")
        head = "{" + name + "}"
        at = text.find(head, cursor)
        if at < 0:
            continue
        ticks_at = at + len(head)
        ticks = len(text[ticks_at:]) - len(text[ticks_at:].lstrip("`"))
        fence = "`" * ticks
        end = text.find(fence, ticks_at + ticks + 1) if ticks else -1
        if end < 0:
            continue
        out.append(text[cursor:at])
        out.append(_role_markdown(_resolve_role(name, token.content)))
        cursor = end + ticks
    out.append(text[cursor:])
    return "".join(out)


def live_markdown(markdown: str) -> str:
    """The cell as JupyterLab's Markdown renderer (CommonMark, raw HTML, ``$`` math) shows
    it in the live slideshow: roles become inline code or emphasis, targets, comments and
    breaks go, admonitions become ``<div class="admonition NAME">`` blocks whose body stays
    Markdown, and ``{math}`` becomes ``$$`` math. Text with no MyST comes back unchanged."""
    tokens = _MD.parse(markdown)
    lines = markdown.splitlines(keepends=True)
    # (first line, end line) -> replacement lines, for block constructs
    blocks: dict[tuple[int, int], list[str]] = {}
    # line range -> role tokens found in it, for inline rewrites
    inline_roles: dict[tuple[int, int], list[Token]] = {}
    last_map: list[int] | None = None
    for token in tokens:
        if token.map:
            last_map = token.map
        if token.type in ("myst_target", "myst_line_comment", "myst_block_break") and token.map:
            start, end = token.map
            _, rest = _prefixes(lines[start], _marker_column(lines[start], token.markup or "("))
            blocks[(start, end)] = _removed(lines, start, end, rest)
        elif token.type in ("fence", "colon_fence") and token.map:
            d = _directive(token)
            if d is None:
                continue
            start, end = token.map
            first, rest = _prefixes(lines[start], _marker_column(lines[start], token.markup))
            new = _directive_markdown(d)
            if new is None:
                continue
            if not new:
                blocks[(start, end)] = _removed(lines, start, end, rest)
                continue
            blocks[(start, end)] = [first + new[0]] + [(rest + line) if line else rest.rstrip()
                                                      for line in new[1:]]
        elif token.type == "math_block_label" and token.map:
            start, end = token.map
            first, rest = _prefixes(lines[start], _marker_column(lines[start], "$$"))
            blocks[(start, end)] = [first + "$$"] + [rest + line for line in
                                                      token.content.strip().splitlines()] + [rest + "$$"]
        elif token.type == "inline" and token.children:
            roles = [child for child in token.children if child.type == "myst_role"]
            span = token.map or last_map
            if roles and span:
                inline_roles.setdefault((span[0], span[1]), []).extend(roles)
    if not blocks and not inline_roles:
        return markdown

    out: list[str] = []
    line = 0
    starts = {start: (end, new) for (start, end), new in blocks.items()}
    role_spans = {start: (end, roles) for (start, end), roles in inline_roles.items()}
    while line < len(lines):
        if line in starts:
            end, new = starts[line]
            if new:
                ending = "\n" if lines[end - 1].endswith("\n") else ""
                out.append("\n".join(new) + ending)
            line = max(end, line + 1)
        elif line in role_spans:
            end, roles = role_spans[line]
            out.append(_rewrite_roles("".join(lines[line:end]), roles))
            line = max(end, line + 1)
        else:
            out.append(lines[line])
            line += 1
    return "".join(out)
