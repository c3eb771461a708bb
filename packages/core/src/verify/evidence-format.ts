// The evidence file's format, `siegel-evidence/1` (docs/verification.md, "Evidence files"): its shape as a
// strict schema, its limits, and reading one back (`readEvidence`). evidence.ts writes it (the browser
// extension's "Save evidence"), evidence-check.ts re-checks it offline (`siegel verify --evidence`). Pure:
// no Node built-ins, so the extension can bundle it.
import { z } from 'zod';
import { SiegelError } from '../errors.js';

/** The `format` of an evidence file. */
export const EVIDENCE_FORMAT = 'siegel-evidence/1';

/**
 * Bounds of an evidence file: its size as read (a 32 MiB page, base64, with its events and manifests), and
 * the relay answers and site files it may record (each a lookup the extension made for one page).
 */
export const EVIDENCE_LIMITS = { maxBytes: 64 * 1024 * 1024, maxRelayAnswers: 200, maxFiles: 2_000 } as const;

/**
 * Whether a problem code is one only a reader's browser can find — what it saw live (`live.*`) and what it
 * knew of the signer (`signer.new`, trust on first use) — which evidence records as observed then, and
 * `siegel verify --evidence` shows without re-deriving. Every other code is the rule book's, re-derived.
 *
 * @example
 * ```ts
 * isObservedOnly('live.changed'); // true
 * isObservedOnly('hash.mismatch'); // false
 * ```
 */
export function isObservedOnly(code: string): boolean {
  return code.startsWith('live.') || code === 'signer.new';
}

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex characters');
const problem = z.object({
  code: z.string().regex(/^[a-z0-9_]+\.[a-z0-9_]+$/, '`area.what`'),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
});
const verdict = z.enum(['valid', 'invalid', 'not_found']);

/** One relay's answer to one query, as the extension got it (events that counted: id and signature checked). */
const relayAnswer = z.object({
  /** What the query was for: `event`, `manifest`, `relay-list`, `profile`, … (words for people). */
  purpose: z.string(),
  relay: z.string(),
  filter: z.record(z.string(), z.unknown()),
  events: z.array(z.unknown()),
  /** Why the query did not end with `EOSE` (cannot connect, too slow, stopped). */
  error: z.string().optional(),
  /** Events the relay sent that did not count. */
  rejected: z.number().int().nonnegative(),
});

/** A file of the site the manifest gathering read: a manifest file's bytes, any other file's hash only. */
const siteFile = z.object({
  path: z.string(),
  body: base64.optional(),
  sha256: hex64.optional(),
  error: z.string().optional(),
});

/** A blob-layout manifest's path list from a Blossom server of its `server` tags. */
const blob = z.object({
  server: z.string(),
  sha256: hex64,
  body: base64.optional(),
  error: z.string().optional(),
});

/** The one call of the manifest gathering (manifest-evidence.ts) and everything it read, to replay it. */
const manifestRecord = z.object({
  /** The extension's own relays, asked for the newest manifest. */
  relays: z.array(z.string()),
  /** The page's relay hints, as passed. */
  hints: z.array(z.string()),
  /** Relays (hints, NIP-65) the address rules allowed. */
  allowedRelays: z.array(z.string()),
  /** The page address and site guess the gathering was called with. */
  page: z.string(),
  siteGuess: z.string().optional(),
  chunks: z.boolean(),
  alsoCheck: z.array(z.string()),
  files: z.array(siteFile).max(EVIDENCE_LIMITS.maxFiles),
  blobs: z.array(blob).max(EVIDENCE_LIMITS.maxFiles),
});

const evidenceSchema = z.object({
  format: z.literal(EVIDENCE_FORMAT),
  /** When the extension recorded it (ISO 8601). */
  recordedAt: z.iso.datetime({ offset: true }),
  /** What recorded it (`@siegel/extension 0.1.0`). */
  recordedBy: z.string().optional(),
  selector: z.string(),
  page: z.object({
    /** The URL the served bytes were fetched from (after redirects). */
    url: z.string(),
    /** The address the page was judged at (the tab's). */
    address: z.string(),
    status: z.number().int(),
    /** Response headers, names in lower case; never `set-cookie`. */
    headers: z.record(z.string(), z.string()),
    /** The served bytes, base64. */
    body: base64,
  }),
  /** The page's event as judged: found (and where), missing, or malformed. */
  event: z.union([
    z.object({ found: z.unknown(), from: z.string().optional() }),
    z.object({ missing: z.string() }),
    z.object({ malformed: z.string() }),
  ]),
  /** The signer the reader expected (pinned: hex pubkey, and the NIP-05 name it came from). */
  expected: z.object({ pubkey: hex64.optional(), nip05: z.string().optional() }).optional(),
  relays: z.array(relayAnswer).max(EVIDENCE_LIMITS.maxRelayAnswers),
  manifest: manifestRecord.optional(),
  /** The signer's NIP-05 name and what its domain answered then. */
  nip05: z
    .object({
      name: z.string(),
      pubkey: hex64.optional(),
      confirmed: z.boolean(),
      detail: z.string().optional(),
    })
    .optional(),
  /** What the reader's browser knew of the signer for this origin (trust on first use). */
  signer: z.object({ pubkey: hex64, trust: z.string(), detail: z.string().optional() }).optional(),
  /** What the reader's browser found live (`live.*`): observed then, not re-checkable. */
  live: z.array(problem),
  /** The extension's verdict, its state word and every problem it gave. */
  verdict: z.object({ verdict, state: z.string().optional(), problems: z.array(problem) }),
});

/** An evidence file, `siegel-evidence/1`. */
export type Evidence = z.infer<typeof evidenceSchema>;
/** One relay answer of an evidence file. */
export type EvidenceRelayAnswer = z.infer<typeof relayAnswer>;
/** The manifest gathering an evidence file records. */
export type EvidenceManifestRecord = z.infer<typeof manifestRecord>;

/**
 * Read an evidence file: JSON, `"format": "siegel-evidence/1"`, every field as the format says, at most
 * {@link EVIDENCE_LIMITS}`.maxBytes`.
 *
 * @example
 * ```ts
 * const evidence = readEvidence(await readFile('evidence.json'));
 * ```
 * @throws {SiegelError} `invalid_options` naming what is wrong (not JSON, another format, a bad field, too big).
 */
export function readEvidence(input: string | Uint8Array): Evidence {
  const size = typeof input === 'string' ? input.length : input.byteLength;
  if (size > EVIDENCE_LIMITS.maxBytes)
    throw new SiegelError(
      'invalid_options',
      `the evidence file is larger than ${EVIDENCE_LIMITS.maxBytes} bytes, the most \`siegel verify --evidence\` reads`,
    );
  let value: unknown;
  try {
    value = JSON.parse(typeof input === 'string' ? input : new TextDecoder().decode(input));
  } catch (error) {
    throw new SiegelError('invalid_options', `the evidence file is not JSON: ${(error as Error).message}`);
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (format !== EVIDENCE_FORMAT)
    throw new SiegelError(
      'invalid_options',
      `the file is not Siegel evidence: its \`format\` is ${typeof format === 'string' ? `\`${format.slice(0, 100)}\`` : 'missing'}, expected \`${EVIDENCE_FORMAT}\``,
    );
  const parsed = evidenceSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(top)';
    throw new SiegelError(
      'invalid_options',
      `the evidence file is not valid \`${EVIDENCE_FORMAT}\`: \`${where}\`: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
