/* The series site's search: every talk's slides, notes and code, offline (the index is a script, loaded on first use).
   Keyboard first: "/" focuses the box, the arrow keys move through the results, Enter opens one at its slide.
   Results are built as text nodes: nothing a deck says becomes markup here. */
(function () {
  'use strict';
  const form = document.querySelector('form.search');
  if (!form) return;
  const input = form.querySelector('input');
  const list = document.getElementById('search-results');
  const status = document.getElementById('search-status');
  const root = document.body.dataset.root || '';
  const LIMIT = 40, AROUND = 70;
  const FIELDS = [['title', 'Title', 4], ['text', 'Slide', 3], ['notes', 'Notes', 2], ['code', 'Code', 1]];
  let loading = null;

  function load() {
    if (window.JAXDECK_SEARCH) return Promise.resolve(window.JAXDECK_SEARCH);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const tag = document.createElement('script');
        tag.src = form.dataset.index;
        tag.onload = () => resolve(window.JAXDECK_SEARCH || []);
        tag.onerror = () => reject(new Error('no search index'));
        document.head.appendChild(tag);
      });
    }
    return loading;
  }

  function words(query) {
    return query.toLowerCase().split(/\s+/).filter(Boolean);
  }

  function find(index, query) {
    const wanted = words(query);
    if (!wanted.length) return [];
    const found = [];
    for (const talk of index) {
      for (const slide of talk.slides) {
        const lower = FIELDS.map(([key]) => (slide[key] || '').toLowerCase());
        const all = lower.join('\n');
        if (!wanted.every(w => all.includes(w))) continue;
        let score = 0, best = null;
        FIELDS.forEach(([key, label, weight], k) => {
          const hits = wanted.filter(w => lower[k].includes(w)).length;
          score += hits * weight;
          if (hits && !best && key !== 'title') best = [key, label];
        });
        found.push({talk, slide, score, field: best || ['title', 'Title']});
      }
    }
    return found.sort((a, b) => b.score - a.score).slice(0, LIMIT);
  }

  function snippet(text, wanted) {
    const lower = text.toLowerCase();
    const at = Math.max(0, Math.min(...wanted.map(w => lower.indexOf(w)).filter(k => k >= 0)));
    let start = Math.max(0, at - AROUND), end = Math.min(text.length, at + AROUND * 2);
    if (start) { const space = text.indexOf(' ', start); if (space >= 0 && space < at) start = space + 1; }  // whole words
    if (end < text.length) { const space = text.lastIndexOf(' ', end); if (space > at) end = space; }
    const part = (start ? '… ' : '') + text.slice(start, end).replace(/\s+/g, ' ') + (end < text.length ? ' …' : '');
    const out = document.createDocumentFragment();
    const pattern = new RegExp(wanted.map(w => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
    let last = 0;
    for (const match of part.matchAll(pattern)) {
      out.append(part.slice(last, match.index));
      const mark = document.createElement('mark');
      mark.textContent = match[0];
      out.append(mark);
      last = match.index + match[0].length;
    }
    out.append(part.slice(last));
    return out;
  }

  function show(query, results) {
    list.replaceChildren();
    const wanted = words(query);
    for (const {talk, slide, field} of results) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = root + slide.href;
      const where = document.createElement('span');
      where.className = 'where';
      where.textContent = `${talk.talk} · ${slide.number}. ${slide.title}`;
      const said = document.createElement('span');
      said.className = 'snippet';
      const label = document.createElement('span');
      label.className = 'field';
      label.textContent = field[1];
      said.append(label, snippet(slide[field[0]] || '', wanted));
      link.append(where, said);
      item.append(link);
      list.append(item);
    }
    list.hidden = !wanted.length;
    status.textContent = wanted.length ? `${results.length}${results.length === LIMIT ? '+' : ''} result${results.length === 1 ? '' : 's'} for “${query.trim()}”` : '';
  }

  function search() {
    const query = input.value;
    load().then(index => { if (input.value === query) show(query, find(index, query)); },
                () => { status.textContent = 'The search index is missing: build the site again.'; });
  }

  function links() { return [...list.querySelectorAll('a')]; }

  input.addEventListener('focus', () => { load().catch(() => {}); });
  input.addEventListener('input', search);
  form.addEventListener('submit', event => { event.preventDefault(); const first = links()[0]; if (first) first.click(); });
  form.addEventListener('keydown', event => {
    const all = links();
    const at = all.indexOf(document.activeElement);
    if (event.key === 'ArrowDown' && all.length) {
      event.preventDefault();
      all[Math.min(at + 1, all.length - 1)].focus();
    } else if (event.key === 'ArrowUp' && at >= 0) {
      event.preventDefault();
      (at === 0 ? input : all[at - 1]).focus();
    } else if (event.key === 'Escape') {
      list.hidden = true;
      input.focus();
    }
  });
  document.addEventListener('keydown', event => {
    const typing = event.target.closest && event.target.closest('input, textarea, select, [contenteditable]');
    if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
  document.addEventListener('click', event => { if (!form.contains(event.target)) list.hidden = true; });
  input.addEventListener('focus', () => { if (list.children.length && input.value.trim()) list.hidden = false; });
})();
