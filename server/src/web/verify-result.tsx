import { isoTime, npubOf } from '../records/describe-record.js';
import type { FileUrls } from '../records/public-urls.js';
import { judgeUnknownHash, type RecordVerdict } from '../records/verify-record.js';
import type { SignedFileRecord } from '../storage/record-store.js';
import { describeSigning } from './event-page.js';

/**
 * The verdict on a signed file, as the verify pages show it (all text escaped by JSX). `record` is the record
 * as its signed event states it (`bindRecord`); the reasons name any stored field or file that disagrees,
 * and the problem codes (`file.*`, docs/verification.md) are listed and set on `#result` as `data-verdict`
 * and `data-codes` (space-separated), for a tool reading the page.
 */
export function VerifyResult(props: {
  record: SignedFileRecord;
  verdict: RecordVerdict;
  urls: FileUrls;
  /** The relays that have taken the event so far (none: the row is left out). */
  publishedTo?: readonly string[];
}) {
  const { record, verdict, urls, publishedTo = [] } = props;
  return (
    <section
      id="result"
      data-verified={String(verdict.verified)}
      data-verdict={verdict.verdict}
      data-codes={codesOf(verdict.problems)}
    >
      {verdict.verified ? (
        <p class="verdict ok">✓ Verified: this exact file was signed.</p>
      ) : (
        <p class="verdict bad">✗ Not verified: the stored record no longer matches its signature.</p>
      )}
      <p class="statement">{describeSigning(record)}</p>
      {verdict.reasons.length === 0 ? (
        ''
      ) : (
        <ul class="reasons">
          {verdict.reasons.map((reason) => (
            <li>{reason}</li>
          ))}
        </ul>
      )}
      <dl>
        <dt>Author</dt>
        <dd id="result-author">{record.authors.join(', ')}</dd>
        <dt>Title</dt>
        <dd id="result-title">{record.title ?? record.fileName}</dd>
        <dt>Signer</dt>
        <dd>
          <code>{npubOf(record.pubkey)}</code>
        </dd>
        <dt>Signed at</dt>
        <dd>{isoTime(record.event.created_at)}</dd>
        <dt>SHA-256</dt>
        <dd>
          <code id="result-hash">{record.hash}</code>
        </dd>
        {publishedTo.length === 0 ? (
          ''
        ) : (
          <>
            <dt>On relays</dt>
            <dd id="result-relays">{publishedTo.join(', ')}</dd>
          </>
        )}
        <dt>Checks</dt>
        <dd>
          {[
            ['event id', verdict.checks.event_id],
            ['signature', verdict.checks.signature],
            ['hash tag', verdict.checks.hash_tag],
            ['stored fields', verdict.checks.fields],
            ['file bytes', verdict.checks.file],
          ]
            .map(([name, ok]) => `${name} ${ok ? '✓' : '✗'}`)
            .join(' · ')}
        </dd>
        <ProblemCodes problems={verdict.problems} />
      </dl>
      <ul>
        <li>
          <a href={urls.file}>The file</a>
        </li>
        <li>
          <a href={urls.static_page}>Event page</a>
        </li>
        <li>
          <a href={urls.event_page}>Verify page of this event</a>
        </li>
        <li>
          <a href={urls.verify_api}>Verify API (JSON)</a>
        </li>
      </ul>
      <details>
        <summary>Raw Nostr event</summary>
        <pre>{JSON.stringify(record.event, null, 2)}</pre>
      </details>
    </section>
  );
}

/** What the verify page says about a hash nobody signed here. */
export function NotFoundResult(props: { hash: string }) {
  const { verdict, problems } = judgeUnknownHash(props.hash);
  return (
    <section id="result" data-verified="false" data-verdict={verdict} data-codes={codesOf(problems)}>
      <p class="verdict bad">✗ Not found: no file with this hash was signed here.</p>
      <p>
        SHA-256 <code id="result-hash">{props.hash}</code>. A file changed in any way — even one byte — has
        another hash. <a href="/tools/sign">Sign a file</a>.
      </p>
      <dl>
        <ProblemCodes problems={problems} />
      </dl>
    </section>
  );
}

/** The problems' codes, space-separated, each once, in order (`data-codes`). */
function codesOf(problems: RecordVerdict['problems']): string {
  return [...new Set(problems.map((problem) => problem.code))].join(' ');
}

/** The `Problems` row: each code, its message as the title (none: no row). */
function ProblemCodes(props: { problems: RecordVerdict['problems'] }) {
  if (props.problems.length === 0) return '';
  return (
    <>
      <dt>Problems</dt>
      <dd id="result-codes">
        {props.problems.map((problem) => (
          <>
            <code class="code" title={problem.message}>
              {problem.code}
            </code>{' '}
          </>
        ))}
      </dd>
    </>
  );
}
