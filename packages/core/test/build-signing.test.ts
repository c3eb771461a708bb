import { describe, expect, it } from 'vitest';
import { SiegelError, type SignSummary } from '../src/index.js';
import { handleSigningError, runBuildSigning } from '../src/integration/integration.js';

const WARN_TAIL = "\nThe build finished without signatures (onError: 'warn').";

function collectWarnings() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (message: string) => warnings.push(message) } };
}

function summaryOf(pages: SignSummary['pages']): SignSummary {
  const count = (outcome: string) => pages.filter((page) => page.outcome === outcome).length;
  return {
    signed: count('signed'),
    unchanged: count('unchanged'),
    skipped: count('skipped'),
    refused: count('refused'),
    failed: count('failed'),
    pages,
  };
}

describe('runBuildSigning', () => {
  it('returns the summary of a run without failures and warns about nothing', async () => {
    const { warnings, logger } = collectWarnings();
    const summary = summaryOf([{ path: 'index.html', outcome: 'signed', eventId: 'e1' }]);
    await expect(runBuildSigning(async () => summary, { logger })).resolves.toBe(summary);
    expect(warnings).toEqual([]);
  });

  it('fails by default, with the failed count and the first failed page’s reason', async () => {
    const { warnings, logger } = collectWarnings();
    const summary = summaryOf([
      { path: 'a.html', outcome: 'signed', eventId: 'e1' },
      { path: 'b.html', outcome: 'failed', error: 'Cannot write `b.html`' },
      { path: 'c.html', outcome: 'failed', error: 'Cannot write `c.html`' },
    ]);
    const failing = runBuildSigning(async () => summary, { logger });
    await expect(failing).rejects.toThrow(/^2 page\(s\) could not be signed: Cannot write `b.html`$/);
    await expect(failing).rejects.toMatchObject({ code: 'bunker_error' });
    expect(warnings).toEqual([]);
  });

  it("rethrows the step's own error unchanged with onError: 'fail'", async () => {
    const error = new SiegelError('token_missing', 'BUNKER_API_TOKEN nicht gesetzt');
    const { logger } = collectWarnings();
    await expect(
      runBuildSigning(
        async () => {
          throw error;
        },
        { onError: 'fail', logger },
      ),
    ).rejects.toBe(error);
  });

  it("turns any error into one warning with onError: 'warn' and resolves undefined", async () => {
    const { warnings, logger } = collectWarnings();
    const thrown = runBuildSigning(
      async () => {
        throw new SiegelError('key_locked', 'Key ist gesperrt');
      },
      { onError: 'warn', logger },
    );
    await expect(thrown).resolves.toBeUndefined();
    const failed = runBuildSigning(
      async () => summaryOf([{ path: 'x.html', outcome: 'failed', error: 'boom' }]),
      { onError: 'warn', logger },
    );
    await expect(failed).resolves.toBeUndefined();
    expect(warnings).toEqual([
      `Key ist gesperrt${WARN_TAIL}`,
      `1 page(s) could not be signed: boom${WARN_TAIL}`,
    ]);
  });
});

describe('handleSigningError', () => {
  it('throws the error itself by default and warns with the message otherwise (non-Error values too)', () => {
    const { warnings, logger } = collectWarnings();
    const error = new Error('Key nicht gefunden');
    expect(() => handleSigningError(error, { logger })).toThrow(error);
    handleSigningError(error, { onError: 'warn', logger });
    handleSigningError('plain text', { onError: 'warn', logger });
    expect(warnings).toEqual([`Key nicht gefunden${WARN_TAIL}`, `plain text${WARN_TAIL}`]);
  });
});
