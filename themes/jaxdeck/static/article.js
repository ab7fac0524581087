// jaxdeck's article: the math typeset by KaTeX from the local copy, as the deck typesets it; then
// `jd-ready` on the body, which the article's printer waits for.
renderMathInElement(document.querySelector('main.jd-article'), {
  delimiters: [
    {left: '\\[', right: '\\]', display: true},
    {left: '\\(', right: '\\)', display: false}
  ],
  ignoredClasses: ['jp-OutputArea', 'highlight', 'jp-CodeCell'],
  throwOnError: false
});
document.fonts.ready.then(function () {
  document.body.classList.add('jd-ready');
});
