import { textEncodingOf } from '@siegel/formats';
import { raw } from 'hono/html';
import { isoTime, npubOf } from '../records/describe-record.js';
import { readFileEvent } from '../records/file-event.js';
import type { FileUrls } from '../records/public-urls.js';
import type { SignedFileRecord } from '../storage/record-store.js';

/** Text files longer than this are not repeated in full on their event page. */
export const MAX_PAGE_TEXT_CHARS = 200_000;

/** JSON safe inside `<script>`: `<`, `>`, `&` and the JavaScript line separators are escaped. */
export function toScriptJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** One sentence saying who signed what, when, with which key: the first thing a person or a model reads. */
export function describeSigning(record: SignedFileRecord): string {
  const title = record.title ?? record.fileName;
  const when = isoTime(record.event.created_at).replace('.000Z', 'Z');
  return (
    `${record.authors.join(', ')} signed the file “${title}” (${record.mimeType}, ${record.sizeBytes} bytes) ` +
    `with the Nostr key ${npubOf(record.pubkey)} on ${when}. Its SHA-256 hash is ${record.hash}.`
  );
}

/** schema.org JSON-LD describing the file, its authors and its hash. */
export function createJsonLd(record: SignedFileRecord, urls: FileUrls): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': record.fileType === 'image' ? 'ImageObject' : 'MediaObject',
    name: record.title ?? record.fileName,
    ...(record.description === undefined ? {} : { description: record.description }),
    author: record.authors.map((name) => ({ '@type': 'Person', name })),
    contentUrl: urls.file,
    url: urls.static_page,
    encodingFormat: record.mimeType,
    contentSize: `${record.sizeBytes} B`,
    sha256: record.hash,
    identifier: [
      { '@type': 'PropertyValue', propertyID: 'sha256', value: record.hash },
      { '@type': 'PropertyValue', propertyID: 'nostr:event', value: record.event.id },
    ],
    ...(record.width === undefined ? {} : { width: record.width, height: record.height }),
    dateCreated: isoTime(record.event.created_at),
    sdPublisher: { '@type': 'Person', identifier: `nostr:${npubOf(record.pubkey)}` },
  };
}

/** The one inline style of event pages (allowed by its hash in their CSP). */
export const PAGE_STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
pre,code{font:14px/1.4 ui-monospace,monospace;background:#f3f3f5;border-radius:4px}pre{padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-all}
code{padding:0 .2rem;word-break:break-all}a,.statement{overflow-wrap:anywhere}h1{font-size:1.6rem}.statement{font-size:1.1rem}`;

/**
 * The static event page of a signed file, `{cdn_url}/events/{hash}/index.html`: a plain statement of who
 * signed what and when, the hash, how to verify it (a `curl` line and the browser way), schema.org JSON-LD,
 * the raw event, and for text files the text itself. Written for people and for language models alike; no
 * script, so it works from any static host.
 */
export async function renderEventPage(
  record: SignedFileRecord,
  urls: FileUrls,
  baseUrl: string,
  text: string | undefined,
): Promise<string> {
  const statement = describeSigning(record);
  const title = record.title ?? record.fileName;
  const { uploader } = readFileEvent(record.event);
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`Signed: “${title}” by ${record.authors.join(', ')}`}</title>
        <meta name="description" content={statement} />
        <meta name="nostr:event" content={record.event.id} />
        <meta name="nostr:pubkey" content={record.pubkey} />
        <meta name="nostr:hash" content={record.hash} />
        <link rel="alternate" type="application/json" href={urls.event_json} />
        <script type="application/ld+json">{raw(toScriptJson(createJsonLd(record, urls), 2))}</script>
        <style>{raw(PAGE_STYLE)}</style>
      </head>
      <body>
        <main>
          <h1>{`Signed: “${title}”`}</h1>
          <p class="statement">{statement}</p>
          <h2>Author and title</h2>
          <dl>
            <dt>Author</dt>
            {record.authors.map((author) => (
              <dd class="author">{author}</dd>
            ))}
            <dt>Title</dt>
            <dd class="title">{title}</dd>
            {record.description === undefined ? '' : [<dt>Description</dt>, <dd>{record.description}</dd>]}
            <dt>Signed at</dt>
            <dd>{isoTime(record.event.created_at)}</dd>
            <dt>Signer (Nostr public key)</dt>
            <dd>
              <code>{npubOf(record.pubkey)}</code> (hex <code>{record.pubkey}</code>)
            </dd>
            {uploader === undefined
              ? ''
              : [
                  <dt>Uploaded by (Nostr public key, Blossom)</dt>,
                  <dd class="uploader">
                    <code>{npubOf(uploader)}</code> (hex <code>{uploader}</code>)
                  </dd>,
                ]}
          </dl>
          <h2>SHA-256 hash of the file</h2>
          <p>
            <code class="hash">{record.hash}</code>
          </p>
          <p>
            The file: <a href={urls.file}>{urls.file}</a> (also by hash alone:{' '}
            <a href={urls.blossom}>{urls.blossom}</a>)
          </p>
          <h2>How to verify</h2>
          <ol>
            <li>
              Ask the service (open to anyone; on every call it re-checks the event's id and signature, the
              stored record against the event, and the stored file against the hash):
              <pre>{`curl -s '${urls.verify_api}'`}</pre>
            </li>
            <li>
              Hash the file yourself; the output must be <code>{record.hash}</code>:
              <pre>{`curl -s '${urls.file}' | sha256sum`}</pre>
            </li>
            <li>
              In a browser: <a href={urls.verify}>{urls.verify}</a> shows the verdict on this hash; to check a
              copy you have, open <a href={`${baseUrl}/verify`}>{`${baseUrl}/verify`}</a> and drop the file.
              It is hashed on your device with WebCrypto and never uploaded.
            </li>
            <li>
              With any Nostr library: check the raw event below (NIP-01 id and Schnorr signature); its{' '}
              <code>x</code> tag is the file hash, its <code>author</code> tags name the authors.
            </li>
          </ol>
          <h2>Raw Nostr event (NIP-94, kind 1063)</h2>
          <pre class="event">{JSON.stringify(record.event, null, 2)}</pre>
          {text === undefined ? (
            ''
          ) : (
            <>
              <h2>The signed text</h2>
              <pre class="text">
                {text.length > MAX_PAGE_TEXT_CHARS ? `${text.slice(0, MAX_PAGE_TEXT_CHARS)}\n[…]` : text}
              </pre>
            </>
          )}
        </main>
      </body>
    </html>
  );
  return `<!DOCTYPE html>\n${await page.toString()}`;
}

/**
 * The start of a text file (UTF-8, or UTF-16 after its byte order mark), as much as its event page shows
 * (`MAX_PAGE_TEXT_CHARS`) and one character more (so the page knows there is more): a 25 MiB text is not
 * decoded whole on the event loop for that, when signing nor when the page is served.
 */
export function pageText(bytes: Uint8Array): string {
  // A character is at most 4 bytes of UTF-8 or UTF-16 (2 UTF-16 units): this prefix decodes to enough of them.
  const prefix = bytes.subarray(0, 4 * (MAX_PAGE_TEXT_CHARS + 1));
  return new TextDecoder(textEncodingOf(bytes)).decode(prefix, { stream: prefix.length < bytes.length });
}
