/* The browser side of jaxdeck.html.fit_tall: on every slide that still runs past its bottom
   after the auto-fit's cuts, make its tallest block fit, trying in order what keeps the most
   on the slide at the largest type, and report what it did (the Python side renders that).

   Evaluated by Playwright as one function expression with {floor, step}: `floor` is the
   smallest type scale allowed (the legibility floor), `step` the scale's step. The block is
   the slide's tallest cell; a Markdown one is made smaller down to the floor (a picture alone
   further), a code cell as follows:
     1. long outputs under code that fits: the whole cell a little smaller (down to 0.85),
        then each text output cut at the line where the room ends ("… N more lines") and rich
        outputs (HTML, images) scaled down;
     2. long code: the cell's type smaller, down to `floor`;
     3. code and outputs side by side (each column its own scale, down to `floor`), when the
        code's lines still fit their half of the slide;
     4. at `floor`, outputs cut and scaled as in 1;
     5. the code split: the first lines that fit at `floor` stay, the rest continues on a slide
        of its own (`split`: how many lines stay).
   A cell whose code lines are wider than their frame gets smaller code too, down to the floor.
   The DOM is changed as the template would render each decision (fit.css holds the rules), so
   what is measured here is what the deck will show.

   Returns [{id, index, scale, outputScale, beside, lines: {OUTPUT: KEEP}, zoom: {OUTPUT: Z},
   clip: {OUTPUT: HEIGHT in px, a rich output cut at the floor},
   split, picture (a Markdown cell that is a picture alone), fits}], one per slide it acted on, in Reveal.getSlides() order. */
