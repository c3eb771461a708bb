// web/ owns the service's own pages as HTML: the frame (`layout.tsx`), the event page of a signed file
// (`event-page.tsx`), its badge, `/verify` and `/tools/sign` with their browser scripts (`browser/`).
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';

/** The frame of every page of the service: title, stylesheet, navigation, and optional scripts. */
export function Layout(props: { title: string; scripts?: string[]; children?: Child }) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · Siegel`}</title>
          <link rel="stylesheet" href="/assets/siegel.css" />
          {(props.scripts ?? []).map((src) => (
            <script src={src} defer />
          ))}
        </head>
        <body>
          <header>
            <nav>
              <a href="/tools/sign">Sign a file</a>
              <a href="/verify">Verify</a>
            </nav>
          </header>
          <main>{props.children}</main>
        </body>
      </html>
    </>
  );
}

/**
 * A one-field lookup form of `/verify` (`?hash=` for a file, `?url=` for a page) and the `#message` line
 * under it, where a refusal is said.
 */
export function LookupForm(props: {
  id: string;
  name: string;
  label: string;
  value: string | undefined;
  error: string | undefined;
}) {
  return (
    <>
      <form id={props.id} method="get" action="/verify">
        <label>
          {props.label}
          <input
            type="text"
            id={props.name}
            name={props.name}
            value={props.value ?? ''}
            spellcheck={false}
            autocomplete="off"
          />
        </label>
        <button type="submit">Check</button>
      </form>
      <p id="message" role="status">
        {props.error ?? ''}
      </p>
    </>
  );
}
