// jaxdeck: resolves once the page's web fonts are loaded, so that what is measured or printed next has their metrics.
() => document.fonts.ready.then(() => true)
