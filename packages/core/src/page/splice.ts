/** Where a signature block goes in a page: insert at `insertAt`, or replace `existingBlock`. */
export interface BlockPlace {
  insertAt: number;
  existingBlock?: { start: number; end: number };
}

function byteOffset(html: string, offset: number): number {
  return Buffer.byteLength(html.slice(0, offset), 'utf8');
}

/** The same place in UTF-8 byte offsets (for splicing the raw file without decoding it). */
export function toBytePlace(html: string, place: BlockPlace, byteLength: number): BlockPlace {
  if (byteLength === html.length) return place; // ASCII: the offsets are the same
  return {
    insertAt: byteOffset(html, place.insertAt),
    ...(place.existingBlock
      ? {
          existingBlock: {
            start: byteOffset(html, place.existingBlock.start),
            end: byteOffset(html, place.existingBlock.end),
          },
        }
      : {}),
  };
}

/**
 * `applySignatureBlock` on raw UTF-8 bytes: replace the existing block, or insert the block and a newline.
 * Returns `undefined` when the offsets do not fit the bytes (the caller falls back to parsing).
 */
export function spliceBlockBytes(bytes: Uint8Array, place: BlockPlace, block: string): Buffer | undefined {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fits = (n: number) => Number.isInteger(n) && n >= 0 && n <= buffer.length;
  if (place.existingBlock) {
    const { start, end } = place.existingBlock;
    if (!fits(start) || !fits(end) || start > end) return undefined;
    return Buffer.concat([buffer.subarray(0, start), Buffer.from(block, 'utf8'), buffer.subarray(end)]);
  }
  if (!fits(place.insertAt)) return undefined;
  return Buffer.concat([
    buffer.subarray(0, place.insertAt),
    Buffer.from(`${block}\n`, 'utf8'),
    buffer.subarray(place.insertAt),
  ]);
}
