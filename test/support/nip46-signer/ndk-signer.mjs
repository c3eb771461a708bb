// An independent NIP-46 remote signer for the tests, run as its own process: NDK's `NDKNip46Backend`
// (@nostr-dev-kit/ndk — not Siegel's code) listening on a relay for kind 24133 requests. Our part is only
// the permission policy an app would have: `connect` must carry the one-time secret; afterwards only the
// client keys that connected may ask (`--refuse` denies every `sign_event`, `--deny-connect` every
// `connect`). NDK answers a denial with `error: "Not authorized"`.
//
//   node ndk-signer.mjs --relay ws://127.0.0.1:PORT --key HEX --secret S [--refuse] [--deny-connect]
//
// Prints `SIEGEL_NIP46_READY {"uri":"bunker://…","pubkey":"…"}` once subscribed, then one line
// `SIEGEL_NIP46_REQUEST {"method":…,"client":…,"allowed":…}` per request it decided on.
import { parseArgs } from 'node:util';
import NDK, { NDKNip46Backend, NDKPrivateKeySigner } from '@nostr-dev-kit/ndk';

const { values } = parseArgs({
  options: {
    relay: { type: 'string' },
    key: { type: 'string' },
    secret: { type: 'string' },
    refuse: { type: 'boolean', default: false },
    'deny-connect': { type: 'boolean', default: false },
  },
});
if (!values.relay || !values.key || !values.secret) {
  process.stderr.write(
    'usage: ndk-signer.mjs --relay URL --key HEX --secret S [--refuse] [--deny-connect]\n',
  );
  process.exit(2);
}

const connected = new Set();
const report = (method, client, allowed) =>
  process.stdout.write(`SIEGEL_NIP46_REQUEST ${JSON.stringify({ method, client, allowed })}\n`);

class Backend extends NDKNip46Backend {
  /** `connect`'s second parameter: the secret from the bunker:// URI, checked once per client key. */
  async applyToken(pubkey, token) {
    if (token === values.secret && !values['deny-connect']) connected.add(pubkey);
  }
}

const ndk = new NDK({ explicitRelayUrls: [values.relay] });
await ndk.connect(5000);
const signer = new NDKPrivateKeySigner(values.key);
const backend = new Backend(
  ndk,
  signer,
  async ({ pubkey, method }) =>
    method === 'connect'
      ? connected.has(pubkey)
      : connected.has(pubkey) && !(method === 'sign_event' && values.refuse),
  [values.relay],
);
// Every request NDK handles is reported (get_public_key too, which NDK answers without asking the policy).
for (const [method, strategy] of Object.entries(backend.handlers)) {
  backend.setStrategy(method, {
    async handle(self, id, client, params) {
      const result = await strategy.handle(self, id, client, params);
      report(method, client, result !== undefined);
      return result;
    },
  });
}
await backend.start();
const { pubkey } = await signer.user();
const uri = `bunker://${pubkey}?relay=${encodeURIComponent(values.relay)}&secret=${encodeURIComponent(values.secret)}`;
process.stdout.write(`SIEGEL_NIP46_READY ${JSON.stringify({ uri, pubkey })}\n`);

const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
