// jaxdeck pdf: the deck's slide number (data-jd-slide) on each page of the print view, 0 where a page names none.
() => [...document.querySelectorAll('.reveal .slides .pdf-page')].map(p =>
  Number((p.querySelector('section[data-jd-slide]') || {dataset: {}}).dataset.jdSlide || 0))
