/** One part of a multipart/form-data body; `data` is a view into the body (no copy). */
export interface MultipartPart {
  name: string;
  fileName: string | undefined;
  data: Uint8Array<ArrayBuffer>;
}

/** The `boundary` parameter of a `multipart/form-data` content type, or `undefined`. */
export function readBoundary(contentType: string): string | undefined {
  if (!/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * Split a `multipart/form-data` body (RFC 7578) into parts, without copying their contents: each part's
 * `data` is a `subarray` of `body`, so a 10 MB upload stays one 10 MB buffer. (Hono's `c.req.parseBody()`
 * goes through `Request.formData()`, which copies every file into a `File` of its own: the upload twice.)
 *
 * @throws {Error} when the body is not well-formed multipart for `boundary`.
 */
export function parseMultipart(body: Uint8Array<ArrayBuffer>, boundary: string): MultipartPart[] {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const next = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let position = buffer.indexOf(delimiter);
  if (position === -1) throw new Error('multipart body has no boundary');
  position += delimiter.length;
  const parts: MultipartPart[] = [];
  while (parts.length < 100) {
    if (buffer[position] === 0x2d && buffer[position + 1] === 0x2d) return parts; // closing `--`
    if (buffer[position] !== 0x0d || buffer[position + 1] !== 0x0a)
      throw new Error('malformed multipart boundary line');
    const headerEnd = buffer.indexOf('\r\n\r\n', position + 2, 'latin1');
    if (headerEnd === -1 || headerEnd - position > 16 * 1024)
      throw new Error('malformed multipart part headers');
    const headers = buffer.toString('utf8', position + 2, headerEnd);
    const contentStart = headerEnd + 4;
    const contentEnd = buffer.indexOf(next, contentStart);
    if (contentEnd === -1) throw new Error('multipart body ends inside a part');
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? '';
    const name = readParameter(disposition, 'name');
    if (name !== undefined) {
      parts.push({
        name,
        fileName: readFileName(disposition),
        data: body.subarray(contentStart, contentEnd),
      });
    }
    position = contentEnd + next.length;
  }
  throw new Error('multipart body has too many parts');
}

function readParameter(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(header);
  const value = match?.[1] ?? match?.[2];
  return value?.replace(/\\(.)/g, '$1');
}

function readFileName(header: string): string | undefined {
  const extended = /;\s*filename\*=UTF-8''([^;\s]+)/i.exec(header)?.[1];
  if (extended !== undefined) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // fall through to the plain parameter
    }
  }
  return readParameter(header, 'filename');
}
