// The connection policy of a verifier that must not be a path into its own network (issue 38): which
// addresses it refuses, how a name's addresses are judged (every one, the allowed ones kept), and the
// `lookup` that makes the judged address the one connected to. Pure: names resolve through the policy's
// own `resolve`, so no DNS and no socket.
import { describe, expect, it } from 'vitest';
import {
  type ConnectPolicy,
  PUBLIC_ADDRESSES_ONLY,
  policyLookup,
  refuseLiteral,
  resolveAllowed,
} from '../src/net/connect-policy.js';

const withNames = (names: Record<string, string[]>): ConnectPolicy => ({
  ...PUBLIC_ADDRESSES_ONLY,
  refuse: PUBLIC_ADDRESSES_ONLY.refuse,
  resolve: async (host) => {
    const found = names[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  },
});

describe('PUBLIC_ADDRESSES_ONLY', () => {
  it('refuses loopback, private, link-local (metadata), unique-local and CGNAT addresses, in any form', () => {
    const refused: Array<[string, string]> = [
      ['127.0.0.1', 'a loopback address'],
      ['10.20.30.40', 'a private address'],
      ['172.16.0.1', 'a private address'],
      ['192.168.1.1', 'a private address'],
      ['169.254.169.254', 'a link-local address'],
      ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
      ['0.0.0.0', 'an unspecified ("this network") address'],
      ['::1', 'a loopback address'],
      ['fd12:3456::1', 'a unique-local (private) address'],
      ['fe80::1', 'a link-local address'],
      ['::ffff:169.254.169.254', 'a link-local address (169.254.169.254, as IPv4-mapped IPv6)'],
    ];
    for (const [address, why] of refused) expect(PUBLIC_ADDRESSES_ONLY.refuse(address, address)).toBe(why);
    for (const address of ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111'])
      expect(PUBLIC_ADDRESSES_ONLY.refuse(address, address)).toBeUndefined();
  });
});

describe('resolveAllowed', () => {
  it('keeps only the allowed addresses of a name, and refuses a name whose every address is refused', async () => {
    const policy = withNames({
      'mixed.example': ['10.0.0.5', '93.184.215.14'],
      'metadata.example': ['169.254.169.254'],
      'six.example': ['::1', 'fe80::1'],
    });
    expect(await resolveAllowed(policy, 'mixed.example')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    await expect(resolveAllowed(policy, 'metadata.example')).rejects.toThrow(
      'Refused to connect to `metadata.example` (`169.254.169.254`): a link-local address — this verifier connects to public addresses only',
    );
    await expect(resolveAllowed(policy, 'six.example')).rejects.toThrow(
      'Refused to connect to `six.example` (`::1`): a loopback address',
    );
    await expect(resolveAllowed(policy, 'nowhere.example')).rejects.toThrow(
      'Cannot resolve `nowhere.example` (ENOTFOUND)',
    );
    // A literal is its own address, in brackets or not; the policy's resolver is not asked.
    await expect(resolveAllowed(policy, '[::ffff:7f00:1]')).rejects.toThrow(/a loopback address/);
    expect(await resolveAllowed(policy, '[2606:4700:4700::1111]')).toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('refuseLiteral judges IP literals only (a name is judged once resolved)', () => {
    expect(refuseLiteral(PUBLIC_ADDRESSES_ONLY, '127.0.0.1')?.message).toContain('a loopback address');
    expect(refuseLiteral(PUBLIC_ADDRESSES_ONLY, '[fd00::1]')?.message).toContain('unique-local');
    expect(refuseLiteral(PUBLIC_ADDRESSES_ONLY, 'localhost')).toBeUndefined();
    expect(refuseLiteral(PUBLIC_ADDRESSES_ONLY, '8.8.8.8')).toBeUndefined();
  });
});

describe('policyLookup', () => {
  it('answers net.connect with the allowed addresses only, and a refusal as the error', async () => {
    const heard: string[] = [];
    const lookup = policyLookup(
      withNames({
        'mixed.example': ['10.0.0.5', '93.184.215.14', '2606:4700::1'],
        'lan.example': ['192.168.0.2'],
      }),
      (message) => heard.push(message),
    );
    const ask = (host: string, options: { all?: boolean; family?: number }) =>
      new Promise<{ error: Error | null; result: unknown; family?: number }>((resolve) =>
        lookup(host, options as never, (error, result, family) => resolve({ error, result, family })),
      );
    expect((await ask('mixed.example', { all: true })).result).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    expect(await ask('mixed.example', { family: 6 })).toMatchObject({ result: '2606:4700::1', family: 6 });
    const refused = await ask('lan.example', {});
    expect(refused.error?.message).toContain(
      'Refused to connect to `lan.example` (`192.168.0.2`): a private address',
    );
    expect(heard).toEqual([refused.error?.message]);
  });
});
