/*
 * The ipywidgets manager imports @jupyterlab/console for its optional IConsoleTracker token.
 * RISE's page shares no @jupyterlab/console, so there the manager fails to load and widgets
 * show as text. This extension bundles the package and offers it to the page's shared scope
 * (package.json, jupyterlab.sharedPackages: bundled): on RISE's page it is the only one, while
 * JupyterLab's page keeps its own, of a version at least as new. Webpack offers only packages
 * the build imports, hence this import.
 */
import { IConsoleTracker } from '@jupyterlab/console';

export const consoleTracker = IConsoleTracker;
