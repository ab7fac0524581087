"""The Jupyter contents manager that opens a Markdown deck as its slideshow notebook.

Used by ``jaxdeck present`` (``ServerApp.contents_manager_class``). For a deck
(``DECKS_DIR/NAME.md``, README.md excepted) ``get`` returns the notebook jaxdeck
derives from it (cells split at ``---``/``--``/``. . .``/``|||``/``Note:``, RISE
``slideshow`` metadata set, see :mod:`jaxdeck.read.structure`) with the outputs of the last
build (``BUILD_DIR/notebooks/NAME.ipynb``) put back into the code cells whose source
is unchanged, so demos that are not re-run still show their result.

``save`` is jupytext's: the notebook is written with plain ``jupytext.writes``, in the
deck's own format (jupytext Markdown, MyST...) and with the repository's jupytext
configuration (:func:`jaxdeck.read.source.write_back`, the same the round-trip check uses).
The derived metadata is dropped by the filters the notebook carries, the split cells keep
the blank lines between them (``lines_to_next_cell``), and the header keeps what it holds
(the kernel the live talk runs and jupytext's version line are the file's, not the
session's), so the deck on disk changes only where a cell was edited. Outputs are never
written into the Markdown. :mod:`jaxdeck.live.saving` keeps the rest as the file has it (a
save with no edit leaves it alone; its line endings, final newline and header lines) and
writes every file as a new one renamed over the old, never truncated in place.

The served cells are cut into the static deck's slides (:mod:`jaxdeck.live.pieces`: a MyST
cell at its breaks, a deck without markers where its last HTML build's auto-fit cut it) and
glued back on save.

MyST tutorial decks: Markdown cells with MyST are served as JupyterLab renders them
(:func:`show_myst`, roles as code, admonitions as HTML boxes styled by ``myst.css``) and
Jupyter Book tags become RISE/JupyterLab metadata (:func:`show_tags`: ``remove-cell`` is
``skip``, hidden inputs/outputs are ``source_hidden``/``outputs_hidden``). Both record what
they replaced in the cell's ``metadata.jaxdeck``; a save puts it back, merging any edit of
the presenter's into the cell's own MyST text line by line.

This module runs inside the Jupyter server only; like all of jaxdeck it never imports JAX.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path, PurePosixPath


import nbformat
from jupyter_server.files.handlers import FilesHandler
from jupytext import TextFileContentsManager
from tornado.web import HTTPError
from traitlets import Unicode, default

from jaxdeck.html.assets import DEFAULT_THEME, OWN_THEMES, THEMES, is_theme_file, own_sheets
from jaxdeck import trust
from jaxdeck.atomic import sweep
from jaxdeck.read import deck_to_notebook
from jaxdeck.decks import NOT_DECKS, Outputs
from jaxdeck.errors import DeckError
from jaxdeck.html.layout import byline, deck_marks, provenance_line, static_outputs
from jaxdeck.html.fit_record import read_blocks, read_cuts
from jaxdeck.live import stash
from jaxdeck.live.pieces import cut_view, join_view
from jaxdeck.live.saving import UnsafeLink, as_written, replacing_file
from jaxdeck.live.myst_view import restore_myst, restore_tags, show_myst, show_tags
from jaxdeck.live.spellings_view import page_url, restore_spellings, server_url, show_spellings
from jaxdeck.read.source import write_back
from jaxdeck import markers
from jaxdeck.read.structure import NOTES
from jaxdeck.options import DeckOptions
from jaxdeck.records import BuildRecord, cell_info

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def merge_outputs(nb: nbformat.NotebookNode, built: nbformat.NotebookNode) -> int:
    """Copy outputs from ``built`` into the code cells of ``nb`` with the same source.

    Cells are matched in order, so a deck whose code changed since the build keeps
    the outputs of its unchanged cells only. Returns how many cells got outputs.
    """
    done = 0
    candidates = [c for c in built.cells if c.cell_type == "code"]
    position = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for index in range(position, len(candidates)):
            if candidates[index].source == cell.source:
                cell.outputs = candidates[index].get("outputs", [])
                cell.execution_count = candidates[index].get("execution_count")
                position = index + 1
                done += 1
                break
    return done


def hide_markers(nb: nbformat.NotebookNode) -> None:
    """Take the marker lines (``---``, ``--``, ``. . .``, ``|||``) and ``Note:`` out of the cells RISE shows;
    :func:`restore_markers` puts the exact text back before saving."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            markers.hide(cell, notes=cell_info(cell).get("slide_type") == NOTES)


