import { type ChildProcess, spawn } from 'node:child_process';

/** A Node script started by {@link spawnUntilReady}, once it printed its ready line. */
export interface ReadyProcess<T> {
  /** The JSON of its ready line. */
  ready: T;
  child: ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Run `node ARGS` (this Node) and wait up to 20 s for a stdout line matching `ready` (one capture group: a
 * JSON object). Fails with everything the process wrote if it exits first or takes longer; `what` names it.
 */
export async function spawnUntilReady<T>(
  args: string[],
  ready: RegExp,
  what: string,
): Promise<ReadyProcess<T>> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const value = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = ready.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve(JSON.parse(match[1]) as T);
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${what} exited before it was ready:\n${out}`));
    });
  });
  return {
    ready: value,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
