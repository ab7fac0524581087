// jaxdeck rehearse: how far the live slide on show reaches past its [width, height] frame once its
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
  let bottom = 0, right = 0;
  for (const el of [section, ...section.querySelectorAll('*')]) {
    if (skip(el) || el.ownerSVGElement) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // what a box inside the slide clips (an editor's scroller, KaTeX's glyphs) is not on the slide
    let b = r.bottom, rt = r.right;
    for (let a = el.parentElement; a && a !== section; a = a.parentElement) {
      const o = getComputedStyle(a), ar = a.getBoundingClientRect();
      if (o.overflowY !== 'visible') b = Math.min(b, ar.bottom);
      if (o.overflowX !== 'visible') rt = Math.min(rt, ar.right);
    }
    bottom = Math.max(bottom, (b - frame.top) / scale);
    if (!el.closest('pre, .cm-scroller')) right = Math.max(right, (rt - frame.left) / scale);
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
  for (const [n, top, left] of scrolled) { n.scrollTop = top; n.scrollLeft = left; }
  return { bottom: Math.round(bottom - height), right: Math.round(right - width), wide, width, height };
}
