import type { EventTemplate } from 'nostr-tools/core';
import type { FileAnalysis } from './metadata/analyze-file.js';

/** NIP-94 "file metadata" event kind. */
export const FILE_EVENT_KIND = 1063;

/**
 * The NIP-94 (kind 1063) event template for a signed file. Tags: `url`, `m`, `x` and `ox` (the file's
 * SHA-256; nothing transformed it), `size`, `dim` (images), `alt` (a one-line description), `summary` (the
 * file's own description, when it has one), and one `["author", name]` tag per author. The content states
 * the same in words: `“{title}” by {authors}`, so a reader without tag knowledge sees who signed what.
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
  return { kind: FILE_EVENT_KIND, created_at: createdAt, tags, content: `“${name}” by ${by}` };
}

function describeKind(mimeType: string): string {
  if (mimeType.startsWith('image/')) return 'Image';
  if (mimeType === 'application/pdf') return 'PDF document';
  return 'Text';
}
