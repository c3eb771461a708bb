// A Cloudflare Worker (run by runtimes.test.ts in workerd, through Miniflare) using the built @siegel/client:
// each request carries a file; the worker embeds authors into it, signs it against the real server (its URL
// and token are bindings), signs it again, inspects and verifies it, and answers what it saw as JSON.
import { AuthorRequiredError, createClient, embedAuthor } from '../../packages/client/dist/index.js';

export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get('name') ?? 'upload';
    const client = createClient({ baseUrl: env.SERVER, token: env.TOKEN });
    const runtime = `workerd ${navigator.userAgent}`;
    const bytes = await embedAuthor(new Uint8Array(await request.arrayBuffer()), {
      author: ['Ana Lima', '李小龙'],
      title: 'Runtime workerd',
    });
    const progress = [];
    let total = 0;
    const signed = await client.sign(bytes, {
      fileName: name,
      onProgress: (step) => {
        progress.push(step.loaded);
        total = step.total;
      },
    });
    const again = await client.sign(bytes, { fileName: name });
    const inspected = await client.inspect(bytes, { fileName: name });
    const verdict = await client.verify(signed.hash);
    const unsigned = await client
      .sign(new TextEncoder().encode('# No author\n'), { fileName: 'none.md' })
      .catch((error) => error);
    return Response.json({
      runtime,
      name,
      alreadySigned: [signed.alreadySigned, again.alreadySigned],
      authors: signed.metadata.authors,
      title: signed.metadata.title,
      inspected: { hash: inspected.hash === signed.hash, already_signed: inspected.already_signed },
      verified: verdict.found && verdict.verified,
      progressSteps: progress.length,
      progressTotal: total,
      progressLast: progress.at(-1),
      authorRequired: unsigned instanceof AuthorRequiredError ? unsigned.code : String(unsigned),
    });
  },
};