#: where :func:`show_myst` keeps a MyST cell's own source (in ``metadata.jaxdeck``)
LIVE_KEY = "jaxdeck_live"
#: the chalkboard's script under the server's static files (``jaxdeck present`` adds the
#: reveal.js-plugins package to them): beside it, its stylesheet and its pictures, as in the static deck
CHALKBOARD_SCRIPT = "static/chalkboard/plugin.js"


def live_view(nb: nbformat.NotebookNode, built: nbformat.NotebookNode | None, deck: str = "") -> None:
    """What RISE needs to look like the static deck, from the deck's options and the last build.

    reveal.js geometry and behaviour go into ``metadata.rise`` for the keys the deck does not
    set itself (recorded, so that :func:`drop_live_view` takes exactly them out on save); the
    title slide's byline and provenance markup go into ``metadata.jaxdeck_live``. The header's footer
    and logo are RISE's ``footer`` (its overlay over every slide), the static deck's markup.
    """
    options = DeckOptions.of(nb)
    config = options.reveal_config()
    defaults = {"width": str(config["width"]), "height": str(config["height"]), "margin": config["margin"],
                "minScale": 0.2, "maxScale": 2.0,  # reveal.js's own; RISE never shrinks a slide otherwise
                "center": config["center"], "transition": config["transition"],
                "slideNumber": config["slideNumber"], "controls": True, "progress": True,
                "scroll": True, "help": True, "auto_select": "code", "start_slideshow_at": "beginning",
                # RISE's own chalkboard stays off (RISE bundles its script away from its pictures, which
                # 404): the extension (tools.ts) loads the static deck's, with search, zoom and the menu
                "enable_chalkboard": False}
    if options.footer or options.logo:
        logo = page_url(deck, options.logo) if options.logo and "://" not in options.logo else options.logo
        defaults["footer"] = deck_marks(options.footer, logo)
    theme = options.theme or DEFAULT_THEME
    if theme not in OWN_THEMES and not is_theme_file(theme):
        defaults["theme"] = theme
    rise = nb.metadata.setdefault("rise", {})
    added = [key for key in defaults if key not in rise]
    for key in added:
        rise[key] = defaults[key]
    provenance = (BuildRecord.of(built).provenance or {}) if built else {}
    nb.metadata[LIVE_KEY] = {"rise_added": added, "theme": theme,
                             "title_html": byline(options) + provenance_line(provenance)}
    if options.tools:  # what the extension's tools.ts needs to add them
        nb.metadata[LIVE_KEY]["tools"] = {"chalkboard": {"script": server_url(deck, CHALKBOARD_SCRIPT),
                                                         "storage": f"jaxdeck-chalkboard-live:{deck}"}}


def drop_live_view(nb: dict) -> None:
    """Undo :func:`live_view` on the JSON model a save receives."""
    metadata = nb.get("metadata", {})
    added = (metadata.pop(LIVE_KEY, None) or {}).get("rise_added", [])
    rise = metadata.get("rise")
    if isinstance(rise, dict):
        for key in added:
            rise.pop(key, None)
        if not rise:
            metadata.pop("rise")


#: notebook metadata the live kernel sets (JupyterLab writes the running kernel's) that a save gives back
KERNEL_KEYS = ("kernelspec", "language_info")


def restore_kernel_metadata(nb: dict) -> None:
    """Put back the deck's own ``kernelspec``/``language_info``, or none (on the JSON model a save receives).

    A MyST header's ``kernelspec`` is written as the deck had it, and a kernel's
    ``language_info`` never turns ``{code-cell}`` into ``{code-cell} ipython3``.
    """
    metadata = nb.get("metadata", {})
    kept = (metadata.get(LIVE_KEY) or {}).get("kernel_metadata")
    if kept is None:
        return
    for key in KERNEL_KEYS:
        if key in kept:
            metadata[key] = kept[key]
        else:
            metadata.pop(key, None)


