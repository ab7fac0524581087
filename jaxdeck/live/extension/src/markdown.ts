/*
 * One rule for raw HTML, the same as the static deck's (slides/README.md, "Raw HTML and outputs"):
 * the deck's own Markdown is its author's and shows as written, its raw HTML included; outputs show
 * as built only when trusted (the presenter's own build signed them: jaxdeck/trust.py), sanitised
 * otherwise. JupyterLab sanitises every Markdown cell whoever wrote it; on RISE's page, which shows
 * nothing but the deck, the deck's Markdown cells are rendered trusted instead.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { NotebookWidgetFactory } from '@jupyterlab/notebook';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';

const MARKDOWN = 'text/markdown';

/** The notebook factories RISE opens a deck with (a `.md` deck is jupytext's). */
const FACTORIES = ['Notebook', 'Jupytext Notebook'];

/** `model`, trusted: what a Markdown cell's renderer is given (its text, never an output's). */
function trusted(model: IRenderMime.IMimeModel): IRenderMime.IMimeModel {
  return { trusted: true, data: model.data, metadata: model.metadata, setData: options => model.setData(options) };
}

/**
 * Markdown cells rendered as written. Called as the page starts, before RISE opens the deck: its
 * cells take their renderers from the registry given here. The replacing factory is marked unsafe,
 * so JupyterLab never picks it for an untrusted output (whose Markdown then shows as its text);
 * a trusted output is rendered trusted by either.
 */
export function showDeckMarkdownAsWritten(app: JupyterFrontEnd): void {
  const registries = new Set<IRenderMimeRegistry>();
  for (const name of FACTORIES) {
    const factory = app.docRegistry.getWidgetFactory(name) as NotebookWidgetFactory | undefined;
    if (factory?.rendermime) {
      registries.add(factory.rendermime);
    }
  }
  for (const registry of registries) {
    const original = registry.getFactory(MARKDOWN);
    if (!original) {
      continue;
    }
    registry.addFactory(
      {
        safe: false,
        mimeTypes: [MARKDOWN],
        createRenderer: options => {
          const renderer = original.createRenderer(options);
          const render = renderer.renderModel.bind(renderer);
          renderer.renderModel = model => render(trusted(model));
          return renderer;
        }
      },
      registry.getRank(MARKDOWN)
    );
  }
}
