import type { FC, PropsWithChildren } from 'hono/jsx';
import type { KeyInfo } from '../key-store.js';
import type { Nip46Client, PendingUri } from '../nip46/connection-store.js';
import { formatPermissions, type Nip46Permissions } from '../nip46/permissions.js';

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.8rem 1.5rem;display:flex;justify-content:space-between;align-items:center}
header h1{font-size:1.1rem;margin:0}
main{max-width:60rem;margin:1.5rem auto;padding:0 1.5rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.55rem .7rem;border-bottom:1px solid #e2e2e8;vertical-align:middle}
code{font-size:.85em;word-break:break-all}
.state{font-weight:600}.locked{color:#a4262c}.unlocked{color:#107c10}
.notice{padding:.6rem .9rem;margin-bottom:1rem;border-radius:4px;background:#e7f3e7}
.notice.error{background:#fbe9ea}
.note{font-size:.85em;color:#555}
form.inline{display:flex;gap:.4rem;margin:0}
input[type=password]{padding:.3rem .4rem;min-width:12rem}
button{padding:.3rem .8rem;cursor:pointer}
.signin{max-width:24rem;margin:4rem auto;background:#fff;padding:1.5rem;border-radius:6px}
section{margin-top:2rem}
.uri{background:#fff;border:1px solid #e2e2e8;padding:.7rem;border-radius:4px}
input[type=text]{padding:.3rem .4rem}
.signin input{width:100%;box-sizing:border-box;margin:.4rem 0 1rem;padding:.4rem}
`;

const Layout: FC<PropsWithChildren<{ signedIn: boolean }>> = ({ signedIn, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>Siegel bunker · admin</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <header>
        <h1>Siegel bunker</h1>
        {signedIn && (
          <form method="post" action="/admin/logout" class="inline">
            <button type="submit">Sign out</button>
          </form>
        )}
      </header>
      <main>{children}</main>
    </body>
  </html>
);

/** A message shown above the table after an action. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** The sign-in page: one field for the admin token. */
export const SignInPage: FC<{ error?: string }> = ({ error }) => (
  <Layout signedIn={false}>
    <form method="post" action="/admin/login" class="signin">
      <h2>Sign in</h2>
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      <label for="token">Admin token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
      <button type="submit">Sign in</button>
    </form>
  </Layout>
);

/** A key as the dashboard shows it: with the reason it cannot be locked, if it cannot. */
export type DashboardKey = KeyInfo & { lockRefusal?: string };

/** The NIP-46 side as the dashboard shows it. */
export interface Nip46View {
  relays: readonly string[];
  defaults: Nip46Permissions;
  connections: Nip46Client[];
  /** Unused URIs not expired yet (never their secrets). */
  pending: PendingUri[];
  /** A URI just made (shown once, in the answer to the form). */
  newUri?: { key: string; uri: string; expires_at: number; permissions: Nip46Permissions };
}

/** The dashboard: every key with its lock state, and unlock / lock buttons; the NIP-46 connections. */
export const DashboardPage: FC<{
  keys: DashboardKey[];
  notice?: Notice | undefined;
  nip46?: Nip46View | undefined;
}> = ({ keys, notice, nip46 }) => (
  <Layout signedIn={true}>
    {notice && (
      <p
        class={notice.kind === 'error' ? 'notice error' : 'notice'}
        role={notice.kind === 'error' ? 'alert' : 'status'}
      >
        {notice.text}
      </p>
    )}
    <h2>Keys</h2>
    {keys.length === 0 ? (
      <p>No keys yet. Add one with `siegel-bunker keys add NAME --generate` or `POST /api/keys`.</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Public key</th>
            <th>Created</th>
            <th>State</th>
            <th>Action</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr data-key={key.name}>
              <td>{key.name}</td>
              <td>
                <code title={key.pubkey}>{key.npub}</code>
              </td>
              <td>{new Date(key.created_at * 1000).toISOString().slice(0, 10)}</td>
              <td class={key.locked ? 'state locked' : 'state unlocked'}>
                {key.locked ? 'locked' : 'unlocked'}
              </td>
              <td>
                {key.locked ? (
                  <form method="post" action={`/admin/keys/${key.name}/unlock`} class="inline">
                    <input
                      type="password"
                      name="passphrase"
                      aria-label={`Passphrase for ${key.name}`}
                      autocomplete="off"
                      required
                    />
                    <button type="submit">Unlock</button>
                  </form>
                ) : key.lockRefusal ? (
                  <span class="note">{key.lockRefusal}</span>
                ) : (
                  <form method="post" action={`/admin/keys/${key.name}/lock`} class="inline">
                    <button type="submit">Lock</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    {nip46 ? <Nip46Section view={nip46} keys={keys} /> : null}
  </Layout>
);

const when = (seconds: number) =>
  seconds > 0 ? new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ') : 'never';

/** Remote signing (NIP-46): the connections with Revoke buttons, and a form for a new `bunker://` URI. */
const Nip46Section: FC<{ view: Nip46View; keys: DashboardKey[] }> = ({ view, keys }) => (
  <section id="nip46">
    <h2>Remote signing (NIP-46)</h2>
    <p class="note">Relays: {view.relays.join(', ')}</p>
    {view.newUri && (
      <div class="uri" role="status">
        <p>
          New connection URI for key {view.newUri.key} (
          {formatPermissions(view.newUri.permissions) || 'no permissions'}
          ). It works once, until {when(view.newUri.expires_at)} UTC: the first client to connect with it is
          authorised. It is shown only now.
        </p>
        <code data-bunker-uri={view.newUri.key}>{view.newUri.uri}</code>
      </div>
    )}
    {view.connections.length === 0 ? (
      <p>No connections yet.</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th>Client</th>
            <th>Key</th>
            <th>Allowed kinds</th>
            <th>Encryption</th>
            <th>Connected</th>
            <th>Last used</th>
            <th>Action</th>
          </tr>
        </thead>
        <tbody>
          {view.connections.map((client) => (
            <tr data-client={client.pubkey} data-client-key={client.key}>
              <td>
                {client.name && <div>{client.name}</div>}
                <code title={client.pubkey}>{`${client.pubkey.slice(0, 16)}…`}</code>
              </td>
              <td>{client.key}</td>
              <td>{client.kinds.join(', ') || 'none'}</td>
              <td>
                {[client.nip44 && 'NIP-44', client.nip04 && 'NIP-04'].filter(Boolean).join(', ') || 'none'}
              </td>
              <td>{when(client.connected_at)}</td>
              <td>{when(client.last_used)}</td>
              <td>
                <form method="post" action="/admin/nip46/revoke" class="inline">
                  <input type="hidden" name="key" value={client.key} />
                  <input type="hidden" name="pubkey" value={client.pubkey} />
                  <button type="submit">Revoke</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    {view.pending.length > 0 && (
      <table data-pending-uris>
        <caption>Unused connection URIs (each works once, until it expires)</caption>
        <thead>
          <tr>
            <th>Key</th>
            <th>Remote-signer pubkey</th>
            <th>Allowed kinds</th>
            <th>Made</th>
            <th>Expires</th>
          </tr>
        </thead>
        <tbody>
          {view.pending.map((uri) => (
            <tr data-pending-uri={uri.signer}>
              <td>{uri.key}</td>
              <td>
                <code title={uri.signer}>{`${uri.signer.slice(0, 16)}…`}</code>
              </td>
              <td>{uri.kinds.join(', ') || 'none'}</td>
              <td>{when(uri.created_at)}</td>
              <td>{when(uri.expires_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    {keys.length > 0 && (
      <form method="post" action="/admin/nip46/uri" class="inline" style="margin-top:1rem;flex-wrap:wrap">
        <label>
          Key{' '}
          <select name="key">
            {keys.map((key) => (
              <option value={key.name}>{key.name}</option>
            ))}
          </select>
        </label>
        <label>
          Kinds <input type="text" name="kinds" value={view.defaults.kinds.join(',')} size={12} required />
        </label>
        <label>
          <input type="checkbox" name="nip44" checked={view.defaults.nip44} /> NIP-44 encryption
        </label>
        <label>
          <input type="checkbox" name="nip04" checked={view.defaults.nip04} /> NIP-04
        </label>
        <button type="submit">New connection URI</button>
      </form>
    )}
  </section>
);
