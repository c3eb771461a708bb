// The round trip every runtime test makes with the built @siegel/client (client-script.mjs for Node 20 and
// Deno, worker-client.mjs for workerd): embed authors into a file, sign it with progress, sign it again,
// inspect and verify it; and sign a file without an author. Plain ESM with no Node API, so every runtime loads
// it as it is.
import { AuthorRequiredError, embedAuthor } from '../../packages/client/dist/index.js';

/** What one runtime saw for `bytes` named `name`, as the runtimes test compares it. */
export async function roundTrip(client, bytes, name, title) {
  const embedded = await embedAuthor(bytes, { author: ['Ana Lima', '李小龙'], title });
  const progress = [];
  let total = 0;
  const signed = await client.sign(embedded, {
    fileName: name,
    onProgress: (step) => {
      progress.push(step.loaded);
      total = step.total;
    },
  });
  const again = await client.sign(embedded, { fileName: name });
  const inspected = await client.inspect(embedded, { fileName: name });
  const verdict = await client.verify(signed.hash);
  return {
    name,
    alreadySigned: [signed.alreadySigned, again.alreadySigned],
    authors: signed.metadata.authors,
    title: signed.metadata.title,
    inspected: { hash: inspected.hash === signed.hash, already_signed: inspected.already_signed },
    verified: verdict.found && verdict.verified,
    progressSteps: progress.length,
    progressTotal: total,
    progressLast: progress.at(-1),
  };
}

/** `AUTHOR_REQUIRED` when signing a Markdown file without an author fails as it should, else what happened. */
export async function signWithoutAuthor(client) {
  const unsigned = await client
    .sign(new TextEncoder().encode('# No author\n'), { fileName: 'none.md' })
    .catch((error) => error);
  return unsigned instanceof AuthorRequiredError ? unsigned.code : String(unsigned);
}
