// jaxdeck rehearse: once the press that sent run number `seen` has finished — the cell's reply in,
// and the claim checks after it too (they follow a cell that succeeded, and stop at the first that
// fails) — that run, the checks' runs and the cell's outputs; until then null.
([seen, index, checks]) => {
  const log = window.jaxdeckRehearsal, live = window.jaxdeckLive;
  const runs = log.runs.slice(seen);
  const run = runs.find((r) => !r.silent);
  if (!run || !run.end || runs.some((r) => !r.end)) return null;
  const after = runs.slice(runs.indexOf(run) + 1).filter((r) => r.silent);
  const settled = run.status !== 'ok' || after.length >= checks || after.some((r) => r.status !== 'ok');
  if (!settled) return null;
  const kernel = live.panel.sessionContext.session && live.panel.sessionContext.session.kernel;
  if (kernel && kernel.status === 'busy') return null;
  const outputs = live.panel.content.widgets[index].model.outputs.toJSON();
  return { run, checks: after, outputs, total: log.runs.length };
}
