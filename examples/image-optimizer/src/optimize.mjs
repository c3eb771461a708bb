// The one home of what the CLI (cli.mjs) and the web form (web.mjs) do: resize and convert an image with
// sharp, write the author back into the output with embedAuthor, and sign it through @siegel/client.
import { AuthorRequiredError, createClient, embedAuthor } from '@siegel/client';
import sharp from 'sharp';

/** The output formats the Siegel server signs and sharp writes, default first. */
export const FORMATS = /** @type {const} */ (['webp', 'png', 'jpeg', 'gif']);

/** File extension of each output format. */
const EXTENSIONS = { webp: 'webp', png: 'png', jpeg: 'jpg', gif: 'gif' };

/** The widest output accepted (sharp never enlarges: a smaller image keeps its width). */
export const MAX_WIDTH = 10_000;

/**
 * A wrong option (no author, an unknown format, a width that is not a positive whole number): the CLI
 * prints it with its usage and exits with 2, the web form answers it with 400.
 */
export class UsageError extends Error {
  name = 'UsageError';
}

/**
 * The Siegel server refused the author the optimizer wrote into the image: a placeholder such as `unknown`
 * or `test`, or a name under 2 characters. The server's own advice (write XMP `dc:creator` into the file) does
 * not fit the optimizer's users, who give the author as an option: the CLI says to pass `--author`, the form
 * to fill in its Author field. `code` is the server's, `AUTHOR_REQUIRED`.
 */
export class AuthorRefusedError extends Error {
  name = 'AuthorRefusedError';
  code = 'AUTHOR_REQUIRED';

  /**
   * @param {string[]} authors the names given
   * @param {unknown} cause the server's refusal
   */
  constructor(authors, cause) {
    // Quoted, not in backticks: the form shows the message as text.
    const names = authors.map((name) => `“${name}”`).join(', ');
    super(
      `The Siegel server does not sign ${names} as an author: it needs a real name, not a placeholder such as “unknown” or “test”, and at least 2 characters`,
      { cause },
    );
    this.authors = authors;
  }
}

/**
 * The author names in `values`: each value may hold several names separated by `;` (as in `"Ana Lima;
 * Björn Ødegård"`); names are trimmed, empty ones dropped, the order kept.
 *
 * @param {Iterable<string | undefined>} values the `--author` values or form fields
 * @returns {string[]}
 * @example parseAuthors(['Ana Lima; Björn Ødegård', 'Chen Wei']) // ['Ana Lima', 'Björn Ødegård', 'Chen Wei']
 */
export function parseAuthors(values) {
  const names = [];
  for (const value of values) {
    for (const name of (value ?? '').split(';')) {
      const trimmed = name.trim();
      if (trimmed !== '') names.push(trimmed);
    }
  }
  return names;
}

/**
 * Check and normalise the optimizer's options (strings as a CLI or a form gives them).
 *
 * @param {{ author: string[], title?: string, width?: string | number, format?: string }} options
 * @returns {{ author: string[], title: string | undefined, width: number | undefined, format: typeof FORMATS[number] }}
 * @throws {UsageError} no author, an unknown format, or a width that is not a whole number from 1 to 10 000
 */
export function checkOptions(options) {
  if (options.author.length === 0)
    throw new UsageError(
      'An author is required (--author "Name", several separated by ";"): the Siegel server signs only files that name their author.',
    );
  const format = (options.format ?? 'webp').toLowerCase().replace(/^jpg$/, 'jpeg');
  if (!FORMATS.includes(/** @type {any} */ (format)))
    throw new UsageError(`Unknown format \`${options.format}\`: use one of ${FORMATS.join(', ')}.`);
  let width;
  if (options.width !== undefined && String(options.width).trim() !== '') {
    width = Number(options.width);
    if (!Number.isInteger(width) || width < 1 || width > MAX_WIDTH)
      throw new UsageError(
        `Width \`${options.width}\` is not a whole number of pixels from 1 to ${MAX_WIDTH}.`,
      );
  }
  const title = options.title?.trim() || undefined;
  return { author: options.author, title, width, format: /** @type {typeof FORMATS[number]} */ (format) };
}

/**
 * Resize (`width`, never enlarging) and convert (`format`) an image with sharp, then write `author` and
 * `title` into the output with embedAuthor. sharp drops all metadata by default — EXIF, XMP, IPTC, the
 * author with them — so the author is written after sharp, into the bytes that will be signed.
 *
 * @param {Uint8Array} input an image sharp reads (JPEG, PNG, WebP, GIF, AVIF, TIFF, SVG)
 * @param {{ author: string[], title?: string, width?: string | number, format?: string }} options
 * @returns {Promise<{ bytes: Uint8Array, format: typeof FORMATS[number], extension: string, width: number, height: number }>}
 * @throws {UsageError} wrong options (see {@link checkOptions}); sharp's error for input it cannot read
 */
export async function optimizeImage(input, options) {
  const { author, title, width, format } = checkOptions(options);
  // rotate(): apply the EXIF orientation to the pixels, since the EXIF that carries it is dropped.
  let pipeline = sharp(input, { animated: format === 'gif' || format === 'webp' }).rotate();
  if (width !== undefined) pipeline = pipeline.resize({ width, withoutEnlargement: true });
  const { data, info } = await pipeline.toFormat(format).toBuffer({ resolveWithObject: true });
  const bytes = await embedAuthor(new Uint8Array(data), { author, ...(title ? { title } : {}) });
  return {
    bytes,
    format,
    extension: EXTENSIONS[format],
    width: info.width,
    height: info.pageHeight ?? info.height,
  };
}

/**
 * Sign optimized bytes with a Siegel server. Signing the same bytes twice is not an error: the answer
 * then has `alreadySigned: true` and the existing record.
 *
 * @param {Uint8Array} bytes the optimized image, `author` written in
 * @param {{ server: string, token: string, fileName: string, author: string[], fetch?: typeof fetch }} target
 * @returns {Promise<import('@siegel/client').SignResult>} the sign answer; `urls.verify` is the verify link
 * @throws {AuthorRefusedError} the server took none of `author` for a name (its `AUTHOR_REQUIRED`)
 * @throws {import('@siegel/client').SiegelError} the typed error of another refused sign (`UnauthorizedError`, …)
 */
export async function signImage(bytes, target) {
  const client = createClient({
    baseUrl: target.server,
    token: target.token,
    ...(target.fetch ? { fetch: target.fetch } : {}),
  });
  try {
    return await client.sign(bytes, { fileName: target.fileName });
  } catch (error) {
    if (error instanceof AuthorRequiredError) throw new AuthorRefusedError(target.author, error);
    throw error;
  }
}

/** The output name for an input name: `photo.jpg` → `photo-optimized.webp`. */
export function outputName(inputName, extension) {
  const base = inputName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '') || 'image';
  return `${base}-optimized.${extension}`;
}
