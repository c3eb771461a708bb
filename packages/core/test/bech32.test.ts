import { randomBytes } from 'node:crypto';
import { decode, neventEncode, npubEncode } from 'nostr-tools/nip19';
import { describe, expect, it } from 'vitest';
import { encodeNevent, encodeNpub } from '../src/nostr/bech32.js';

const hex = () => randomBytes(32).toString('hex');

describe('encodeNpub', () => {
  it('gives the same string as nostr-tools for 500 random keys', () => {
    for (let round = 0; round < 500; round++) {
      const pubkey = hex();
      expect(encodeNpub(pubkey)).toBe(npubEncode(pubkey));
    }
  });

  it('matches the NIP-19 example', () => {
    expect(encodeNpub('7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e')).toBe(
      'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg',
    );
  });

  it('refuses a key that is not 64 lowercase hex', () => {
    expect(() => encodeNpub('ABCD')).toThrow(/64 lowercase hex/);
    expect(() => encodeNpub('g'.repeat(64))).toThrow(/64 lowercase hex/);
  });
});

describe('encodeNevent', () => {
  const relaySets = [
    [],
    ['wss://relay.example.com'],
    ['wss://a.example', 'wss://b.example/ä?x=1', `wss://${'r'.repeat(200)}.example`],
  ];

  it('gives the same string as nostr-tools for random events, kinds and relay lists', () => {
    for (let round = 0; round < 300; round++) {
      const relays = relaySets[round % relaySets.length] as string[];
      const kind = [1063, 0, 1, 30_023, 2 ** 31 - 1][round % 5] as number;
      const input = { id: hex(), author: hex(), kind, relays };
      expect(encodeNevent(input)).toBe(neventEncode(input));
    }
  });

  it('leaves out author and kind when they are not given, as nostr-tools does', () => {
    const id = hex();
    expect(encodeNevent({ id })).toBe(neventEncode({ id }));
    const decoded = decode(encodeNevent({ id, relays: ['wss://r.example'] }));
    expect(decoded).toEqual({
      type: 'nevent',
      data: { id, relays: ['wss://r.example'], author: undefined, kind: undefined },
    });
  });

  it('round-trips through nostr-tools decode', () => {
    const input = { id: hex(), author: hex(), kind: 1063, relays: ['wss://relay.example.com'] };
    expect(decode(encodeNevent(input))).toEqual({ type: 'nevent', data: input });
  });

  it('refuses a malformed id or author and a relay URL over 255 bytes', () => {
    expect(() => encodeNevent({ id: 'x' })).toThrow(/id must be 64/);
    expect(() => encodeNevent({ id: hex(), author: 'A'.repeat(64) })).toThrow(/author must be 64/);
    expect(() => encodeNevent({ id: hex(), relays: [`wss://${'r'.repeat(260)}`] })).toThrow(/255 bytes/);
  });
});
