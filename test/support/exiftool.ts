// One exiftool process for many commands: exiftool's own batch mode (`-stay_open True -@ -`), where each
// command's arguments arrive one per line on stdin and `-execute` runs them. exiftool is a Perl program
// that takes about half a second of CPU to start; the writer tests ran it 177 times per run, one process
// each. The files it writes and reads are the same as from a command line.
//
// What the argument file format cannot carry (a newline in an argument, white space at either end, a
// leading `#`) is refused rather than changed. A command that prints `Error:` rejects with what it printed,
// as a non-zero exit of a single exiftool did.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export class ExifTool {
  readonly #child: ChildProcessWithoutNullStreams;
  #stdout = Buffer.alloc(0);
  #stderr = '';
  #next = 1;
  /** The command running now, and those waiting behind it. */
  #queue: Promise<unknown> = Promise.resolve();
  #waiter: (() => void) | undefined;
  #ended = false;

  constructor() {
    this.#child = spawn('exiftool', ['-stay_open', 'True', '-@', '-']);
    this.#child.stdout.on('data', (chunk: Buffer) => {
      this.#stdout = Buffer.concat([this.#stdout, chunk]);
      this.#waiter?.();
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
      this.#waiter?.();
    });
    this.#child.once('close', () => {
      this.#ended = true;
      this.#waiter?.();
    });
  }

  /** Run one exiftool command (the arguments of one command line); resolves with what it wrote to stdout. */
  run(args: readonly string[]): Promise<Buffer> {
    for (const arg of args) {
      if (/[\r\n]/.test(arg) || arg.trim() !== arg || arg.startsWith('#'))
        throw new Error(`exiftool's argument file cannot carry ${JSON.stringify(arg)}`);
    }
    const result = this.#queue.then(() => this.#execute(args));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #execute(args: readonly string[]): Promise<Buffer> {
    const n = this.#next++;
    const ready = Buffer.from(`{ready${n}}\n`);
    const done = `{done${n}}\n`;
    // -echo4 prints to stderr after the command ran: everything before it on stderr is this command's.
    this.#child.stdin.write(`${[...args, '-echo4', `{done${n}}`].join('\n')}\n-execute${n}\n`);
    for (;;) {
      const end = this.#stdout.indexOf(ready);
      const errEnd = this.#stderr.indexOf(done);
      if (end !== -1 && errEnd !== -1) {
        const stdout = this.#stdout.subarray(0, end);
        this.#stdout = this.#stdout.subarray(end + ready.length);
        const stderr = this.#stderr.slice(0, errEnd);
        this.#stderr = this.#stderr.slice(errEnd + done.length);
        if (/^Error/m.test(stderr)) throw new Error(`exiftool ${args.join(' ')}:\n${stderr.trim()}`);
        return Buffer.from(stdout);
      }
      if (this.#ended) throw new Error(`exiftool ended during \`${args.join(' ')}\`:\n${this.#stderr}`);
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
      this.#waiter = undefined;
    }
  }

  /** End the process (`-stay_open False`) and wait for it. */
  async close(): Promise<void> {
    if (this.#ended) return;
    const closed = new Promise((resolve) => this.#child.once('close', resolve));
    this.#child.stdin.end('-stay_open\nFalse\n');
    await closed;
  }
}
