// jaxdeck bench: the horizontal index of the slide on show (falsy on the first slide, so a wait holds there).
() => Reveal.getIndices().h
