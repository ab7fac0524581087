"""One deck's way through the build: a plan of stages, each run once, each taking the record of the
stage before it and handing on its own (:mod:`jaxdeck.stages.steps`), run by one runner that reports
progress, keeps each stage's time and writes each artefact's input record (:mod:`jaxdeck.stages.runner`).

The build's options travel as one record, :class:`jaxdeck.stages.options.BuildOptions`; which stages a
deck needs is its :class:`jaxdeck.stages.plan.Plan`; what the stages hand on, and what the build says
of a deck, are the records of :mod:`jaxdeck.stages.records`. Nothing is imported here, so a build with
nothing to do stays quick.
"""
