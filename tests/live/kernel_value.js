// The repr of a Python expression in the live page's kernel, read as a user expression of an
// empty, silent request: nothing runs, nothing is shown, nothing is counted; on an error, "Name: value".
async (expression) => {
  const kernel = window.jaxdeckLive.panel.sessionContext.session.kernel;
  const reply = await kernel.requestExecute({
    code: '', silent: true, store_history: false, user_expressions: { value: expression }
  }).done;
  const value = reply.content.user_expressions.value;
  return value.status === 'ok' ? value.data['text/plain'] : `${value.ename}: ${value.evalue}`;
}
