import { constants, createDeflateRaw } from 'node:zlib';

/**
 * A raw-deflate block (not final, ending on a byte boundary) that unpacks to 1 MiB of zeros: repeated, it
 * makes a decompression bomb of any size (wrap it in a gzip or zlib header and trailer as the test needs).
 */
export function zeroBlock(): Promise<Buffer> {
  return new Promise((resolve) => {
    const deflate = createDeflateRaw({ level: 9 });
    const parts: Buffer[] = [];
    deflate.on('data', (part: Buffer) => parts.push(part));
    deflate.write(Buffer.alloc(1024 * 1024));
    deflate.flush(constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(parts)));
  });
}
