// A real S3-compatible server for the tests, run as its own process: @20minutes/s3rver (Koa, objects kept in
// a directory), which checks request signatures (V2 and V4, header and presigned query; never
// `allowMismatchedSignatures`) against the one key pair it is given. Not a fake: it answers what its S3
// implementation answers, never what a test expects.
//
//   node s3-server-process.mjs --port PORT --directory DIR --bucket NAME --access-key-id ID --secret-access-key SECRET
//
// What it does not check (found by probing it, unlike AWS S3): a PUT's Content-MD5 (a wrong one is stored
// without BadDigest) and the signed payload SHA-256 (x-amz-content-sha256 of other bytes is accepted).
//
// Prints `SIEGEL_S3_READY {"endpoint":"http://127.0.0.1:PORT"}` once listening; SIGTERM closes it.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    directory: { type: 'string' },
    bucket: { type: 'string' },
    'access-key-id': { type: 'string' },
    'secret-access-key': { type: 'string' },
  },
});
for (const name of ['port', 'directory', 'bucket', 'access-key-id', 'secret-access-key']) {
  if (values[name] === undefined) throw new Error(`s3-server-process.mjs needs --${name}`);
}

const require = createRequire(import.meta.url);

// s3rver signs a bucket request (`GET /BUCKET/?list-type=2`, path-style) over the path `/BUCKET`, where
// AWS S3 and the AWS SDK v3 use the path as sent, `/BUCKET/`: every ListObjectsV2 of the SDK would be refused
// with SignatureDoesNotMatch. Its signature check is wrapped (before s3rver loads it) to see the trailing
// slash; the check itself is s3rver's, unchanged.
const AUTHENTICATION = require.resolve('@20minutes/s3rver/lib/middleware/authentication.js');
const authentication = require(AUTHENTICATION);
require.cache[AUTHENTICATION].exports = () => {
  const check = authentication();
  return (ctx, next) => {
    const { bucket, key } = ctx.params;
    if (bucket === undefined || key || !ctx.path.endsWith(`/${bucket}/`)) return check(ctx, next);
    ctx.params.bucket = `${bucket}/`;
    const restore = () => {
      ctx.params.bucket = bucket;
    };
    return check(ctx, () => {
      restore();
      return next();
    }).finally(restore);
  };
};
const S3rver = require('@20minutes/s3rver');

// s3rver knows one hard-coded key pair (S3RVER/S3RVER) and no option for another: its account registry is
// the way in. The dummy pair is revoked, so only the pair given here signs valid requests.
const { DUMMY_ACCOUNT } = require('@20minutes/s3rver/lib/models/account.js');
DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
DUMMY_ACCOUNT.createKeyPair(values['access-key-id'], values['secret-access-key']);

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(values.port),
  directory: values.directory,
  silent: true,
  // Path-style requests only (http://127.0.0.1:PORT/BUCKET/KEY): no `BUCKET.localhost` host names.
  vhostBuckets: false,
  configureBuckets: [{ name: values.bucket }],
});
const address = await server.run();
console.log(`SIEGEL_S3_READY ${JSON.stringify({ endpoint: `http://127.0.0.1:${address.port}` })}`);

process.on('SIGTERM', () => {
  // Open keep-alive connections would hold close() up: end them, as a stopped server does.
  server.httpServer.closeAllConnections();
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
