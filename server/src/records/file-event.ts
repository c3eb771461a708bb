import type { EventTemplate } from 'nostr-tools/core';
import type { FileAnalysis } from '../metadata/analyze-file.js';

/** NIP-94 "file metadata" event kind. */
export const FILE_EVENT_KIND = 1063;

/**
 * The NIP-94 (kind 1063) event template for a signed file. Tags: `url`, `m`, `x` and `ox` (the file's
 * SHA-256; nothing transformed it), `size`, `dim` (images), `alt` (a one-line description), `summary` (the
 * file's own description, when it has one), one `["author", name]` tag per author, and `["p", uploader]`
 * when the upload came with a Nostr key (Blossom `Authorization: Nostr`): the pubkey that sent the file, named
 * by the service's key, which signs. The content states the same in words: `“{title}” by {authors}`, so a
 * reader without tag knowledge sees who signed what.
 *
 * @example
 * ```ts
 * createFileEvent(analysis, 'https://cdn.example/documents/ab….png', 'photo.png');
 * ```
 */
export function createFileEvent(
  analysis: FileAnalysis,
  fileUrl: string,
  fileName: string,
  createdAt = Math.floor(Date.now() / 1000),
  uploader?: string,
): EventTemplate {
  const name = analysis.title ?? fileName;
  const by = analysis.authors.join(', ');
  const tags: string[][] = [
    ['url', fileUrl],
    ['m', analysis.type.mimeType],
    ['x', analysis.hash],
    ['ox', analysis.hash],
    ['size', String(analysis.sizeBytes)],
  ];
  if (analysis.dimensions !== undefined) {
    tags.push(['dim', `${analysis.dimensions.width}x${analysis.dimensions.height}`]);
  }
  tags.push(['alt', `${describeKind(analysis.type.mimeType)} “${name}” by ${by}`]);
  if (analysis.description !== undefined) tags.push(['summary', analysis.description]);
  for (const author of analysis.authors) tags.push(['author', author]);
  if (uploader !== undefined) tags.push(['p', uploader]);
  return { kind: FILE_EVENT_KIND, created_at: createdAt, tags, content: `“${name}” by ${by}` };
}

function describeKind(mimeType: string): string {
  if (mimeType.startsWith('image/')) return 'Image';
  if (mimeType === 'application/pdf') return 'PDF document';
  return 'Text';
}

/** What a file event (as {@link createFileEvent} makes them) states, read from its tags and content. */
export interface FileEventStatement {
  /** `x`: the file's SHA-256. */
  hash: string | undefined;
  /** `url`: where the file was published. */
  url: string | undefined;
  /** `m`: the file's MIME type. */
  mimeType: string | undefined;
  /** `size`: the file's length in bytes, as the tag's text. */
  size: string | undefined;
  /** `dim`: `{width}x{height}` (images). */
  dim: string | undefined;
  /** `author` tags, in order. */
  authors: string[];
  /** `summary`: the file's own description. */
  description: string | undefined;
  /** `p`: the pubkey (hex) that uploaded the file with Nostr auth (Blossom); none for a token upload. */
  uploader: string | undefined;
  /**
   * The name in the content, `“{name}” by {authors}`: the file's title, or the upload's name when the file
   * has no title. `undefined` when the content is not of that form for the `author` tags.
   */
  name: string | undefined;
}

/**
 * Read what a kind-1063 file event states: the first `x`, `url`, `m`, `size`, `dim`, `summary` and `p` tag, every
 * `author` tag, and the name in the content. Says nothing about whether the event is signed: check that
 * first (`checkStoredEvent`).
 *
 * @example
 * ```ts
 * readFileEvent(event).authors; // ['Ana Lima', 'Björn Ødegård']
 * ```
 */
export function readFileEvent(event: Pick<EventTemplate, 'tags' | 'content'>): FileEventStatement {
  // A stored event may have been altered into any JSON: only arrays of tags are read.
  const tags = (Array.isArray(event.tags) ? event.tags : []).filter((tag) => Array.isArray(tag));
  const first = (name: string) => {
    const tag = tags.find((candidate) => candidate[0] === name);
    return typeof tag?.[1] === 'string' ? tag[1] : undefined;
  };
  const authors = tags
    .filter((tag) => tag[0] === 'author' && typeof tag[1] === 'string')
    .map((tag) => tag[1] as string);
  const suffix = `” by ${authors.join(', ')}`;
  const { content } = event;
  const name =
    typeof content === 'string' &&
    content.startsWith('“') &&
    content.endsWith(suffix) &&
    content.length >= 1 + suffix.length
      ? content.slice(1, content.length - suffix.length)
      : undefined;
  return {
    hash: first('x'),
    url: first('url'),
    mimeType: first('m'),
    size: first('size'),
    dim: first('dim'),
    authors,
    description: first('summary'),
    uploader: first('p'),
    name,
  };
}
