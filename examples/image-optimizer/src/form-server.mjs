// The optimizer as a one-page web form (started by web.mjs): serves the form, runs each submitted image
// through the same code as the CLI (optimize.mjs) and answers with the verify link and a download of the
// signed file. The sign token stays in this process: the browser never sees it.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { SiegelError } from '@siegel/client';
import {
  AuthorRefusedError,
  FORMATS,
  optimizeImage,
  outputName,
  parseAuthors,
  signImage,
  UsageError,
} from './optimize.mjs';

/** The largest upload the form takes (the whole request, multipart framing included). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** How many signed outputs are kept for download (the oldest goes first). */
const KEPT_DOWNLOADS = 32;

/** Escape text for HTML (element content and double-quoted attributes). */
function escapeHtml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
}

/** A whole page around `body`. */
function page(title, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input, select, button { font: inherit; }
input[type=text], input[type=number] { width: 100%; box-sizing: border-box; }
.hint { font-weight: normal; color: #555; font-size: 0.9em; }
.error { color: #a00; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The form, with the values of a refused submission filled back in. */
function formPage(values = {}, error = '') {
  const options = FORMATS.map(
    (format) =>
      `<option value="${format}"${format === (values.format ?? 'webp') ? ' selected' : ''}>${format.toUpperCase()}</option>`,
  ).join('');
  return page(
    'Image optimizer with an author field',
    `<h1>Optimize and sign an image</h1>
<p>The image is resized and converted, the author is written into it, and a Siegel server signs it.</p>
${error ? `<p id="error" class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/optimize" enctype="multipart/form-data">
<label for="file">Image</label>
<input id="file" name="file" type="file" accept="image/*" required>
<label for="author">Author <span class="hint">(several: separate with ";")</span></label>
<input id="author" name="author" type="text" required value="${escapeHtml(values.author ?? '')}">
<label for="title">Title <span class="hint">(optional)</span></label>
<input id="title" name="title" type="text" value="${escapeHtml(values.title ?? '')}">
<label for="width">Width in pixels <span class="hint">(optional; never enlarged)</span></label>
<input id="width" name="width" type="number" min="1" step="1" value="${escapeHtml(values.width ?? '')}">
<label for="format">Format</label>
<select id="format" name="format">${options}</select>
<p><button id="submit" type="submit">Optimize and sign</button></p>
</form>`,
  );
}

/** The answer to a signed image. */
function resultPage({ fileName, optimized, result, download }) {
  return page(
    'Signed',
    `<h1 id="result-title">${result.alreadySigned ? 'Signed before' : 'Signed'}</h1>
<p>${escapeHtml(fileName)}: ${optimized.format.toUpperCase()}, ${optimized.width}×${optimized.height} pixels,
${optimized.bytes.length} bytes, author ${escapeHtml(result.metadata.authors.join('; '))}.</p>
<p><a id="verify-link" href="${escapeHtml(result.urls.verify)}">Verify this file</a> (${escapeHtml(result.urls.verify)})</p>
<p><a id="download-link" href="${escapeHtml(download)}" download="${escapeHtml(fileName)}">Download the signed file</a></p>
<p><a href="/">Optimize another image</a></p>`,
  );
}

/** Read a request body of at most `limit` bytes; `undefined` when it is larger. */
async function readBody(request, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Create the form's HTTP server (not yet listening).
 *
 * @param {{ server: string, token: string }} target the Siegel server and its sign token
 * @returns {import('node:http').Server}
 */
export function createFormServer(target) {
  /** Signed outputs by content hash, for the download link. */
  const downloads = new Map();

  const send = (response, status, html, headers = {}) => {
    response.writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
      ...headers,
    });
    response.end(html);
  };

  async function optimize(request, response) {
    if (Number(request.headers['content-length'] ?? 0) > MAX_UPLOAD_BYTES) {
      request.resume();
      return send(
        response,
        413,
        formPage({}, `The upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`),
      );
    }
    const body = await readBody(request, MAX_UPLOAD_BYTES);
    if (body === undefined)
      return send(
        response,
        413,
        formPage({}, `The upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`),
      );
    let form;
    try {
      // The platform's multipart parser (undici's, as fetch uses it): no hand-written one.
      form = await new Response(body, {
        headers: { 'Content-Type': request.headers['content-type'] ?? '' },
      }).formData();
    } catch {
      return send(response, 400, formPage({}, 'The request is not a form upload: send it from the form.'));
    }
    const text = (name) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    const values = {
      author: text('author'),
      title: text('title'),
      width: text('width'),
      format: text('format'),
    };
    const file = form.get('file');
    if (!(file instanceof Blob) || file.size === 0)
      return send(response, 400, formPage(values, 'Choose an image file to optimize.'));
    const author = parseAuthors([values.author]);
    if (author.length === 0)
      return send(
        response,
        400,
        formPage(values, 'Enter the author: the Siegel server signs only files that name their author.'),
      );
    let optimized;
    try {
      optimized = await optimizeImage(new Uint8Array(await file.arrayBuffer()), { ...values, author });
    } catch (error) {
      if (error instanceof UsageError) return send(response, 400, formPage(values, error.message));
      return send(
        response,
        422,
        formPage(values, `This file could not be optimized (is it an image?): ${error.message}`),
      );
    }
    const fileName = outputName(file.name || 'image', optimized.extension);
    let result;
    try {
      result = await signImage(optimized.bytes, { ...target, fileName, author });
    } catch (error) {
      if (error instanceof AuthorRefusedError) {
        return send(
          response,
          422,
          formPage(values, `${error.message}. Enter the real name in the Author field.`),
        );
      }
      if (!(error instanceof SiegelError)) throw error;
      return send(
        response,
        502,
        formPage(values, `The Siegel server did not sign the image: ${error.message}`),
      );
    }
    const hash = createHash('sha256').update(optimized.bytes).digest('hex');
    downloads.delete(hash);
    downloads.set(hash, { bytes: optimized.bytes, fileName, format: optimized.format });
    while (downloads.size > KEPT_DOWNLOADS) downloads.delete(downloads.keys().next().value);
    return send(response, 200, resultPage({ fileName, optimized, result, download: `/download/${hash}` }));
  }

  return createServer((request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && pathname === '/') return send(response, 200, formPage());
    if (request.method === 'POST' && pathname === '/optimize') {
      return optimize(request, response).catch((error) => {
        console.error(error);
        if (!response.headersSent)
          send(response, 500, formPage({}, 'Something went wrong; see the server log.'));
      });
    }
    const download = /^\/download\/([0-9a-f]{64})$/.exec(pathname);
    if (request.method === 'GET' && download) {
      const kept = downloads.get(download[1]);
      if (!kept)
        return send(
          response,
          404,
          page('Not found', '<p>This download is no longer kept: optimize the image again.</p>'),
        );
      response.writeHead(200, {
        'Content-Type': `image/${kept.format}`,
        'Content-Disposition': `attachment; filename="${kept.fileName.replace(/[^\w.-]/g, '_')}"`,
        'Content-Length': kept.bytes.length,
      });
      return response.end(kept.bytes);
    }
    return send(response, 404, page('Not found', '<p>Nothing here. <a href="/">The form</a>.</p>'));
  });
}
