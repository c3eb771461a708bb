#!/usr/bin/env node
// siegel-optimize: resize and convert an image, write the author into it and sign it with a Siegel server.
// Exit codes: 0 signed (or signed before), 1 the image could not be read, written or signed, 2 wrong usage.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { SiegelError } from '@siegel/client';
import {
  AuthorRefusedError,
  checkOptions,
  FORMATS,
  optimizeImage,
  outputName,
  parseAuthors,
  signImage,
  UsageError,
} from './src/optimize.mjs';

const USAGE = `Usage: siegel-optimize <image> --author "Name" [options]

Resizes and converts an image with sharp, writes the author into it and signs it with a Siegel server.

Options:
  --author NAME    the author (required); repeat it, or separate names with ";", for several
  --title TEXT     the title written into the image (default: none; the server then shows the file name)
  --width PIXELS   the output width; the height follows, a smaller image is not enlarged (default: as is)
  --format NAME    ${FORMATS.join(', ')} (default: webp)
  --out FILE       where to write the output (default: <image>-optimized.<format> beside the input)
  --server URL     the Siegel server (default: $SIEGEL_SERVER_URL)
  --token TOKEN    a sign token of that server (default: $SIEGEL_SIGN_TOKEN)
  --help           this text
`;

/** Print `message` and the usage to stderr, exit with 2. */
function usageError(message) {
  process.stderr.write(`siegel-optimize: ${message}\n\n${USAGE}`);
  process.exit(2);
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        author: { type: 'string', multiple: true },
        title: { type: 'string' },
        width: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        server: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    return usageError(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length !== 1) return usageError('Give exactly one image to optimize.');
  const author = parseAuthors(values.author ?? []);
  if (author.length === 0)
    return usageError('--author is required: the Siegel server signs only files that name their author.');
  const server = values.server ?? process.env.SIEGEL_SERVER_URL;
  const token = values.token ?? process.env.SIEGEL_SIGN_TOKEN;
  if (!server) return usageError('No server: pass --server URL or set SIEGEL_SERVER_URL.');
  if (!token) return usageError('No sign token: pass --token TOKEN or set SIEGEL_SIGN_TOKEN.');
  const options = { author, title: values.title, width: values.width, format: values.format };
  try {
    checkOptions(options); // before reading anything: a wrong --width or --format is a usage error
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    throw error;
  }

  const inputPath = /** @type {string} */ (positionals[0]);
  let input;
  try {
    input = await readFile(inputPath);
  } catch (error) {
    throw new Error(`Cannot read \`${inputPath}\`: ${error.message}`);
  }
  let optimized;
  try {
    optimized = await optimizeImage(input, options);
  } catch (error) {
    if (error instanceof SiegelError) throw error; // embedAuthor's EmbedError says what is wrong itself
    throw new Error(`Cannot optimize \`${inputPath}\` (is it an image?): ${error.message}`);
  }
  const outPath = values.out ?? join(dirname(inputPath), outputName(inputPath, optimized.extension));
  await writeFile(outPath, optimized.bytes);
  console.log(
    `Wrote ${outPath} (${optimized.format}, ${optimized.width}×${optimized.height}, ${optimized.bytes.length} bytes, author: ${author.join('; ')})`,
  );
  const result = await signImage(optimized.bytes, {
    server,
    token,
    fileName: outPath.replace(/^.*[\\/]/, ''),
    author,
  });
  console.log(result.alreadySigned ? 'Signed before (this exact file): nothing new signed.' : 'Signed.');
  console.log(`Verify: ${result.urls.verify}`);
}

main().catch((error) => {
  // A refused sign is a SiegelError whose message is the server's (e.g. a wrong token: UNAUTHORIZED); a refused
  // author says what to pass this CLI, not the server's advice for writing metadata into a file.
  const code = error instanceof SiegelError || error instanceof AuthorRefusedError ? ` [${error.code}]` : '';
  const advice = error instanceof AuthorRefusedError ? '. Pass the real name: --author "Name"' : '';
  process.stderr.write(`siegel-optimize: ${error.message}${advice}${code}\n`);
  process.exitCode = 1;
});
