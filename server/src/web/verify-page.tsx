import type { Child } from 'hono/jsx';
import { Layout, LookupForm } from './layout.js';

/** `/verify`: paste a hash, or drop a file that is hashed in the browser (WebCrypto) and never uploaded. */
export function VerifyPage(props: { hash?: string; error?: string; children?: Child }) {
  return (
    <Layout title="Verify a file" scripts={['/assets/verify.js']}>
      <h1>Verify a file</h1>
      <div id="drop" class="drop">
        <p>Drop a file here to check it — it is hashed on your device and never uploaded — or</p>
        <label>
          choose one: <input type="file" id="file" />
        </label>
      </div>
      <LookupForm
        id="hash-form"
        name="hash"
        label="…or paste its SHA-256 hash"
        value={props.hash}
        error={props.error}
      />
      <p>
        A signed web page? <a href="/verify?url=">Check it by its address</a>.
      </p>
      {props.children}
    </Layout>
  );
}
