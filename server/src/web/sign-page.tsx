import { Layout } from './layout.js';

/** `/tools/sign`: enter the token, drop a file, see its author and title (`POST /api/inspect`), sign it. */
export function SignPage(props: { maxUploadBytes: number }) {
  return (
    <Layout title="Sign a file" scripts={['/assets/sign.js']}>
      <h1>Sign a file</h1>
      <p>
        Images (WebP, PNG, JPEG, GIF), PDFs and Markdown/TXT files are signed with the author's Nostr key when
        the file names its author: XMP <code>dc:creator</code> in images, <code>/Author</code> in PDFs,
        frontmatter <code>author:</code> in text. Up to {Math.floor(props.maxUploadBytes / 1024 / 1024)} MiB.
      </p>
      <form id="sign-form">
        <label>
          Sign token (from <code>SIGN_API_TOKENS</code>)
          <input type="password" id="token" name="token" autocomplete="off" required />
        </label>
        <div id="drop" class="drop">
          <p>Drop a file here, or</p>
          <label>
            choose one: <input type="file" id="file" name="file" />
          </label>
        </div>
        <section id="inspect" hidden>
          <h2>What the file says</h2>
          <dl>
            <dt>File</dt>
            <dd id="file-name" />
            <dt>Author</dt>
            <dd id="file-author" />
            <dt>Title</dt>
            <dd id="file-title" />
            <dt>Type</dt>
            <dd id="file-type" />
            <dt>SHA-256</dt>
            <dd>
              <code id="file-hash" />
            </dd>
          </dl>
        </section>
        <p id="message" role="status" />
        <button type="submit" id="sign-button" disabled>
          Sign
        </button>
      </form>
      <section id="result" hidden>
        <h2 id="result-title">Signed</h2>
        <ul id="result-links" />
      </section>
    </Layout>
  );
}
