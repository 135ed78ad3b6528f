// The render worker: a child process that runs user templates with a capped heap
// (--max-old-space-size from the pool that forked it), so a template that allocates without
// bound ends this process, not the service. Plain JavaScript because it starts without the
// TypeScript loader the service may run under (tsx in `npm start`, Vite in the tests); tsx
// compiles the engine here.

async function loadEngine() {
  try {
    return await import(new URL('./engine.js', import.meta.url).href);
  } catch {
    const { tsImport } = await import('tsx/esm/api');
    return tsImport('./engine.ts', import.meta.url);
  }
}

const { renderInThisThread, messageOf } = await loadEngine();

/** LiquidJS's own limit errors, by the words of their messages. */
function engineLimit(message) {
  if (/render limit/i.test(message)) return 'render_time';
  if (/memory alloc limit/i.test(message)) return 'memory';
  if (/parse length limit/i.test(message)) return 'template_size';
  return null;
}

process.on('message', async ({ id, request, maxOutputChars }) => {
  try {
    const html = await renderInThisThread(request);
    if (html.length > maxOutputChars) {
      process.send({ id, error: { limit: 'output_size', message: `the rendered document is longer than ${maxOutputChars} characters` } });
      return;
    }
    process.send({ id, html });
  } catch (e) {
    const message = messageOf(e);
    process.send({ id, error: { limit: engineLimit(message), message } });
  }
});
process.send({ ready: true });
// the service went away (its IPC channel closed): nothing left to render for
process.on('disconnect', () => process.exit(0));
