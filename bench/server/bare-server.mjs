// The baseline of the verify bench: a bare Hono JSON route on @hono/node-server, nothing else.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/json', (c) => c.json({ verified: true, hash: '0'.repeat(64) }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT) }, (info) => {
  console.log(`listening on ${info.port}`);
});