def live_css(theme: str, folder: Path | None = None) -> str:
    """The stylesheet RISE asks for beside a deck: the deck's theme (a theme file after projector's,
    read from the deck's ``folder``), the live-only rules, then
    MyST's (admonition boxes, roles) for the cells :func:`show_myst` rewrote and the fit's
    (``fit.css``: the tall blocks :mod:`jaxdeck.live.pieces` marks)."""
    static = THEMES / "jaxdeck" / "static"
    parts = []
    if theme in OWN_THEMES or is_theme_file(theme):
        parts.extend((static / f"{name}.css").read_text(encoding="utf-8") for name in own_sheets(theme))
    if is_theme_file(theme) and folder is not None and (folder / theme).is_file():
        parts.append((folder / theme).read_text(encoding="utf-8", errors="replace"))
    parts.append((static / "live.css").read_text(encoding="utf-8"))
    # MyST's boxes and roles; blocks a fit made smaller or cut; the deck spellings (.smaller, footer, logo)
    for extra in ("myst.css", "fit.css", "spellings.css"):
        if (static / extra).is_file():
            parts.append((static / extra).read_text(encoding="utf-8"))
    return "\n".join(parts)


def restore_markers(nb: dict) -> None:
    """Put back what :func:`hide_markers` took out (on the JSON model a save receives)."""
    for cell in nb.get("cells", []):
        markers.restore(cell)


