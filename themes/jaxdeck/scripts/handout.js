// jaxdeck pdf: turn the laid-out print view into the handout: the title page first, then per slide
// its heading, the slide itself (live text, vector) shrunk to its place on the paper, and its notes.
// Called with {front, labels, notes, layout}: HTML from the macros of themes/jaxdeck/handout.html.j2
// (the title page, then one heading and one notes block per slide) and the layout
// (jaxdeck.pdf.layout.HandoutLayout.page: slides a page, and the height of a page inside its margins);
// returns the number of slides.
({front, labels, notes, layout}) => {
  const pages = [...document.querySelectorAll('.reveal .slides .pdf-page')];
  const widths = pages.map(page => page.offsetWidth);  // as the slides PDF printed them, before the handout's styles
  const root = document.documentElement;
  root.classList.add('jd-handout', `jd-per-page-${layout.perPage}`);
  root.style.setProperty('--jd-page-height', layout.height);
  const frames = [];
  pages.forEach((page, i) => {
    // one block per slide, its heading, picture and notes, that the handout's CSS lays out
    const sheet = document.createElement('div');
    sheet.className = 'jd-sheet';
    const head = document.createElement('div');
    head.className = 'jd-slide-head';
    head.innerHTML = labels[i] || '';
    const body = document.createElement('div');
    body.className = 'jd-notes';
    body.innerHTML = notes[i] || '';
    // what the slide shows in part (a long output cut at a line, an error's traceback): all of it here
    for (const full of page.querySelectorAll('.jd-full')) {
      const block = document.createElement('div');
      block.className = 'jd-full-text';
      const label = document.createElement('p');
      label.className = 'jd-full-label';
      label.textContent = full.dataset.jdFull || 'Full output';
      block.append(label, ...[...full.childNodes].map(n => n.cloneNode(true)));
      body.appendChild(block);
      sheet.classList.add('jd-long');  // runs over a page of itself: it starts where the page has room
    }
    const frame = document.createElement('div');
    frame.className = 'jd-frame';
    page.parentNode.insertBefore(sheet, page);
    frame.appendChild(page);
    // three a page: the slide first, its heading and notes beside it (the sheet's CSS floats the slide)
    if (layout.perPage === 3) sheet.append(frame, head, body); else sheet.append(head, frame, body);
    head.classList.add('jd-break');
    frames.push(frame);
  });
  // each slide shrunk to the width the layout gives its frame (jaxdeck.pdf.layout.HandoutLayout.page);
  // --jd-zoom tells the handout's CSS how far, so that the slide's small marks stay readable
  root.style.setProperty('--jd-frame-width', layout.frameWidth);
  frames.forEach((frame, i) => {
    const page = frame.firstElementChild;
    const zoom = (frame.clientWidth / widths[i]).toFixed(4);
    page.style.setProperty('width', `${widths[i]}px`);
    page.style.setProperty('zoom', zoom);
    frame.style.setProperty('--jd-zoom', zoom);
  });
  const title = document.createElement('div');
  title.className = 'jd-title-page';
  title.innerHTML = front;
  document.querySelector('.reveal .slides').prepend(title);
  return pages.length;
}
