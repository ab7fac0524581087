"""`jaxdeck check`: a built deck linted in a real browser, slide by slide (``deck``)."""
