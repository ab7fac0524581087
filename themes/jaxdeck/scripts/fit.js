/* The browser side of jaxdeck.html.fit_measure's `measure_page`: every slide of a reveal.js
   deck as laid out, with the room its content has and where each notebook cell on it lies.

   Evaluated by Playwright (page.evaluate) as one function expression. A cell element is one
   with `data-jd-cell="INDEX"` (the notebook cell's index), or else nbconvert's cell wrapper
   `.jp-Cell` with `id="cell-id=ID"` (the cell's id; Python maps it to the index). Cells in
   speaker notes are not on the slide. Positions are slide pixels from the top of the
   `.reveal .slides` frame (reveal.js's scale undone), as `jaxdeck check` measures them; a
   cell's bottom counts whatever of its content shows below its box (not what an ancestor
   clips) and its bottom margin, which the slide grows to hold. The room is the deck's configured height less the slide's bottom padding:
   reveal.js's `margin` lies outside the slide's own pixels; a `{.scrollable}` slide's is endless (it
   scrolls, so it is never cut).

   Returns [{index, h, v, available, cells: [{cell, id, top, bottom}]}], slides in
   Reveal.getSlides() order. */
() => {
  const CELLS = '[data-jd-cell], .jp-Cell[id^="cell-id="]';
  const config = Reveal.getConfig();
  const frame = document.querySelector('.reveal .slides');
  const shown = el => {
    const style = getComputedStyle(el);
    return style.display !== 'none' && style.visibility !== 'hidden';
  };
  // the lowest visible point of `el` and its content, less what an ancestor up to `slide` clips
  const lowest = (el, slide) => {
    let bottom = el.getBoundingClientRect().bottom;
    for (const inner of el.querySelectorAll('*')) {
      if (inner.ownerSVGElement || !shown(inner)) continue;
      const r = inner.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      let b = r.bottom;
      for (let a = inner.parentElement; a && a !== slide.parentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowY !== 'visible') b = Math.min(b, a.getBoundingClientRect().bottom);
      }
      bottom = Math.max(bottom, b);
    }
    return bottom;
  };
  const slides = Reveal.getSlides();
  const found = slides.map((slide, index) => {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v || 0);
    const origin = frame.getBoundingClientRect().top;
    const scale = Reveal.getScale() || 1;
    const y = px => (px - origin) / scale;
    const padding = parseFloat(getComputedStyle(slide).paddingBottom) || 0;
    const cells = [];
    for (const el of slide.querySelectorAll(CELLS)) {
      if (el.closest('aside.notes') || !shown(el)) continue;
      if (el.parentElement && el.parentElement.closest(CELLS)) continue;  // the outermost wrapper only
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const attribute = el.getAttribute('data-jd-cell');
      const id = el.id && el.id.startsWith('cell-id=') ? el.id.slice('cell-id='.length) : null;
      // the slide grows to hold a cell's bottom margin too (it is what check counts as overflow)
      const margin = parseFloat(getComputedStyle(el).marginBottom) || 0;
      cells.push({cell: attribute === null || attribute === '' ? null : parseInt(attribute, 10), id: id,
                  top: y(r.top), bottom: y(lowest(el, slide) + margin * scale)});
    }
    const room = slide.classList.contains('scrollable') ? Infinity : config.height - padding;
    return {index: index, h: at.h, v: at.v || 0, available: room, cells: cells};
  });
  if (slides.length) Reveal.slide(0, 0);
  return found;
}
