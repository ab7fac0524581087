// jaxdeck rehearse: the slide on show — its number, title, fragments left, and the code cells
// Shift+Enter runs there (as the live slideshow picks them: no listings, no claim checks), each
// with whether it is visible yet and how many claim checks follow it.
() => {
  const live = window.jaxdeckLive, reveal = live.reveal;
  const slide = reveal.getCurrentSlide();
  const cells = live.panel.content.widgets;
  const slideOf = (node) => node.closest('section');
  const tags = (cell) => cell.model.getMetadata('tags') || [];
  const isCheck = (cell) => cell.model.type === 'code' && tags(cell).includes('check');
  const hiddenFragment = (node) => !!node.closest('.fragment:not(.visible)');
  const runnable = [];
  cells.forEach((cell, index) => {
    if (cell.model.type !== 'code' || cell.model.getMetadata('highlight') || isCheck(cell)) return;
    if (slideOf(cell.node) !== slide) return;
    let checks = 0;
    for (let i = index + 1; i < cells.length; i++) {
      if (isCheck(cells[i])) checks++;
      else if (cells[i].model.type === 'code') break;
    }
    const where = cell.model.getMetadata('jaxdeck') || {};
    runnable.push({ index, line: where.line || null, source: cell.model.sharedModel.getSource(),
                    visible: !hiddenFragment(cell.node), checks, tags: tags(cell) });
  });
  // the words on the slide itself (its Markdown, not its notes): what a presenter without notes says
  let text = '';
  for (const md of slide.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')) {
    if (!md.closest('aside.notes, .jd-notes-cells') && md.closest('section') === slide) text += ' ' + md.innerText;
  }
  const heading = slide.querySelector('h1, h2, h3');
  const title = heading ? heading.textContent.replace(/¶/g, '').trim() : '';
  const at = reveal.getIndices();
  const active = cells[live.panel.content.activeCellIndex];
  return {
    number: reveal.getSlidePastCount() + 1, h: at.h, v: at.v || 0, title, text: text.trim(),
    fragmentsLeft: reveal.availableFragments().next,
    last: reveal.getSlidePastCount() + 1 >= reveal.getTotalSlides() && !reveal.availableFragments().next,
    cells: runnable, activeOnSlide: !!active && slideOf(active.node) === slide,
  };
}
