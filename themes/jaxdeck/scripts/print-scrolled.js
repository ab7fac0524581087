// jaxdeck pdf: a {.scrollable} slide on paper as the audience first sees it, cut at the slide's bottom
// with a line that says the rest is in the handout; what runs past that bottom (an output, a long
// code cell, the text) is kept whole in a .jd-full block that scripts/handout.js prints beneath the
// slide's notes, as it prints the outputs the auto-fit cut.
// Called with [width, height] (the slide's size); returns the numbers of the pages it cut.
([width, height]) => {
  const FOOTER_BAND = 0.07;  // of the slide's height
  const cut = [];
  // the band the footer and logo take at the page's bottom (scripts/print-marks.js): the cut is above it
  const marked = document.querySelector('.reveal > .jd-footer, .reveal > .jd-logo');
  const shown = marked ? Math.round(height * (1 - FOOTER_BAND)) : height;
  document.querySelectorAll('.reveal .slides .pdf-page > section.scrollable').forEach(section => {
    const index = [...document.querySelectorAll('.reveal .slides .pdf-page')].indexOf(section.parentElement);
    section.style.setProperty('height', `${shown}px`, 'important');
    section.style.setProperty('overflow', 'hidden', 'important');
    const top = section.getBoundingClientRect().top;
    const room = shown - (parseFloat(getComputedStyle(section).paddingBottom) || 0);
    const below = el => el.getBoundingClientRect().bottom - top > room + 1;
    if (section.scrollHeight <= shown + 1 && !below(section)) return;
    const keep = (label, nodes) => {
      const full = document.createElement('div');
      full.className = 'jd-full';
      full.hidden = true;
      full.dataset.jdFull = label;
      full.append(...nodes.map(node => node.cloneNode(true)));
      section.appendChild(full);
    };
    const cells = [...section.querySelectorAll('.jp-Cell')].filter(cell => !cell.closest('aside.notes'));
    let kept = 0;
    for (const cell of cells.filter(below)) {
      const input = cell.querySelector('.jp-InputArea pre');
      if (input && below(input)) { keep('Full code', [input]); kept++; }
      for (const output of cell.querySelectorAll('.jp-OutputArea-child')) {
        if (!below(output)) continue;
        const shown = [...output.querySelectorAll(':scope > .jp-OutputArea-output')];
        if (shown.length) { keep('Full output', shown); kept++; }
      }
      if (cell.classList.contains('jp-MarkdownCell')) {
        keep('The rest of the slide', [...cell.querySelectorAll('.jp-RenderedMarkdown, .jp-RenderedHTMLCommon')].slice(0, 1));
        kept++;
      }
    }
    if (!kept) keep('The rest of the slide', [...section.children].filter(el => !el.matches('aside.notes, .jd-full')));
    const more = document.createElement('div');
    more.className = 'jd-continued';
    more.textContent = '… continued in the handout (this slide scrolls in the talk)';
    section.appendChild(more);
    cut.push(index + 1);
  });
  return cut;
}
