// jaxdeck check: the pictures on the slide on show (images and inline SVG drawings, not KaTeX's
// glyphs, not a handout-only copy), each as {index, box: [x, y, width, height] in window pixels (what
// of it is in the window), name, cell (the notebook index of the code cell whose output it is, or
// null), background: [r, g, b] of what it is drawn on (its own backing, or what is behind it; null:
// a picture behind the slide, unknown)}. Each is marked data-jd-picture=index for the screenshots
// that follow (scripts/check-ink.js). With `logo` true: the deck's logo (the header's, over every
// slide, .reveal > .jd-logo) alone, index 'logo', drawn on the slide on show.
(logo) => {
  const section = Reveal.getCurrentSlide();
  document.querySelectorAll('[data-jd-picture]').forEach(p => p.removeAttribute('data-jd-picture'));  // an earlier slide's
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const filled = (style) => { const c = rgb(style.backgroundColor); return c.length === 3 || (c.length === 4 && c[3] > 0.5) ? c.slice(0, 3) : null; };
  // what the picture is drawn on: its own backing, else the nearest box behind it with a colour of its
  // own: inside the slide, then the slide's background (reveal.js draws it behind the slides), the page
  const behind = (picture) => {
    for (let e = picture; e; e = e.parentElement) {
      if (e.classList.contains('slides')) {
        const own = Reveal.getSlideBackground(section);
        if (own) {
          const style = getComputedStyle(own);
          const content = own.querySelector('.slide-background-content');
          if (content && getComputedStyle(content).backgroundImage !== 'none') return null;
          const colour = filled(style) || (content && filled(getComputedStyle(content)));
          if (colour) return colour;
        }
      }
      const colour = filled(getComputedStyle(e));
      if (colour) return colour;
    }
    return [255, 255, 255];
  };
  const name = (picture) => {
    if (picture.tagName.toLowerCase() === 'img') {
      const src = picture.getAttribute('src') || '';
      if (!src.startsWith('data:')) return src;
      return picture.getAttribute('alt') || 'a picture drawn by a code cell';
    }
    const title = picture.querySelector(':scope > title');
    return picture.getAttribute('aria-label') || (title && title.textContent.trim()) || 'an SVG drawing';
  };
  const box = (p) => {
    const r = p.getBoundingClientRect();
    const left = Math.max(0, r.left), top = Math.max(0, r.top);
    return [left, top, Math.min(innerWidth, r.right) - left, Math.min(innerHeight, r.bottom) - top];
  };
  if (logo) {
    const mark = document.querySelector('.reveal > .jd-logo');
    if (!mark || !mark.complete || !mark.naturalWidth || getComputedStyle(mark).visibility !== 'visible') return [];
    mark.setAttribute('data-jd-picture', 'logo');
    // it lies over the slides, not in them: what it is drawn on is what is behind the slide on show
    const found = {index: 'logo', box: box(mark), name: mark.getAttribute('src'), cell: null,
                   background: behind(document.querySelector('.reveal .slides'))};
    return found.box[2] >= 8 && found.box[3] >= 8 ? [found] : [];
  }
  return [...section.querySelectorAll('img, svg')]
    .filter(p => !p.parentElement.closest('svg') && !p.closest('.katex, aside.notes, .jd-full'))
    .filter(p => p.tagName.toLowerCase() !== 'img' || (p.complete && p.naturalWidth > 0))
    .filter(p => getComputedStyle(p).visibility === 'visible')
    .map((p, index) => {
      p.setAttribute('data-jd-picture', String(index));
      const cell = p.closest('.jp-OutputArea') && p.closest('[data-jd-cell]');
      return {index, box: box(p), name: name(p),
              cell: cell ? parseInt(cell.getAttribute('data-jd-cell')) : null, background: behind(p)};
    })
    .filter(p => p.box[2] >= 8 && p.box[3] >= 8);
}
