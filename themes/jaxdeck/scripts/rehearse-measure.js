// jaxdeck rehearse: how far the live slide on show reaches past what is shown of it (its frame, or its
// own box where that clips) once its
// outputs are in (every fragment shown), and which code or output lines are wider than their box.
// Measured from the top: a slide the live slideshow scrolled to keep an output in view is scrolled
// back for the measure, then left as it was.
() => {
  const reveal = window.jaxdeckLive.reveal;
  const width = Number(reveal.getConfig().width), height = Number(reveal.getConfig().height);
  const section = reveal.getCurrentSlide();
  const scrolled = [];
  const boxes = [...section.querySelectorAll('*')];
  for (let n = section; n && n !== document.documentElement; n = n.parentElement) boxes.push(n);
  for (const n of boxes) if (n.scrollTop || n.scrollLeft) scrolled.push([n, n.scrollTop, n.scrollLeft]);
  for (const [n] of scrolled) { n.scrollTop = 0; n.scrollLeft = 0; }
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const scale = reveal.getScale() || 1;
  const skip = (el) => el.closest('aside.notes, .jd-notes-cells');
  // what can be seen: text, pictures, widgets' controls and drawn borders (a box's empty padding is not)
  let bottom = 0, right = 0;
  const seen = (node, rects) => {
    const holder = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    if (!holder || skip(holder) || holder.closest('[hidden]')) return;
    const style = getComputedStyle(holder);
    if (style.visibility === 'hidden' || holder.offsetParent === null && style.position !== 'fixed') return;
    for (const r of rects) {
      if (r.width === 0 && r.height === 0) continue;
      // what a box inside the slide clips (an editor's scroller, KaTeX's glyphs) is not on the slide
      let b = r.bottom, rt = r.right;
      for (let a = holder === node ? holder.parentElement : holder; a && a !== section; a = a.parentElement) {
        const o = getComputedStyle(a), ar = a.getBoundingClientRect();
        if (o.overflowY !== 'visible') b = Math.min(b, ar.bottom);
        if (o.overflowX !== 'visible') rt = Math.min(rt, ar.right);
      }
      bottom = Math.max(bottom, (b - frame.top) / scale);
      if (!holder.closest('pre, .cm-scroller')) right = Math.max(right, (rt - frame.left) / scale);
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
    if (el.ownerSVGElement) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none') continue;
    const drawn = el.matches('img, svg, canvas, video, iframe, input, select, button, hr, .widget-slider')
      || parseFloat(style.borderBottomWidth) > 0 && style.borderBottomStyle !== 'none';
    if (drawn) seen(el, [el.getBoundingClientRect()]);
  }
  const wide = [];
  for (const box of section.querySelectorAll('.cm-scroller, .jp-OutputArea-output pre')) {
    if (skip(box) || box.offsetParent === null) continue;
    const over = box.scrollWidth - box.clientWidth;
    if (over > 2) {
      const lines = box.innerText.split('\n');
      const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
      wide.push([Math.round(over), longest.trim().slice(0, 40)]);
    }
  }
  // what the audience sees ends at the frame, or sooner where the slide (or the stack around it)
  // clips its own content: a slide that scrolls shows its first screenful only
  let shownBottom = height, shownRight = width;
  for (let n = section; n && n !== reveal.getSlidesElement(); n = n.parentElement) {
    const o = getComputedStyle(n), r = n.getBoundingClientRect();
    if (o.overflowY !== 'visible') shownBottom = Math.min(shownBottom, (r.top - frame.top) / scale + n.clientTop + n.clientHeight);
    if (o.overflowX !== 'visible') shownRight = Math.min(shownRight, (r.left - frame.left) / scale + n.clientLeft + n.clientWidth);
  }
  for (const [n, top, left] of scrolled) { n.scrollTop = top; n.scrollLeft = left; }
  return { bottom: Math.round(bottom - shownBottom), right: Math.round(right - shownRight), wide, width, height };
}
