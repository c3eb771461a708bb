import { afterEach, describe, expect, it, vi } from 'vitest';
import { signSite } from '../src/pipeline/sign-site.js';
import { createProgressLine } from '../src/text/progress-line.js';
import { verifySite } from '../src/verify/verify-site.js';
import { CountingSigner, collectingLogger, createFixtureProject, KEY_A } from './support/site-fixture.js';

/** A stand-in for a terminal: records what is written. */
function fakeTty(isTTY = true): { isTTY: boolean; output: string[]; write(chunk: string): boolean } {
  const output: string[] = [];
  return {
    isTTY,
    output,
    write(chunk: string) {
      output.push(chunk);
      return true;
    },
  };
}

describe('progress line', () => {
  it('rewrites one line in place, throttled, always showing the last page, then clears it', () => {
    const stream = fakeTty();
    let time = 0;
    const progress = createProgressLine(250, { enabled: true, stream, intervalMs: 200, now: () => time });
    for (let i = 0; i < 250; i++) {
      progress.tick();
      time += 10; // 250 ticks over 2.5 s
    }
    progress.done();
    const { output } = stream;
    expect(output[0]).toBe('\rSiegel: 1/250 pages');
    expect(output.at(-2)).toBe('\rSiegel: 250/250 pages');
    expect(output.at(-1)).toBe('\r\u001b[K');
    // Every 200 ms (20 ticks) plus the last: not one write per page.
    expect(output.length).toBeGreaterThan(10);
    expect(output.length).toBeLessThan(20);
    for (const line of output.slice(0, -1)) expect(line).toMatch(/^\rSiegel: \d+\/250 pages$/);
  });

  it('writes nothing when disabled or for short runs', () => {
    const off = fakeTty();
    const disabled = createProgressLine(500, { enabled: false, stream: off });
    for (let i = 0; i < 500; i++) disabled.tick();
    disabled.done();
    const short = createProgressLine(99, { enabled: true, stream: off });
    for (let i = 0; i < 99; i++) short.tick();
    short.done();
    expect(off.output).toEqual([]);
  });
});

describe('signSite progress on a terminal', () => {
  const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  let cleanup: (() => Promise<void>) | undefined;
  let projectDist = '';
  afterEach(async () => {
    vi.restoreAllMocks();
    if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    await cleanup?.();
  });

  async function signWithStderr(isTTY: boolean, progress?: boolean): Promise<string> {
    const pages: Record<string, string> = {};
    for (let i = 0; i < 120; i++) pages[`p${i}.html`] = `<title>P${i}</title><main><p>page ${i}</p></main>`;
    const project = await createFixtureProject(pages);
    cleanup = project.cleanup;
    projectDist = project.dist;
    Object.defineProperty(process.stderr, 'isTTY', { value: isTTY, configurable: true });
    let written = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });
    const { logger } = collectingLogger();
    const summary = await signSite(project.dist, {
      site: 'https://example.com',
      signer: new CountingSigner(KEY_A),
      cacheFile: project.cacheFile,
      logger,
      parseWorkers: 0,
      ...(progress === undefined ? {} : { progress }),
    });
    expect(summary.signed).toBe(120);
    return written;
  }

  it('shows `Siegel: n/total pages` on stderr when stderr is a terminal', async () => {
    const written = await signWithStderr(true);
    expect(written).toContain('\rSiegel: 120/120 pages');
    expect(written.endsWith('\r\u001b[K')).toBe(true);
  });

  it('stays silent when stderr is not a terminal, unless asked with `progress: true`', async () => {
    expect(await signWithStderr(false)).toBe('');
    await cleanup?.();
    expect(await signWithStderr(false, true)).toContain('\rSiegel: 120/120 pages');
  });

  it('verifySite shows the same line for a directory when stderr is a terminal (issue 39)', async () => {
    expect(await signWithStderr(false)).toBe('');
    const dist = projectDist;
    const verifyWithStderr = async (isTTY: boolean) => {
      Object.defineProperty(process.stderr, 'isTTY', { value: isTTY, configurable: true });
      let written = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written += String(chunk);
        return true;
      });
      const report = await verifySite(dist, { site: 'https://example.com', parseWorkers: 0 });
      expect(report).toMatchObject({ ok: true, valid: 120 });
      return written;
    };
    const shown = await verifyWithStderr(true);
    expect(shown).toContain('\rSiegel: 120/120 pages');
    expect(shown.endsWith('\r\u001b[K')).toBe(true);
    expect(await verifyWithStderr(false)).toBe('');
  });
});
