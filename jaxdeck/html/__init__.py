"""Stage 3, html: an executed notebook -> a reveal.js deck that presents offline.

``layout`` marks where slides, fragments and columns open and close; ``export`` renders
the cells with nbconvert and the theme's templates; ``assets`` copies reveal.js, KaTeX
and the theme beside the page.
"""
