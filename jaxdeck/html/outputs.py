"""How a code cell's outputs are drawn on a slide, and what of them waits for the handout.

An export preprocessor (:class:`SlideOutputs`, one of :data:`jaxdeck.html.layout.PREPROCESSORS`)
leaves in each output of the copy it renders an ``output.jd`` record that the template
(``themes/jaxdeck/index.html.j2``) reads:

- an error shows as ``%xmode minimal`` would (its type and message); the whole traceback is
  kept for the handout (``full``), which prints it under the slide's notes;
- a text output that a fit cut (``metadata.jaxdeck.fit.lines``, :mod:`jaxdeck.html.fit_tall`)
  shows its first lines and "… N more lines", the whole text again kept for the handout;
- a rich output a fit scaled carries its zoom, and one still too tall at the floor the height
  of it the slide shows (``clip``), the whole output again kept for the handout.

The cell itself gets the fit's type scale and side-by-side layout as a class and a style
(``jd.fit_class``, ``jd.fit_style``; ``themes/jaxdeck/static/fit.css`` draws them). The same
record is what the live slideshow applies (:mod:`jaxdeck.live.pieces`).
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor

from jaxdeck.records import cell_info

#: the classes fit.css styles: any fit, and code beside its outputs
FIT_CLASS, BESIDE_CLASS = "jd-fit", "jd-fit-beside"


def text_of(output) -> str | None:
    """The text a text output shows (a stream, or a result with text only), None for a rich one."""
    if output.get("output_type") == "stream":
        return output.get("text", "")
    data = output.get("data") or {}
    if output.get("output_type") in ("execute_result", "display_data") and set(data) <= {"text/plain"}:
        return data.get("text/plain", "")
    return None


def lines_of(text: str) -> list[str]:
    """A text output's lines as the page counts them (a last newline ends the last line)."""
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def minimal_error(output) -> str:
    """An error as ``%xmode minimal`` shows it: ``Name: message``."""
    name, value = output.get("ename", "Error"), output.get("evalue", "")
    return f"{name}: {value}" if value else name


def fit_style(fit: dict) -> tuple[str, str]:
    """The cell's class and style for a fit record (empty when it has none)."""
    scale, output_scale = float(fit.get("scale", 1)), float(fit.get("output_scale", fit.get("scale", 1)))
    beside = bool(fit.get("beside"))
    if scale >= 1 and output_scale >= 1 and not beside:
        return "", ""
    classes = FIT_CLASS + (f" {BESIDE_CLASS}" if beside else "")
    return classes, f"--jd-fit-scale: {scale:g}; --jd-fit-output-scale: {output_scale:g}"


class SlideOutputs(Preprocessor):
    """Per code cell: the fit's class and style; per output: what the slide shows of it (``output.jd``)."""

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            fit = cell_info(cell).get("fit") or {}
            jd = cell.metadata.setdefault("jd", {})
            jd["fit_class"], jd["fit_style"] = fit_style(fit)
            if cell.cell_type != "code":
                continue
            keep = {int(k): int(v) for k, v in (fit.get("lines") or {}).items()}
            zoom = {int(k): float(v) for k, v in (fit.get("zoom") or {}).items()}
            clip = {int(k): int(v) for k, v in (fit.get("clip") or {}).items()}
            for index, output in enumerate(cell.get("outputs", [])):
                view = {"index": index}
                text = text_of(output)
                if output.get("output_type") == "error":
                    text = view["minimal"] = minimal_error(output)
                    view["full"] = True
                if text is not None and index in keep:
                    lines = lines_of(text)
                    if keep[index] < len(lines):
                        view["shown"] = "\n".join(lines[:keep[index]])
                        view["more"] = len(lines) - keep[index]
                        view["full"] = True
                if index in zoom and zoom[index] < 1:
                    view["zoom"] = zoom[index]
                if index in clip:
                    view["clip"] = clip[index]
                output["jd"] = view
        return nb, resources
