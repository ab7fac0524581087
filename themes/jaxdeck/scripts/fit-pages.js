// jaxdeck pdf: shrink every printed slide whose content is larger than its page (never clip it).
// Called with [width, height, margin]; returns [slide number, scale] for each slide it shrank.
([width, height, margin]) => {
  // as on screen: the slide frame sits inside a margin of `margin` (reveal's default 0.04);
  // content larger than the frame is scaled down until it fits (never clipped)
  const base = 1 / (1 + margin);
  const scaled = [];
  document.querySelectorAll('.reveal .slides .pdf-page > section').forEach((section, index) => {
    // zoom, not transform: print fragmentation follows layout, and a transformed slide
    // taller than its page would still be cut at the page's edge
    section.style.removeProperty('zoom');
    // a .scrollable slide is cut at its first view (print-scrolled.js): what it hides is not scaled in
    const h = section.classList.contains('scrollable') ? section.offsetHeight : Math.max(section.scrollHeight, section.offsetHeight);
    const w = Math.max(section.scrollWidth, section.offsetWidth);
    const fit = Math.min(1, height / h, width / w);
    const s = base * fit;
    section.style.setProperty('zoom', s.toFixed(4));
    section.style.setProperty('left', ((width - width * s) / 2 / s).toFixed(2) + 'px', 'important');
    section.style.setProperty('top', ((height * (1 - base) / 2) / s).toFixed(2) + 'px', 'important');
    if (fit < 0.999) scaled.push([index + 1, fit]);
  });
  return scaled;
}
