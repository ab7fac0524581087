// jaxdeck: the slide on show, as reveal.js's {h, v, f}.
() => Reveal.getIndices()
