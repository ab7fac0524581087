// jaxdeck pdf: the deck's footer and logo (header options footer, logo) on every printed page.
// On screen they sit once over the slides; reveal.js's print view lays each slide on a page of
// its own, so each page gets its own copy. Returns how many pages got them.
() => {
  const marks = [...document.querySelectorAll('.reveal > .jd-footer, .reveal > .jd-logo')];
  const pages = document.querySelectorAll('.reveal .slides .pdf-page');
  if (!marks.length) return 0;
  pages.forEach(page => marks.forEach(mark => page.appendChild(mark.cloneNode(true))));
  return pages.length;
}
