/* The one measure of a slide's overflow, for `jaxdeck check` (the static deck, every fragment shown
   by check.css) and `jaxdeck rehearse` (the live slideshow, every fragment stepped in), so that both
   give the same pixels for the same slide at the same size.

   Evaluated by Playwright as one function expression, with {slide, tolerance}: with slide [h, v] it
   shows that slide first (the static deck's reveal.js), with null it measures the slide on show (the
   live slideshow's); past the bottom by `tolerance` pixels or less (rounding, a border) is not what
   overflows.
   Measured from the top: whatever scrolled (RISE scrolls a slide to keep an output in view) is
   scrolled back for the measure, then left as it was.

   What counts is what the audience can see: text (each line of it), pictures, widgets' controls and
   drawn borders, not a box's empty padding; what a box inside the slide clips (an editor's scroller,
   KaTeX's glyphs) is not on the slide. What is shown of the slide ends at the frame, or sooner where
   the slide (or its stack) clips its own content.

   Each thing seen is code (a code cell's input, a highlight listing), output (a code cell's
   outputs) or text (the rest). Returns, in slide pixels:
   {bottom, right: how far the content reaches past what is shown (<= 0: it fits),
    below, beyond: which kind first runs past the bottom, and which reaches furthest right (or null),
    belowCell, beyondCell: the notebook index of the cell each is in (data-jd-cell; null: not known),
    scrollable: the slide is {.scrollable} (what runs below it is scrolled to, not lost),
    wide: [[px, lines, text, kind]] of each pre or editor whose lines are wider than the room it has,
    width, height: the deck's size}. */
({slide, tolerance}) => {
  const reveal = window.jaxdeckLive ? window.jaxdeckLive.reveal : window.Reveal;
  if (slide) reveal.slide(slide[0], slide[1]);
  const config = reveal.getConfig();
  const width = Number(config.width), height = Number(config.height);
  const section = reveal.getCurrentSlide();
  const scrolled = [];
  const boxes = [...section.querySelectorAll('*')];
  for (let n = section; n && n !== document.documentElement; n = n.parentElement) boxes.push(n);
  for (const n of boxes) if (n.scrollTop || n.scrollLeft) scrolled.push([n, n.scrollTop, n.scrollLeft]);
  for (const [n] of scrolled) { n.scrollTop = 0; n.scrollLeft = 0; }
  const slides = reveal.getSlidesElement();
  const frame = slides.getBoundingClientRect();
  const scale = reveal.getScale() || 1;
  const x = px => (px - frame.left) / scale, y = px => (px - frame.top) / scale;
  const skip = (el) => el.closest('aside.notes, .jd-notes-cells');
  const kind = (el) => el.closest('.jp-CodeCell .jp-InputArea, pre.jd-steps') ? 'code'
    : el.closest('.jp-OutputArea, .jp-Cell-outputWrapper') ? 'output' : 'text';
  // what is shown of the slide: the frame, or less where the slide or its stack clips content it
  // has no room for (a box that holds all its content clips nothing, however short it is)
  let shownBottom = height, shownRight = width;
  for (let n = section; n && n !== slides; n = n.parentElement) {
    const o = getComputedStyle(n), r = n.getBoundingClientRect();
    if (o.overflowY !== 'visible' && n.scrollHeight > n.clientHeight + 1)
      shownBottom = Math.min(shownBottom, y(r.top) + n.clientTop + n.clientHeight);
    if (o.overflowX !== 'visible' && n.scrollWidth > n.clientWidth + 1)
      shownRight = Math.min(shownRight, x(r.left) + n.clientLeft + n.clientWidth);
  }
  let bottom = 0, right = 0, first = null, furthest = null;
  const seen = (node, rects) => {
    const holder = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    if (!holder || skip(holder) || holder.closest('[hidden]')) return;
    const style = getComputedStyle(holder);
    if (style.visibility === 'hidden' || holder.offsetParent === null && style.position !== 'fixed') return;
    for (const r of rects) {
      if (r.width === 0 && r.height === 0) continue;
      let b = r.bottom, rt = r.right;
      for (let a = holder === node ? holder.parentElement : holder; a && a !== section; a = a.parentElement) {
        const o = getComputedStyle(a), ar = a.getBoundingClientRect();
        if (o.overflowY !== 'visible') b = Math.min(b, ar.bottom);
        if (o.overflowX !== 'visible') rt = Math.min(rt, ar.right);
      }
      const what = kind(holder);
      const owner = holder.closest('[data-jd-cell]');
      const cell = owner ? parseInt(owner.getAttribute('data-jd-cell')) : null;
      bottom = Math.max(bottom, y(b));
      // the first thing (from the top) that runs past the bottom is what overflows
      if (y(b) > shownBottom + tolerance && (first === null || y(r.top) < first.top)) first = {top: y(r.top), what, cell};
      if (!holder.closest('pre, .cm-scroller')) {
        right = Math.max(right, x(rt));
        if (x(rt) > shownRight + tolerance && (furthest === null || x(rt) > furthest.right)) furthest = {right: x(rt), what, cell};
      }
    }
  };
  const text = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = text.nextNode(); node; node = text.nextNode()) {
    if (!node.textContent.trim()) continue;
    range.selectNodeContents(node);
    seen(node, range.getClientRects());
  }
  for (const el of section.querySelectorAll('*')) {
    if (el.ownerSVGElement) continue;  // an SVG's inner shapes are clipped by the SVG itself
    const style = getComputedStyle(el);
    if (style.display === 'none') continue;
    const drawn = el.matches('img, svg, canvas, video, iframe, input, select, button, hr, .widget-slider')
      || parseFloat(style.borderBottomWidth) > 0 && style.borderBottomStyle !== 'none';
    if (drawn) seen(el, [el.getBoundingClientRect()]);
  }
  // lines wider than the room their box has (to its own right edge, or the slide's, whichever is nearer);
  // a zoomed box (a fit's smaller type) counts in its own pixels, turned back into the slide's
  const wide = [];
  for (const box of section.querySelectorAll('pre, .cm-scroller')) {
    if (skip(box) || box.offsetParent === null || box.closest('.cm-scroller') && box !== box.closest('.cm-scroller')) continue;
    const r = box.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const zoom = box.offsetWidth ? (r.width / scale) / box.offsetWidth : 1;
    const visible = Math.min(box.clientWidth, (shownRight - x(r.left)) / zoom);
    const over = (box.scrollWidth - visible) * zoom;
    if (over > tolerance) {
      const lines = box.innerText.split('\n');
      const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
      const chars = box.scrollWidth > 0 ? longest.length * visible / box.scrollWidth : longest.length;
      wide.push([Math.round(over), Math.max(1, lines.filter(l => l.length > chars + 0.5).length),
                 longest.trim().slice(0, 40), kind(box)]);
    }
  }
  for (const [n, top, left] of scrolled) { n.scrollTop = top; n.scrollLeft = left; }
  return {bottom: Math.round(bottom - shownBottom), right: Math.round(right - shownRight),
          below: first && first.what, beyond: furthest && furthest.what,
          belowCell: first && first.cell, beyondCell: furthest && furthest.cell,
          scrollable: section.classList.contains('scrollable'), wide, width, height};
}
