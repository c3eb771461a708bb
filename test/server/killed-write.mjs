// A server's write killed between file and record (store-conformance.ts): signs one Markdown file through
// the built FileSigner on the stores the environment names, and SIGKILLs itself once the files are stored,
// as the record is about to be written. Its claim on the hash is left standing, as a crash leaves it.
import { LocalKeySigner } from '@siegel/core';
import { generateSecretKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { readServerConfig } from '../../server/dist/config/config.js';
import { FileSigner } from '../../server/dist/signing/file-signer.js';
import { openStores } from '../../server/dist/storage/open-stores.js';

const config = readServerConfig(process.env);
const { records, storage } = await openStores(config);
// The record store as the signer sees it, but its insert never comes: the process dies first.
const dying = new Proxy(records, {
  get(target, name) {
    if (name === 'insert') return () => process.kill(process.pid, 'SIGKILL');
    const value = Reflect.get(target, name);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
const signer = new FileSigner({
  signer: new LocalKeySigner(bytesToHex(generateSecretKey())),
  records: dying,
  claims: dying,
  storage,
  baseUrl: 'http://siegel.test',
  cdnUrl: 'http://siegel.test',
  claimLeaseMs: config.claimLeaseMs,
});
await signer.sign(new TextEncoder().encode(process.env.KILLED_WRITE_TEXT), 'killed.md');
console.error('the write was not killed');
process.exit(1);