({floor, step}) => {
  const config = Reveal.getConfig();
  const frame = document.querySelector('.reveal .slides');
  const shown = el => {
    const style = getComputedStyle(el);
    return style.display !== 'none' && style.visibility !== 'hidden';
  };
  // how far the slide's visible content reaches past its room, in slide pixels (as check measures)
  const over = slide => {
    if (slide.classList.contains('scrollable')) return -Infinity;  // it scrolls: nothing to make smaller
    const origin = frame.getBoundingClientRect().top;
    const scale = Reveal.getScale() || 1;
    const room = config.height - (parseFloat(getComputedStyle(slide).paddingBottom) || 0);
    let bottom = 0;
    for (const el of slide.querySelectorAll('*')) {
      if (el.ownerSVGElement || el.closest('aside.notes') || !shown(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      let b = r.bottom + (parseFloat(getComputedStyle(el).marginBottom) || 0) * scale;
      for (let a = el.parentElement; a && a !== slide.parentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowY !== 'visible') b = Math.min(b, a.getBoundingClientRect().bottom);
      }
      bottom = Math.max(bottom, (b - origin) / scale);
    }
    return bottom - room;
  };
  const fits = slide => over(slide) <= 1;
  const height = el => el ? el.getBoundingClientRect().height : 0;
  const cellsOf = (slide, kind) => [...slide.querySelectorAll(`.jp-Cell.${kind}[id^="cell-id="]`)]
    .filter(el => !el.closest('aside.notes') && shown(el));
  const scales = (from, to) => {
    const found = [];
    for (let s = from; s >= to - 1e-9; s -= step) found.push(Math.round(s * 100) / 100);
    return found;
  };
  const MORE = n => `… ${n} more line${n === 1 ? '' : 's'} (all of it in the handout)`;

  // the cell as the template renders a decision
  const setScale = (cell, s, o) => {
    cell.classList.toggle('jd-fit', s < 1 || o < 1 || cell.classList.contains('jd-fit-beside'));
    cell.style.setProperty('--jd-fit-scale', String(s));
    cell.style.setProperty('--jd-fit-output-scale', String(o));
  };
  const outputs = cell => [...cell.querySelectorAll('.jp-OutputArea-child')];
  const textOf = child => child.querySelector(':scope > .jp-RenderedText pre');
  const originals = new Map();
  const keepLines = (child, keep) => {
    const pre = textOf(child);
    if (!originals.has(pre)) originals.set(pre, [pre.innerHTML, pre.textContent.replace(/\n$/, '').split('\n')]);
    const [html, lines] = originals.get(pre);
    pre.parentElement.querySelectorAll(':scope > .jd-more').forEach(e => e.remove());
    if (keep >= lines.length) {
      pre.innerHTML = html;
      return;
    }
    pre.textContent = lines.slice(0, keep).join('\n');
    const more = document.createElement('div');
    more.className = 'jd-more';
    more.textContent = MORE(lines.length - keep);
    pre.after(more);
  };
  const zoom = (child, z) => {
    child.classList.toggle('jd-zoomed', z < 1);
    child.style.setProperty('--jd-zoom', String(z));
  };

  // outputs cut and scaled until the slide fits: the tallest first; false if it cannot
  const trimOutputs = (slide, cell, decision) => {
    const children = outputs(cell).sort((a, b) => height(b) - height(a));
    for (const child of children) {
      if (fits(slide)) return true;
      const pre = textOf(child);
      if (pre) {
        keepLines(child, Infinity);
        const total = originals.get(pre)[1].length;
        let low = 1, high = total;  // the most lines that fit (at least one stays)
        while (low < high) {
          const mid = Math.ceil((low + high) / 2);
          keepLines(child, mid);
          if (fits(slide)) low = mid; else high = mid - 1;
        }
        keepLines(child, low);
        if (low < total) decision.lines[child.dataset.jdOutput] = low;
      } else {
        // a picture may shrink further than text may: text (a table, a sharding diagram) stops at the floor
        const picture = child.querySelector('img, svg, canvas') && !child.querySelector('table, pre');
        for (const z of scales(1 - step, picture ? 0.3 : floor)) {
          zoom(child, z);
          decision.zoom[child.dataset.jdOutput] = z;
          if (fits(slide)) break;
        }
        // still too tall at the floor: cut at the height the room leaves, the rest in the handout
        if (!fits(slide)) {
          const box = clipBox(child);
          let low = 0, high = Math.floor(height(box));
          while (low < high) {
            const mid = Math.ceil((low + high) / 2);
            box.style.maxHeight = `${mid}px`;
            if (fits(slide)) low = mid; else high = mid - 1;
          }
          box.style.maxHeight = `${low}px`;
          decision.clip[child.dataset.jdOutput] = low;
        }
      }
    }
    return fits(slide);
  };
  // a rich output inside a box that cuts it (the template's .jd-clip), with its word under it
  const clipBox = child => {
    let box = child.querySelector(':scope > .jd-clip');
    if (box) return box;
    box = document.createElement('div');
    box.className = 'jd-clip';
    box.append(...child.childNodes);
    const more = document.createElement('div');
    more.className = 'jd-more';
    more.textContent = '… cut here to fit the slide (all of it in the handout)';
    child.append(box, more);
    return box;
  };

  const codeFitsWidth = cell => [...cell.querySelectorAll('.jp-InputArea pre')]
    .every(pre => pre.scrollWidth <= pre.clientWidth + 1);

  const decide = (slide, index) => {
    const pool = [...cellsOf(slide, 'jp-CodeCell'), ...cellsOf(slide, 'jp-MarkdownCell')];
    if (!pool.length) return null;
    const cell = pool.reduce((a, b) => (height(b) > height(a) ? b : a));
    const decision = {id: cell.id.slice('cell-id='.length), index, scale: 1, outputScale: 1, beside: false,
                      lines: {}, zoom: {}, clip: {}, split: null, picture: false, fits: false};
    const input = cell.querySelector('.jp-Cell-inputWrapper');
    const output = cell.querySelector('.jp-Cell-outputWrapper');
    const hasOutputs = outputs(cell).length > 0;
    const done = () => { decision.fits = true; return decision; };
    const tryScales = (from, to, withOutputs) => {
      for (const s of scales(from, to)) {
        setScale(cell, s, withOutputs ? s : decision.outputScale);
        decision.scale = s;
        if (withOutputs) decision.outputScale = s;
        if (fits(slide)) return true;
      }
      return false;
    };
    // is the code alone (outputs hidden) within the room at scale s?
    const codeFits = s => {
      setScale(cell, s, s);
      if (output) output.style.display = 'none';
      const ok = fits(slide);
      if (output) output.style.display = '';
      return ok;
    };
    // Markdown (a long list, a table, a picture): smaller, to the floor; a picture alone further
    if (cell.classList.contains('jp-MarkdownCell')) {
      const picture = Boolean(cell.querySelector('img, svg')) && !cell.textContent.trim();
      decision.picture = picture;
      return tryScales(1 - step, picture ? 0.3 : floor, true) ? done() : decision;
    }
    // 1. outputs are what is long
    if (hasOutputs && codeFits(1)) {
      if (tryScales(1, 0.85, true)) return done();
      setScale(cell, 1, 1);
      decision.scale = decision.outputScale = 1;
      if (trimOutputs(slide, cell, decision)) return done();
      return done_or_split();
    }
    // 2. the code is long: smaller type
    if (tryScales(1 - step, floor, true)) return done();
    // 3. side by side
    if (hasOutputs && input && output) {
      cell.classList.add('jd-fit-beside', 'jd-fit');
      decision.beside = true;
      for (const s of scales(1, floor)) {
        setScale(cell, s, s);
        decision.scale = decision.outputScale = s;
        if (!codeFitsWidth(cell)) continue;
        if (fits(slide)) return done();
      }
      // the code fits beside its outputs at some scale: cut the outputs in their column
      const s = scales(1, floor).find(x => { setScale(cell, x, x); return codeFitsWidth(cell) && codeFits(x); });
      if (s !== undefined) {
        setScale(cell, s, s);
        decision.scale = decision.outputScale = s;
        if (trimOutputs(slide, cell, decision)) return done();
      }
      cell.classList.remove('jd-fit-beside');
      decision.beside = false;
      decision.lines = {};
      decision.zoom = {};
      outputs(cell).forEach(child => { zoom(child, 1); if (textOf(child)) keepLines(child, 1e9); });
    }
    // 4. at the floor, the outputs cut
    setScale(cell, floor, floor);
    decision.scale = decision.outputScale = floor;
    if (codeFits(floor)) {
      if (trimOutputs(slide, cell, decision)) return done();
    }
    return done_or_split();

    // 5. the code split: how many of its lines fit at the floor, its outputs on the next slide
    function done_or_split() {
      const pre = cell.querySelector('.jp-InputArea pre');
      if (!pre || !cell.classList.contains('jp-CodeCell')) return decision;
      setScale(cell, floor, floor);
      decision.scale = decision.outputScale = floor;
      decision.lines = {};
      decision.zoom = {};
      const html = pre.innerHTML;
      const lines = pre.textContent.replace(/\n$/, '').split('\n');
      if (output) output.style.display = 'none';
      let low = 1, high = lines.length - 1;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        pre.textContent = lines.slice(0, mid).join('\n');
        if (fits(slide)) low = mid; else high = mid - 1;
      }
      pre.innerHTML = html;
      if (output) output.style.display = '';
      if (lines.length > 1) decision.split = low;
      return decision;
    }
  };

  // code lines wider than their frame: that cell's code smaller, down to the floor, until they fit
  const narrow = (slide, index, found) => {
    for (const cell of [...cellsOf(slide, 'jp-CodeCell'), ...cellsOf(slide, 'jp-MarkdownCell')]) {
      const wide = () => [...cell.querySelectorAll('.jp-InputArea pre')]
        .some(pre => pre.scrollWidth > pre.clientWidth + 1);
      if (cell.classList.contains('jd-fit-beside') || !wide()) continue;
      const id = cell.id.slice('cell-id='.length);
      let decision = found.find(d => d.id === id);
      if (!decision) {
        const style = getComputedStyle(cell);
        const now = name => parseFloat(style.getPropertyValue(name)) || 1;
        decision = {id, index, scale: now('--jd-fit-scale'), outputScale: now('--jd-fit-output-scale'),
                    beside: false, lines: {}, zoom: {}, clip: {}, split: null, picture: false, fits: true};
        found.push(decision);
      }
      for (const s of scales(decision.scale - step, floor)) {
        setScale(cell, s, decision.outputScale);
        decision.scale = s;
        if (!wide()) break;
      }
      decision.fits = fits(slide) && !wide();
    }
  };

  const found = [];
  const slides = Reveal.getSlides();
  slides.forEach((slide, index) => {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v || 0);
    if (!fits(slide)) {
      const decision = decide(slide, index);
      if (decision) found.push(decision);
    }
    narrow(slide, index, found);
  });
  if (slides.length) Reveal.slide(0, 0);
  return found;
}
