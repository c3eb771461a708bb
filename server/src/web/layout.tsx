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
