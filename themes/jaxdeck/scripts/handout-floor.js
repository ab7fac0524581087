// jaxdeck pdf: no text of a slide in the handout under `floorPt` on paper. The handout shrinks each slide
// to its frame (scripts/handout.js); text the slide sets small (a chart's labels, a fitted cell, a
// .smaller slide) would print too small to read, so it is set just large enough, unless that runs the
// slide past its page (then the slide stays as printed: nothing is cut). Text in an SVG keeps its size.
// Called with {floorPt}; returns [slide page number, elements set larger] for each slide it changed.
({floorPt}) => {
  const floorPx = floorPt * 96 / 72;  // the print's CSS pixel is 1/96 in
  const changed = [];
  document.querySelectorAll('.jd-frame > .pdf-page').forEach((page, index) => {
    const section = page.querySelector(':scope > section');
    if (!section) return;
    const room = page.getBoundingClientRect();
    const set = [];
    for (const el of page.querySelectorAll('*')) {
      if (el.closest('svg, aside.notes, .jd-full') || !el.currentCSSZoom) continue;
      if (![...el.childNodes].some(node => node.nodeType === Node.TEXT_NODE && node.textContent.trim())) continue;
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      const printed = parseFloat(style.fontSize) * el.currentCSSZoom;
      if (printed >= floorPx) continue;
      set.push([el, el.style.getPropertyValue('font-size'), el.style.getPropertyPriority('font-size')]);
      el.style.setProperty('font-size', `${(floorPx / el.currentCSSZoom).toFixed(2)}px`, 'important');
    }
    if (!set.length) return;
    const box = section.getBoundingClientRect();
    const overflows = !section.classList.contains('scrollable') &&
      (box.bottom > room.bottom + 0.5 || box.right > room.right + 0.5 || section.scrollWidth > section.clientWidth + 1);
    if (overflows) {
      set.forEach(([el, value, priority]) => value ? el.style.setProperty('font-size', value, priority)
                                                   : el.style.removeProperty('font-size'));
      return;
    }
    changed.push([index + 1, set.length]);
  });
  return changed;
}
