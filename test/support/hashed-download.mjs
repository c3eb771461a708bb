// A download hashed as it arrives, for the download tests and bench/server/download-memory.mjs (plain JS so
// the bench runs it without a build).
import { createHash } from 'node:crypto';
import { request } from 'node:http';

/**
 * GET `url` on a connection of its own and hash the body as it arrives (never held whole); resolves with the
 * status, the headers, the body's length and SHA-256, and `cutOff`: the response ended before its end (the
 * server cut it off, or the connection broke).
 */
export function hashedDownload(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const hash = createHash('sha256');
      let length = 0;
      const answer = (cutOff) =>
        resolve({ status: res.statusCode, headers: res.headers, length, sha256: hash.digest('hex'), cutOff });
      res.on('data', (chunk) => {
        hash.update(chunk);
        length += chunk.length;
      });
      res.on('end', () => answer(false));
      res.on('error', () => answer(true));
    });
    req.on('error', reject);
    req.end();
  });
}
