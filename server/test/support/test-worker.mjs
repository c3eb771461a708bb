// A worker for the WorkerPool tests, speaking the pool's protocol: `{ ready: true }` once loaded, then one
// answer `{ id, result }` per `{ id, task }`. Tasks: `{ sleep: ms }` (blocks its thread without using the
// CPU, then answers), `{ burn: ms }` (uses that much CPU time, then answers),
// `{ spin: true }` (never answers), `{ throw: message }` (an uncaught error), `{ grow: true }` (allocates
// until its heap runs out), `{ echo: ArrayBuffer }` (answers with the buffer's length and moves it back).
import { parentPort } from 'node:worker_threads';

const port = parentPort;
port.on('message', ({ id, task }) => {
  if (task.sleep !== undefined) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, task.sleep);
    port.postMessage({ id, result: { slept: task.sleep } });
  } else if (task.burn !== undefined) {
    const used = () => {
      const { user, system } = process.threadCpuUsage();
      return user + system;
    };
    const until = used() + task.burn * 1000;
    while (used() < until);
    port.postMessage({ id, result: { burnt: task.burn } });
  } else if (task.spin) {
    for (;;);
  } else if (task.throw !== undefined) {
    throw new Error(task.throw);
  } else if (task.grow) {
    const hoard = [];
    for (;;) hoard.push(new Array(100_000).fill(hoard.length));
  } else if (task.echo !== undefined) {
    port.postMessage({ id, result: { length: task.echo.byteLength, buffer: task.echo } }, [task.echo]);
  }
});
port.postMessage({ ready: true });
