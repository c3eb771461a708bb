// Run by runtimes.test.ts with the system's Node 20 (/usr/bin/node) and with Deno: the built @siegel/client,
// as a user of that runtime imports it, embeds authors, signs, inspects and verifies against the real server.
// Prints one JSON line. Arguments: server URL, sign token, then the files to embed an author into and sign.
// (The script reads its files with node:fs, which Deno provides too; the package itself uses no Node API.)
import { readFile } from 'node:fs/promises';

const [url, token, ...files] = process.argv.slice(2);
const runtime = globalThis.Deno ? `Deno ${globalThis.Deno.version.deno}` : `Node ${process.versions.node}`;
const { createClient } = await import(new URL('../../packages/client/dist/index.js', import.meta.url).href);
const { roundTrip, signWithoutAuthor } = await import(new URL('./round-trip.mjs', import.meta.url).href);
const client = createClient({ baseUrl: url, token });
const results = [];
for (const file of files) {
  results.push(await roundTrip(client, await readFile(file), file.split('/').at(-1), `Runtime ${runtime}`));
}
console.log(JSON.stringify({ runtime, results, authorRequired: await signWithoutAuthor(client) }));
