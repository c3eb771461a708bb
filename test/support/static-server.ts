import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** A running {@link serveDirectory}. */
export interface StaticServer {
  /** The site's root URL, ending in `/`: the origin plus `base` (`http://127.0.0.1:PORT/docs/`). */
  url: string;
  /** Every request path, in order, decoded (`/docs/about/`). */
  requests: string[];
  close(): Promise<void>;
}

/** Options of {@link serveDirectory}. */
export interface ServeOptions {
  /** The URL path the folder is served under (e.g. `/docs`; default: the origin's root). */
  base?: string;
  /**
   * Serve `/p` from `p.html` when there is no file `p`, as hosts do for VitePress's `cleanUrls` (Netlify,
   * Vercel, Cloudflare Pages, `vitepress preview`). Default `false`: only `/x/` → `/x/index.html`.
   */
  cleanUrls?: boolean;
  /**
   * Another `Content-Type` for some files, by their path in `root`
   * (`{ 'p.html': 'text/html; charset=iso-8859-1' }`).
   */
  contentTypes?: Record<string, string>;
}

/**
 * Serve a build output folder on a free loopback port the way a static host does (`/x/` →
 * `/x/index.html`, and with `cleanUrls` `/p` → `/p.html`; nothing else), under the URL path `base`.
 * Paths outside `base` are 404, paths escaping `root` 403, malformed percent-escapes 400.
 */
export async function serveDirectory(root: string, options: ServeOptions = {}): Promise<StaticServer> {
  const base = (options.base ?? '').replace(/\/+$/, '');
  const requests: string[] = [];
  const server = createServer(async (request, response) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      // A malformed escape (`/%E0%A4%A`) is the client's mistake: 400, and the server keeps serving.
      requests.push(request.url ?? '/');
      response.writeHead(400, { 'content-type': 'text/plain' }).end('bad request: malformed URL');
      return;
    }
    requests.push(pathname);
    if (base) {
      if (pathname !== base && !pathname.startsWith(`${base}/`)) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      pathname = pathname.slice(base.length) || '/';
    }
    let file = normalize(join(root, pathname));
    if (file !== root && !file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const found = await stat(file).catch((error: NodeJS.ErrnoException) => {
        if (options.cleanUrls && error.code === 'ENOENT' && !pathname.endsWith('/')) return undefined;
        throw error;
      });
      if (found === undefined) file = `${file}.html`;
      else if (found.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      const type =
        options.contentTypes?.[relative(root, file).split(sep).join('/')] ??
        TYPES[extname(file)] ??
        'application/octet-stream';
      response.writeHead(200, { 'content-type': type }).end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${base}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
