// Where reveal.js's slide number sits on every slide of the deck on this page (the static deck's
// Reveal, or the live slideshow's when `live`). One record per slide: {h, v, downArrow, problems},
// the problems in words: under reveal.js's arrows, the header's footer or logo or RISE's "?",
// underlined, running out of the window, covered where a click would land, or not shown at all.
(live) => {
  const reveal = live ? window.jaxdeckLive.reveal : window.Reveal;
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const shown = e => {
    const style = getComputedStyle(e);
    return style.display !== 'none' && style.visibility !== 'hidden' && e.getBoundingClientRect().width > 0;
  };
  // the controls' box: all four arrows where reveal.js puts them, those it shows on this slide or not
  const arrows = () => {
    const boxes = [...document.querySelectorAll('.reveal .controls button')]
      .filter(b => getComputedStyle(b).display !== 'none').map(b => b.getBoundingClientRect());
    return boxes.length ? {left: Math.min(...boxes.map(b => b.left)), top: Math.min(...boxes.map(b => b.top)),
                           right: Math.max(...boxes.map(b => b.right)), bottom: Math.max(...boxes.map(b => b.bottom))} : null;
  };
  const others = {footer: '.jd-footer', logo: '.jd-logo', help: '#help-b'};
  const records = [];
  reveal.getHorizontalSlides().forEach((stack, h) => {
    const count = Math.max(1, stack.querySelectorAll(':scope > section').length);
    for (let v = 0; v < count; v++) {
      reveal.slide(h, v);
      const number = document.querySelector('.reveal .slide-number');
      const record = {h, v, downArrow: Boolean(document.querySelector('.reveal .controls .navigate-down.enabled')),
                      problems: []};
      records.push(record);
      if (!number || !shown(number)) {
        record.problems.push('not shown');
        continue;
      }
      const box = number.getBoundingClientRect();
      const text = (number.querySelector('a') || number).getBoundingClientRect();
      const controls = arrows();
      if (controls && meets(box, controls)) record.problems.push('under the arrows');
      for (const [name, selector] of Object.entries(others)) {
        if ([...document.querySelectorAll(selector)].some(e => shown(e) && meets(box, e.getBoundingClientRect()))) {
          record.problems.push(`under the ${name}`);
        }
      }
      if ([number, ...number.querySelectorAll('*')].some(e => getComputedStyle(e).textDecorationLine.includes('underline'))) {
        record.problems.push('underlined');
      }
      if (text.left < 0 || text.top < 0 || text.right > innerWidth || text.bottom > innerHeight) {
        record.problems.push('out of the window');
      }
      const hit = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
      if (!hit || !number.contains(hit)) record.problems.push('covered');
    }
  });
  return records;
}
