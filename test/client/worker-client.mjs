// A Cloudflare Worker (run by runtimes.test.ts in workerd, through Miniflare) using the built @siegel/client:
// each request carries a file; the worker embeds authors into it, signs it against the real server (its URL
// and token are bindings), signs it again, inspects and verifies it, and answers what it saw as JSON.
import { createClient } from '../../packages/client/dist/index.js';
import { roundTrip, signWithoutAuthor } from './round-trip.mjs';

export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get('name') ?? 'upload';
    const client = createClient({ baseUrl: env.SERVER, token: env.TOKEN });
    const seen = await roundTrip(
      client,
      new Uint8Array(await request.arrayBuffer()),
      name,
      'Runtime workerd',
    );
    return Response.json({
      runtime: `workerd ${navigator.userAgent}`,
      ...seen,
      authorRequired: await signWithoutAuthor(client),
    });
  },
};
