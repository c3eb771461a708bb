#!/usr/bin/env node
// The optimizer's web form: `node web.mjs` (PORT, default 3000; PORT=0 picks a free port; HOST, default
// 127.0.0.1). SIEGEL_SERVER_URL and SIEGEL_SIGN_TOKEN name the Siegel server and its sign token, which stays
// in this process: the browser never sees it.
import { createFormServer } from './src/form-server.mjs';

const server = process.env.SIEGEL_SERVER_URL;
const token = process.env.SIEGEL_SIGN_TOKEN;
if (!server || !token) {
  console.error('Set SIEGEL_SERVER_URL (the Siegel server) and SIEGEL_SIGN_TOKEN (one of its sign tokens).');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const http = createFormServer({ server, token });
http.listen(port, host, () => {
  const address = /** @type {import('node:net').AddressInfo} */ (http.address());
  console.log(`Image optimizer form at http://${host}:${address.port}/`);
});
const stop = () => http.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
