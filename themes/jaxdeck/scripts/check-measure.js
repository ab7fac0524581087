// jaxdeck check: show slide [h, v] and measure how far its content reaches past the [width, height] frame,
// and which code blocks are wider than theirs.
([h, v, width, height]) => {
  Reveal.slide(h, v);
  const section = Reveal.getCurrentSlide();
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const scale = Reveal.getScale() || 1;
  const x = r => (r - frame.left) / scale, y = r => (r - frame.top) / scale;
  let bottom = 0, right = 0;
  const inPre = el => !!el.closest('pre');
  for (const el of [section, ...section.querySelectorAll('*')]) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || el.closest('aside.notes')) continue;
    if (el.ownerSVGElement) continue;  // an SVG's inner shapes are clipped by the SVG itself
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // what an ancestor clips (overflow hidden/auto/scroll, e.g. KaTeX's glyphs) is not on the slide
    let b = r.bottom, rt = r.right;
    for (let a = el.parentElement; a && a !== section.parentElement; a = a.parentElement) {
      const o = getComputedStyle(a);
      const ar = a.getBoundingClientRect();
      if (o.overflowY !== 'visible') b = Math.min(b, ar.bottom);
      if (o.overflowX !== 'visible') rt = Math.min(rt, ar.right);
    }
    bottom = Math.max(bottom, y(b));
    if (!inPre(el)) right = Math.max(right, x(rt));
  }
  const code = [];
  for (const pre of section.querySelectorAll('pre')) {
    if (pre.closest('aside.notes')) continue;
    const r = pre.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const left = x(r.left);
    // a zoomed block (a fit's smaller type) counts its own widths in its own pixels: the room to
    // its right, in slide pixels, is turned into them, and what is wider is turned back
    const zoom = pre.offsetWidth ? (r.width / scale) / pre.offsetWidth : 1;
    const visible = Math.min(pre.clientWidth, (width - left) / zoom);
    const wider = (pre.scrollWidth - visible) * zoom;
    if (wider > 0) {
      const lines = pre.innerText.split('\n');
      const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
      const chars = pre.scrollWidth > 0 ? longest.length * visible / pre.scrollWidth : longest.length;
      const over = lines.filter(l => l.length > chars + 0.5).length;
      code.push([Math.round(wider), over, longest.trim().slice(0, 40)]);
    }
  }
  return {bottom: Math.round(bottom - height), right: Math.round(right - width), code: code};
}
