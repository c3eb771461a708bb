// NIP-05 for `siegel verify --signer`: how an identifier is read, and what a domain may answer. The domain
// is a real HTTP server on loopback (the only host the rules fetch over http://).
import { createServer, type RequestListener } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNip05, resolveNip05 } from '../src/verify/nip05.js';

const KEY = 'a'.repeat(64);
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A domain on 127.0.0.1 answering with `handler`; resolves with `127.0.0.1:PORT`. */
async function serveDomain(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  return `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

describe('parseNip05', () => {
  it('reads name@domain over https, lower-cases the name, and takes a bare domain as _@domain', () => {
    expect(parseNip05('Bob@Example.com').url.href).toBe(
      'https://example.com/.well-known/nostr.json?name=bob',
    );
    expect(parseNip05('example.com')).toMatchObject({ name: '_' });
    expect(parseNip05('bob@127.0.0.1:8080').url.href).toBe(
      'http://127.0.0.1:8080/.well-known/nostr.json?name=bob',
    );
    expect(parseNip05('bob@localhost').url.protocol).toBe('http:');
  });

  it.each([
    ['bob smith@example.com', 'the name may hold only'],
    ['bob@', 'the domain is not a host name'],
    ['bob@example.com/path', 'the domain is not a host name'],
    ['bob@user@example.com', 'the name may hold only'],
  ])('refuses `%s`, quoting it', (identifier, why) => {
    expect(() => parseNip05(identifier)).toThrow(
      `The NIP-05 identifier \`${identifier}\` is not valid: ${why}`,
    );
  });
});

describe('resolveNip05', () => {
  it('returns the key the domain names for the name', async () => {
    const host = await serveDomain((request, response) => {
      expect(request.url).toBe('/.well-known/nostr.json?name=bob');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ names: { bob: KEY } }));
    });
    await expect(resolveNip05(`Bob@${host}`)).resolves.toBe(KEY);
  });

  it('refuses a name it does not list, a bad key, non-JSON, an error status and a redirect', async () => {
    const answers: Record<string, [number, string, Record<string, string>?]> = {
      carol: [200, JSON.stringify({ names: { bob: KEY } })],
      dave: [200, JSON.stringify({ names: { dave: 'npub1xyz' } })],
      erin: [200, '<html>'],
      frank: [500, 'oops'],
      grace: [302, '', { location: '/.well-known/nostr.json?name=bob' }],
    };
    const host = await serveDomain((request, response) => {
      const name = new URL(request.url ?? '/', 'http://x').searchParams.get('name') ?? '';
      const [status, body, headers] = answers[name] ?? [404, ''];
      response.writeHead(status, headers).end(body);
    });
    const url = (name: string) => `http://${host}/.well-known/nostr.json?name=${name}`;
    await expect(resolveNip05(`carol@${host}`)).rejects.toThrow(
      `NIP-05 \`carol@${host}\`: \`${url('carol')}\` names no key for \`carol\``,
    );
    await expect(resolveNip05(`dave@${host}`)).rejects.toThrow(
      'names `npub1xyz` for `dave`, which is not 64',
    );
    await expect(resolveNip05(`erin@${host}`)).rejects.toThrow(`\`${url('erin')}\` is not JSON`);
    await expect(resolveNip05(`frank@${host}`)).rejects.toThrow(`\`${url('frank')}\` answered HTTP 500`);
    await expect(resolveNip05(`grace@${host}`)).rejects.toThrow('redirects more than 0 times');
  });

  it('names no option of `siegel verify` that does not apply to a NIP-05 lookup (issue 22, L8)', async () => {
    const host = await serveDomain((request, response) => {
      const name = new URL(request.url ?? '/', 'http://x').searchParams.get('name') ?? '';
      if (name === 'big') response.writeHead(200).end(`{"names":{"big":"${'a'.repeat(300 * 1024)}"}}`);
      else if (name === 'away')
        response.writeHead(302, { location: 'http://127.0.0.2:9/.well-known/nostr.json?name=away' }).end();
      // `slow` never answers.
    });
    const messages: string[] = [];
    for (const name of ['big', 'away', 'slow'])
      messages.push(
        await resolveNip05(`${name}@${host}`, { requestTimeoutMs: 500 }).then(
          () => 'resolved',
          (error: Error) => error.message,
        ),
      );
    expect(messages[0]).toContain('the limit for a `nostr.json`');
    expect(messages[1]).toContain('NIP-05 does not follow redirects');
    expect(messages[2]).toMatch(
      /did not answer in full within 0\.5 s \(`--request-timeout`\)|the NIP-05 lookup took longer/,
    );
    for (const message of messages) {
      expect(message).toMatch(/^NIP-05 `/);
      expect(message).not.toMatch(
        /--max-page-bytes|--allow-redirects-to|--total-timeout|siegel verify stopped/,
      );
    }
  });
});
