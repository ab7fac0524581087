// jaxdeck: whether the slide on show contains `text` is `shown` (a page without one counts as not).
([text, shown]) => {
  const present = document.querySelector('.reveal .slides section.present');
  return (!!present && present.textContent.includes(text)) === shown;
}
