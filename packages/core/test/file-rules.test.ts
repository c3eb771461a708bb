// The rule book for signed files (issue 40, item 3): judgeFileEvent, one planted fault per `file.*` code, in the
// verdicts and the Judgement shape of judgePage. The server's verify answers over HTTP: test/server/verify-codes.test.ts.
import { readFile } from 'node:fs/promises';
import { finalizeEvent, getEventHash } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import type { NostrEvent } from '../src/index.js';
import { type FileJudgeInput, judgeFileEvent, judgePage, PROBLEM_CODES } from '../src/verify/rules.js';

const KEY = Uint8Array.from(Buffer.from('7'.repeat(64), 'hex'));
const OTHER_KEY = Uint8Array.from(Buffer.from('8'.repeat(64), 'hex'));
const HASH = 'ab'.repeat(32);
const OTHER_HASH = 'cd'.repeat(32);

function signed(overrides: { kind?: number; tags?: string[][]; key?: Uint8Array } = {}): NostrEvent {
  return finalizeEvent(
    {
      kind: overrides.kind ?? 1063,
      created_at: 1_767_225_600,
      tags: overrides.tags ?? [
        ['x', HASH],
        ['m', 'image/png'],
      ],
      content: '“A photo” by Ana Lima',
    },
    overrides.key ?? KEY,
  );
}

/** The verdict and the codes, in order. */
function judge(input: Partial<FileJudgeInput>): string[] {
  const result = judgeFileEvent({ hash: HASH, event: { found: signed() }, ...input });
  return [result.verdict, ...result.problems.map((problem) => problem.code)];
}

describe('judgeFileEvent', () => {
  it('is valid for the signed file, its record and its bytes, and returns the event', () => {
    const event = signed();
    expect(judge({ event: { found: event }, file: { sha256: HASH }, recordMismatches: [] })).toEqual([
      'valid',
    ]);
    expect(judgeFileEvent({ hash: HASH, event: { found: event } })).toEqual({
      verdict: 'valid',
      problems: [],
      event,
    });
  });

  it('names each planted fault by its code', () => {
    const event = signed();
    // Another key's signature over the same id: the id still matches, the signature does not.
    const forged = { ...event, sig: signed({ key: OTHER_KEY }).sig };
    const altered = { ...event, content: '“A photo” by Mallory Forger' };
    const cases: Array<[string, Partial<FileJudgeInput>, string[]]> = [
      [
        'no event',
        { event: { missing: 'no file with this hash was signed here' } },
        ['not_found', 'file.not_found'],
      ],
      ['not an event', { event: { found: { kind: 1063 } } }, ['invalid', 'file.malformed', 'file.hash']],
      ['unreadable copy', { event: { malformed: 'not JSON' } }, ['invalid', 'file.malformed']],
      ['altered content', { event: { found: altered } }, ['invalid', 'file.event_id']],
      ['forged signature', { event: { found: forged } }, ['invalid', 'file.signature']],
      [
        'a note, not a file event',
        { event: { found: signed({ kind: 1, tags: [['x', HASH]] }) } },
        ['invalid', 'file.kind'],
      ],
      [
        'no x tag',
        { event: { found: signed({ tags: [['m', 'image/png']] }) } },
        ['invalid', 'file.kind', 'file.hash'],
      ],
      ['another file’s event', { hash: OTHER_HASH }, ['invalid', 'file.hash']],
      [
        'a stored field changed',
        { recordMismatches: ['`authors` does not match the signed event'] },
        ['invalid', 'file.record'],
      ],
      ['the bytes changed', { file: { sha256: OTHER_HASH, size: 3 } }, ['invalid', 'file.bytes']],
      [
        'the bytes are gone',
        { file: { unreadable: 'the stored file is missing' } },
        ['not_found', 'file.unreadable'],
      ],
    ];
    for (const [name, input, expected] of cases) expect(judge(input), name).toEqual(expected);
  });

  it('says what it compared in each message', () => {
    const { problems } = judgeFileEvent({
      hash: OTHER_HASH,
      event: { found: signed() },
      file: { sha256: HASH, size: 3 },
      recordMismatches: ['`title` does not match the signed event: stored `X`, signed `Y`.'],
    });
    expect(problems).toEqual([
      {
        code: 'file.hash',
        severity: 'error',
        message: `the event is for another file: its \`x\` tag is \`${HASH}\`, this file’s hash is \`${OTHER_HASH}\``,
      },
      {
        code: 'file.record',
        severity: 'error',
        message: '`title` does not match the signed event: stored `X`, signed `Y`.',
      },
      {
        code: 'file.bytes',
        severity: 'error',
        message: `the file’s bytes hash to \`${HASH}\` (3 bytes), not to the signed hash \`${OTHER_HASH}\``,
      },
    ]);
  });

  it('accepts any `x` tag equal to the hash, and only a string one', () => {
    expect(
      judge({
        event: {
          found: signed({
            tags: [
              ['x', OTHER_HASH],
              ['x', HASH],
            ],
          }),
        },
      }),
    ).toEqual(['valid']);
    const listed = signed();
    // A tag value that only stringifies to the hash is not the hash (the event is malformed as well).
    const odd = { ...listed, tags: [['x', [HASH]]] };
    expect(judge({ event: { found: odd } })).toEqual(['invalid', 'file.malformed', 'file.hash']);
  });

  it('runs the event checks of judgePage: the same faults fail there under `event.*`', () => {
    const event = signed();
    const forged = { ...event, sig: signed({ key: OTHER_KEY }).sig };
    const page = (found: unknown) => judgePage({ event: { found } }).problems.map((problem) => problem.code);
    expect(page(forged)).toEqual(['event.signature']);
    expect(judge({ event: { found: forged } })).toEqual(['invalid', 'file.signature']);
    // The checks it is given decide the id and the signature (the server passes its engine).
    const refusing = { computeId: getEventHash, verifySignature: () => false };
    expect(judge({ event: { found: event }, checks: refusing })).toEqual(['invalid', 'file.signature']);
  });

  it('has the `file.*` codes of PROBLEM_CODES, which @siegel/client types as its own copy', async () => {
    const file = Object.keys(PROBLEM_CODES).filter((code) => code.startsWith('file.'));
    expect(file.length).toBeGreaterThan(0);
    // The client has no dependency on core, so its union is a copy: it must name the same codes.
    const answers = await readFile(new URL('../../client/src/answers.ts', import.meta.url), 'utf8');
    const union = /export type FileProblemCode =([^;]+);/.exec(answers)?.[1] ?? '';
    const typed = [...union.matchAll(/'(file\.[a-z_]+)'/g)].map((match) => match[1]);
    expect(typed.sort()).toEqual(file.sort());
  });
});
