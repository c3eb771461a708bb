// The baseline of the verify bench: a bare Hono JSON route on @hono/node-server, nothing else.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/json', (c) => c.json({ verified: true, hash: '0'.repeat(64) }));
// The same bytes the verify API answers (given by the bench), to separate payload size from the service's work.
const sameBody = JSON.parse(process.env.BENCH_BODY ?? '{}');
app.get('/same-body', (c) => c.json(sameBody));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT) }, (info) => {
  console.log(`listening on ${info.port}`);
});
