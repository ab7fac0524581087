// jaxdeck check: images that failed to load, as [slide number, src].
() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => {
  const s = i.closest('section[data-jd-slide]');
  return [s ? parseInt(s.getAttribute('data-jd-slide')) : 0, i.getAttribute('src') || ''];
})
