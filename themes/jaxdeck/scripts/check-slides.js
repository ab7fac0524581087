// jaxdeck check: every slide as [slide number (data-jd-slide), h index, v index].
() => Reveal.getSlides().map(s => {
  const i = Reveal.getIndices(s);
  return [parseInt(s.getAttribute('data-jd-slide') || '0'), i.h, i.v || 0];
})
