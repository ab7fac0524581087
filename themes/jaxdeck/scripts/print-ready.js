// jaxdeck pdf: true once reveal.js has laid out its print view (?print-pdf): one .pdf-page per slide.
() => window.Reveal && document.querySelectorAll('.reveal .slides .pdf-page').length > 0
      && !document.querySelector('.loading-scroll-mode')
