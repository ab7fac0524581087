// jaxdeck rehearse: log every execute request the live page sends its kernel, with the kernel's own
// clock (execute_input to execute_reply, as the build times a cell), across restarts of the kernel.
() => {
  if (window.jaxdeckRehearsal) return true;
  const live = window.jaxdeckLive;
  const log = { runs: [], byId: {} };
  window.jaxdeckRehearsal = log;
  const hook = (kernel) => {
    if (!kernel || kernel.jdRehearsed) return;
    kernel.jdRehearsed = true;
    kernel.anyMessage.connect((_, { msg, direction }) => {
      const type = msg.header.msg_type;
      if (direction === 'send' && type === 'execute_request') {
        const run = { id: msg.header.msg_id, code: msg.content.code, silent: !!msg.content.silent,
                      start: null, end: null, status: null, ename: null, evalue: null };
        log.runs.push(run);
        log.byId[run.id] = run;
        return;
      }
      const run = direction === 'recv' && msg.parent_header && log.byId[msg.parent_header.msg_id];
      if (!run) return;
      if (type === 'execute_input') run.start = msg.header.date;
      else if (type === 'execute_reply') {
        // the kernel's own start time too, should its execute_input not have reached this page
        run.start = run.start || (msg.metadata && msg.metadata.started) || null;
        run.end = msg.header.date;
        run.status = msg.content.status;
        run.ename = msg.content.ename || null;
        run.evalue = msg.content.evalue || null;
      }
    });
  };
  const session = live.panel.sessionContext;
  hook(session.session && session.session.kernel);
  session.kernelChanged.connect((_, change) => hook(change.newValue));
  return true;
}
