// Run by runtimes.test.ts with the system's Node 20 (/usr/bin/node) and with Deno: the built @siegel/client,
// as a user of that runtime imports it, embeds authors, signs, inspects and verifies against the real server.
// Prints one JSON line. Arguments: server URL, sign token, then the files to embed an author into and sign.
// (The script reads its files with node:fs, which Deno provides too; the package itself uses no Node API.)
import { readFile } from 'node:fs/promises';

const [url, token, ...files] = process.argv.slice(2);
const runtime = globalThis.Deno ? `Deno ${globalThis.Deno.version.deno}` : `Node ${process.versions.node}`;
const { createClient, embedAuthor, AuthorRequiredError } = await import(
  new URL('../../packages/client/dist/index.js', import.meta.url).href
);
const client = createClient({ baseUrl: url, token });
const results = [];
for (const file of files) {
  const bytes = await embedAuthor(await readFile(file), {
    author: ['Ana Lima', '李小龙'],
    title: `Runtime ${runtime}`,
  });
  const progress = [];
  let total = 0;
  const name = file.split('/').at(-1);
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
  results.push({
    name,
    alreadySigned: [signed.alreadySigned, again.alreadySigned],
    authors: signed.metadata.authors,
    title: signed.metadata.title,
    inspected: { hash: inspected.hash === signed.hash, already_signed: inspected.already_signed },
    verified: verdict.found && verdict.verified,
    progressSteps: progress.length,
    progressTotal: total,
    progressLast: progress.at(-1),
  });
}
const unsigned = await client
  .sign(new TextEncoder().encode('# No author\n'), { fileName: 'none.md' })
  .catch((error) => error);
console.log(
  JSON.stringify({
    runtime,
    results,
    authorRequired: unsigned instanceof AuthorRequiredError ? unsigned.code : String(unsigned),
  }),
);