class DeckContentsManager(TextFileContentsManager):
    """jupytext's contents manager, with jaxdeck's slide structure and pre-baked outputs."""

    decks_dir = Unicode("slides", config=True, help="folder of the decks, relative to the root dir")
    build_dir = Unicode("build", config=True, help="build folder whose notebooks/ hold the last outputs")
    trust_dir = Unicode("", config=True, help="the presenter's store of signatures (jaxdeck.trust): a build's "
                        "outputs signed there are shown as built, others sanitised; empty: none trusted")

    def is_deck(self, path: str) -> bool:
        p = PurePosixPath(path.strip("/"))
        return (p.suffix.lower() in (".md", ".markdown") and p.name not in NOT_DECKS
                and str(p.parent) == str(PurePosixPath(self.decks_dir.strip("/") or ".")))

    @default("files_handler_class")
    def _files_through_get(self):
        """/files/ through :meth:`get`, so that RISE's per-deck stylesheet can be served."""
        return FilesHandler

    @default("files_handler_params")
    def _files_params(self):
        return {"path": self.root_dir}

    def deck_stylesheet(self, path: str) -> dict | None:
        """``DECKS/NAME.css`` for a deck ``DECKS/NAME.md``: its theme, then any NAME.css of the user's."""
        p = PurePosixPath(path.strip("/"))
        if p.suffix != ".css" or str(p.parent) != str(PurePosixPath(self.decks_dir.strip("/") or ".")):
            return None
        deck = next((p.with_suffix(s) for s in (".md", ".markdown") if self.is_deck(str(p.with_suffix(s)))
                     and Path(self._get_os_path(str(p.with_suffix(s)))).is_file()), None)
        if p.name == "rise.css":
            own = ""
        elif deck is None:
            return None
        else:
            try:
                theme = DeckOptions.of(deck_to_notebook(Path(self._get_os_path(str(deck))),
                                                        build=Path(self.root_dir) / self.build_dir)).theme
            except DeckError:
                theme = None
            own = live_css(theme or DEFAULT_THEME, Path(self._get_os_path(str(deck))).parent)
        os_path = Path(self._get_os_path(str(p)))
        if os_path.is_file():
            own += "\n" + os_path.read_text(encoding="utf-8", errors="replace")
        return {"name": p.name, "path": str(p), "type": "file", "format": "text", "mimetype": "text/css",
                "content": own, "writable": False, "created": None, "last_modified": None, "size": len(own)}

    def deck_notebook(self, path: str) -> nbformat.NotebookNode:
        os_path = Path(self._get_os_path(path.strip("/")))
        try:
            nb = deck_to_notebook(os_path, build=Path(self.root_dir) / self.build_dir)
        except DeckError as err:
            raise HTTPError(400, str(err)) from None
        # the deck's own, before the build's and the live kernel's replace them (put back on save)
        header_kernel = {key: nb.metadata[key] for key in KERNEL_KEYS if key in nb.metadata}
        built = None
        built_path = Path(self.root_dir) / self.build_dir / "notebooks" / f"{os_path.stem}.ipynb"
        if built_path.is_file():
            try:
                built = nbformat.read(built_path, as_version=4)
            except Exception as err:  # a broken build artefact must not stop the talk
                self.log.warning("jaxdeck: cannot read %s (%s); no pre-baked outputs", built_path, err)
            else:
                count = merge_outputs(nb, built)
                # outputs the presenter's own build made (signed by it): shown as built (JupyterLab
                # sanitises untrusted outputs, which turns a chart into its text); any other's, from
                # --frozen or a build/ copied from elsewhere, sanitised: no foreign script in this page.
                # A widget's model lives only in the kernel that made it: its static view until re-run
                ours = bool(self.trust_dir) and trust.signed(built, self.trust_dir)
                if not ours:
                    self.log.warning("jaxdeck: %s was not built here: its outputs are shown sanitised", built_path)
                for cell in nb.cells:
                    if cell.cell_type == "code" and cell.get("outputs"):
                        cell.metadata["trusted"] = ours
                        static_outputs(cell)
                self.log.info("jaxdeck: %s: outputs of %d cells from %s", path, count, built_path)
                for key in ("kernelspec", "language_info"):
                    if key in built.metadata:
                        nb.metadata[key] = built.metadata[key]
        html = Outputs(os_path, Path(self.root_dir) / self.build_dir).html
        cut_view(nb, read_cuts(html), read_blocks(html))
        hide_markers(nb)
        show_myst(nb)
        show_spellings(nb, path)
        show_tags(nb)
        live_view(nb, built, path)
        nb.metadata[LIVE_KEY]["kernel_metadata"] = header_kernel
        nb.metadata.setdefault("kernelspec", dict(KERNELSPEC))
        if nb.metadata["kernelspec"].get("name") != "python3":
            # the build's own kernel name (e.g. 'jaxdeck') is not installed in Jupyter:
            # the live kernel is this environment's python3, with the same interpreter.
            nb.metadata["kernelspec"] = dict(KERNELSPEC)
        return nb

    def get(self, path, content=True, type=None, format=None, **kwargs):
        if type in (None, "file"):
            sheet = self.deck_stylesheet(path)
            if sheet is not None:
                return sheet
        model = super().get(path, content=content, type=type, format=format, **kwargs)
        if content and model.get("type") == "notebook" and self.is_deck(path):
            model["content"] = self.deck_notebook(path)
        return model

    def save(self, model, path=""):
        if model.get("type") == "notebook" and model.get("content") is not None and self.is_deck(path):
            restore_tags(model["content"])
            restore_myst(model["content"])
            restore_spellings(model["content"])
            restore_markers(model["content"])
            join_view(model["content"])
            restore_kernel_metadata(model["content"])
            drop_live_view(model["content"])
            # written as jupytext's contents manager writes a text notebook, in the deck's own format,
            # and then in the deck's own spelling, or not at all when nothing was edited
            os_path = Path(self._get_os_path(path.strip("/")))
            if os_path.parent.resolve() != Path(self.root_dir).resolve():  # slides/, not the whole repository
                sweep(os_path.parent)  # what a save cut short left: a new deck never renamed into place
            written = as_written(write_back(nbformat.from_dict(model["content"]), os_path), os_path)
            if written is None:
                self.log.info("jaxdeck: %s: saved unchanged, the file left as it is", path)
                return self.get(path, content=False)
            model = {**model, "type": "file", "format": "text", "content": written.decode("utf-8")}
        return super().save(model, path)

    @contextmanager
    def atomic_writing(self, os_path, *args, **kwargs):
        """Every write a new file renamed over the old one (:func:`jaxdeck.live.saving.replacing_file`),
        never Jupyter's copy aside and rewrite in place, which a crash leaves truncated."""
        kwargs.pop("log", None)
        try:
            with self.perm_to_403(os_path), replacing_file(os_path, *args, root=self.root_dir, **kwargs) as handle:
                yield handle
        except UnsafeLink as err:  # a link another user may have put in place of the file: never written through
            raise HTTPError(403, str(err)) from None
