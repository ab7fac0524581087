"""Stage 3b: an executed deck notebook -> the talk as a readable page (``build/article/NAME.html``).

The "extended edition" of a deck: each slide's content and its speaker notes as prose beneath
it, the slide titles as headings, a table of contents, printable to A4 (``build/article/NAME.pdf``
with ``--pdf``). It reuses the HTML stage's preprocessors, Markdown engine and output views;
:mod:`jaxdeck.article.sections` adds what only the article needs, :mod:`jaxdeck.article.export`
renders it with ``themes/jaxdeck/article.html.j2``.
"""
