import {
  EXTENSION_README_URL as EXTENSION_URL,
  type PageAtUrl,
  SIGNED_CONTENT_FRAME_HEAD,
} from '@siegel/core';
import { isoTime } from '../records/describe-record.js';
import { Layout, LookupForm } from './layout.js';

const VERDICT_WORDS: Record<PageAtUrl['page']['verdict'], { text: string; css: string }> = {
  valid: { text: '✓ Valid: the signed content of this page is what its signer signed.', css: 'ok' },
  invalid: { text: '✗ Not valid: this page is not what its signer signed.', css: 'bad' },
  not_found: { text: '? Not found: the signature or its event could not be found.', css: 'bad' },
};

const NIP05_WORDS = {
  confirmed: 'confirmed by its domain',
  unconfirmed: 'not confirmed: its domain names another key or none',
  unreachable: 'not confirmed: its domain could not be asked',
} as const;

/**
 * `/verify?url=`: a form for an address and, once checked, what the server found there — the verdict, every
 * problem with its code and words, who signed (npub, NIP-05 and its state), when, what "valid" covers, and
 * the signed content rendered in a frame that runs nothing and loads nothing, and as text. Everything the
 * page and relays supplied is text to JSX (escaped); the content reaches the frame only as `srcdoc`.
 * `data-verdict` and `data-codes` on `#result` are for tools reading the page.
 */
export function PageCheckPage(props: { url?: string; checked?: PageAtUrl; error?: string; server: string }) {
  const { checked } = props;
  return (
    <Layout title="Verify a page">
      <h1>Verify a page</h1>
      <LookupForm
        id="url-form"
        name="url"
        label="The address of a signed page"
        value={props.url}
        error={props.error}
      />
      {checked === undefined ? '' : <PageCheckResult checked={checked} server={props.server} />}
    </Layout>
  );
}

function PageCheckResult(props: { checked: PageAtUrl; server: string }) {
  const { page, event, signer, content } = props.checked;
  const verdict = VERDICT_WORDS[page.verdict];
  return (
    <section
      id="result"
      data-verdict={page.verdict}
      data-codes={[...new Set(page.problems.map((problem) => problem.code))].join(' ')}
    >
      <p class={`verdict ${verdict.css}`}>{verdict.text}</p>
      <p id="received">
        This is what the server <code>{props.server}</code> received when it fetched the page at{' '}
        {new Date(props.checked.checkedAt).toISOString()}. A site can tell this server apart from your browser
        and send each another page. How stylesheets make the page look and what its scripts change are judged
        only in your own browser: the <a href={EXTENSION_URL}>Siegel browser extension</a> checks the page as
        you see it.
      </p>
      <p id="coverage">{props.checked.coverage}</p>
      {page.problems.length === 0 ? (
        ''
      ) : (
        <ul id="problems">
          {page.problems.map((problem) => (
            <li class={problem.severity === 'error' ? 'bad' : ''}>
              <code class="code">{problem.code}</code> ({problem.severity}): {problem.message}
            </li>
          ))}
        </ul>
      )}
      <dl>
        <dt>Page</dt>
        <dd>
          <code id="result-url">{page.page}</code>
        </dd>
        {event?.title === undefined ? (
          ''
        ) : (
          <>
            <dt>Title</dt>
            <dd id="result-title">{event.title}</dd>
          </>
        )}
        <dt>Signed by</dt>
        <dd>
          <code id="result-npub">{signer?.npub ?? event?.npub ?? '(unknown)'}</code>
        </dd>
        <dt>NIP-05</dt>
        <dd id="result-nip05">
          {signer?.nip05 === undefined ? (
            'none named'
          ) : (
            <>
              <code>{signer.nip05.name}</code> — {NIP05_WORDS[signer.nip05.state]}
              {signer.nip05.reason === undefined ? '' : ` (${signer.nip05.reason})`}
            </>
          )}
        </dd>
        <dt>Signed at</dt>
        <dd id="result-signed-at">{event === undefined ? '(unknown)' : isoTime(event.created_at)}</dd>
        <dt>Event</dt>
        <dd>
          <code id="result-event">{event?.id ?? page.found.eventId ?? '(none)'}</code>
          {page.eventFrom === undefined ? (
            ''
          ) : (
            <>
              {' '}
              from <code>{page.eventFrom}</code>
            </>
          )}
        </dd>
      </dl>
      {content === undefined ? (
        ''
      ) : (
        <section id="content">
          <h2>What was signed</h2>
          <p>
            The signed element’s content as the server received it, rendered without scripts, without the
            site’s stylesheets and without the network, so it may look plainer than the page; its text and its
            HTML source follow.
          </p>
          <iframe
            id="content-frame"
            sandbox=""
            title="The signed content, rendered without scripts, site stylesheets or network"
            srcdoc={SIGNED_CONTENT_FRAME_HEAD + content.html}
          />
          <pre id="content-text">{content.text}</pre>
          <details>
            <summary>HTML source</summary>
            <pre id="content-html">{content.html}</pre>
          </details>
        </section>
      )}
    </section>
  );
}
