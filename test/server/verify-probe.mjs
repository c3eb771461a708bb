// A worker thread that asks `GET {url}` over and over, one request at a time on a keep-alive connection,
// and times every answer — in a thread of its own, so the test's own work cannot delay it. It stops on the
// message `'stop'` and answers with a summary: how many answers, their statuses, the slowest (including a
// request still unanswered at the stop), and when it took place (ms after the probe started).
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const started = performance.now();
const statuses = {};
let count = 0;
let slowest = 0;
let slowestAt = 0;
let stopping = false;
let pending;

function get() {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

// The summary is sent at once on 'stop', even while a request is unanswered (a frozen server answers none).
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  stopping = true;
  const unanswered = pending === undefined ? 0 : performance.now() - pending;
  parentPort.postMessage({
    count,
    statuses,
    slowestMs: Math.max(slowest, unanswered),
    slowestAtMs: unanswered > slowest ? pending - started : slowestAt,
    durationMs: performance.now() - started,
  });
  agent.destroy();
  process.exit(0);
});

while (!stopping) {
  const before = performance.now();
  pending = before;
  let status;
  try {
    status = await get();
  } catch (error) {
    status = `error: ${error.message}`;
  }
  pending = undefined;
  const took = performance.now() - before;
  statuses[status] = (statuses[status] ?? 0) + 1;
  count++;
  if (took > slowest) {
    slowest = took;
    slowestAt = before - started;
  }
  if (count === 1) parentPort.postMessage({ first: true });
  // Let the 'stop' message in between requests.
  await new Promise((resolve) => setImmediate(resolve));
}
