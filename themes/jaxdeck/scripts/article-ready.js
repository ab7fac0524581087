// jaxdeck pdf: true once the article has typeset its math and loaded its fonts (themes/jaxdeck/static/article.js).
() => document.body.classList.contains('jd-ready')
