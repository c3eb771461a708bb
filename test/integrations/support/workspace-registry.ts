import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { REPO_ROOT } from './example-project.js';

/**
 * A loopback stand-in for the npm registry's metadata endpoints that answers for workspace packages only
 * (`GET /@siegel/astro/latest`, `GET /@siegel/astro`), from their package.json. `astro add` reads a
 * package's manifest from the registry `npm config get registry` names, to check its keywords; this lets
 * it do so offline against the workspace. Everything else is 404.
 */
export async function startWorkspaceRegistry(
  packages: Record<string, string>,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    requests.push(path);
    const match = /^\/(@[^/]+\/[^/]+)(?:\/([^/]+))?$/.exec(path);
    const folder = match?.[1] ? packages[match[1]] : undefined;
    if (!match || !folder) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, folder, 'package.json'), 'utf8')) as {
      version: string;
    };
    const body = match[2]
      ? manifest
      : {
          name: match[1],
          'dist-tags': { latest: manifest.version },
          versions: { [manifest.version]: manifest },
        };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
