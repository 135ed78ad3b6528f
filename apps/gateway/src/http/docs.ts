import { Hono } from 'hono';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Ledgerline API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body{margin:0} .topbar{display:none}</style>
</head>
<body>
  <div id="ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true,
      persistAuthorization: true, defaultModelsExpandDepth: 0, docExpansion: 'list' });
  </script>
</body>
</html>`;

/** The OpenAPI document (generated from the contracts), the event catalogue and a browsable page. */
export function docsRoutes(publicUrl: string | undefined) {
  const r = new Hono();
  let openapi: string | null = null;
  let asyncapi: string | null = null;
  r.get('/openapi.json', async (c) => {
    // Built on first request: the document is large and most processes never serve it.
    openapi ??= JSON.stringify((await import('@ledgerline/contracts/openapi')).buildOpenApiDocument({ serverUrl: publicUrl ? `${publicUrl}/v1` : undefined }));
    return c.body(openapi, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' });
  });
  r.get('/asyncapi.json', async (c) => {
    asyncapi ??= JSON.stringify((await import('@ledgerline/contracts/openapi')).buildEventCatalogue());
    return c.body(asyncapi, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  r.get('/docs', (c) => c.html(PAGE));
  r.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.notFound();
    return c.body(await readFile(path.join(swaggerDir, file)), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
  });
  return r;
}
