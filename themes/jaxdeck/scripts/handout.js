// jaxdeck pdf: turn the laid-out print view into the handout: the title page first, then per slide
// its heading, the slide itself (live text, vector) shrunk to the paper's width, and its notes.
// Called with {front, labels, notes}: HTML from the macros of themes/jaxdeck/handout.html.j2
// (the title page, then one heading and one notes block per slide); returns the number of slides.
({front, labels, notes}) => {
  document.documentElement.classList.add('jd-handout');
  const pages = [...document.querySelectorAll('.reveal .slides .pdf-page')];
  pages.forEach((page, i) => {
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
    }
    const frame = document.createElement('div');
    frame.className = 'jd-frame';
    page.parentNode.insertBefore(head, page);
    page.parentNode.insertBefore(frame, page);
    frame.appendChild(page);
    frame.parentNode.insertBefore(body, frame.nextSibling);
    head.classList.add('jd-break');
  });
  const title = document.createElement('div');
  title.className = 'jd-title-page';
  title.innerHTML = front;
  document.querySelector('.reveal .slides').prepend(title);
  return pages.length;
}
