import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../src/net/address-policy.js';

describe('classifyAddress: what siegel verify must not connect to (issue 10)', () => {
  it('names every IPv4 range that is not the public internet, edges included', () => {
    const cases: Array<[string, string]> = [
      ['0.0.0.0', 'an unspecified ("this network") address'],
      ['0.255.255.255', 'an unspecified ("this network") address'],
      ['10.0.0.1', 'a private address'],
      ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
      ['100.127.255.255', 'a shared (carrier-grade NAT) address'],
      ['127.0.0.1', 'a loopback address'],
      ['127.0.0.2', 'a loopback address'],
      ['127.255.255.255', 'a loopback address'],
      ['169.254.169.254', 'a link-local address'],
      ['172.16.0.1', 'a private address'],
      ['172.31.255.255', 'a private address'],
      ['192.0.0.8', 'a reserved (IETF protocol) address'],
      ['192.0.2.1', 'a documentation address'],
      ['192.168.1.1', 'a private address'],
      ['198.18.0.1', 'a benchmarking address'],
      ['198.19.255.255', 'a benchmarking address'],
      ['224.0.0.1', 'a multicast address'],
      ['240.0.0.1', 'a reserved address'],
      ['255.255.255.255', 'a reserved address'],
    ];
    for (const [address, what] of cases)
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: ${what}`);
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '93.184.215.14',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '169.253.255.255',
      '11.0.0.0',
      '223.255.255.255',
    ])
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: undefined`);
  });

  it('names IPv6 loopback, unspecified, unique-local, link-local, site-local, multicast, documentation, Teredo', () => {
    const cases: Array<[string, string]> = [
      ['::1', 'a loopback address'],
      ['0:0:0:0:0:0:0:1', 'a loopback address'],
      ['[::1]', 'a loopback address'],
      ['::', 'an unspecified address'],
      ['fc00::1', 'a unique-local (private) address'],
      ['fd12:3456:789a::1', 'a unique-local (private) address'],
      ['fe80::1', 'a link-local address'],
      ['fe80::1%eth0', 'a link-local address'],
      ['febf::1', 'a link-local address'],
      ['fec0::1', 'a site-local (private) address'],
      ['ff02::1', 'a multicast address'],
      ['2001:db8::1', 'a documentation address'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo tunnel address'],
      ['100::1', 'a discard-only address'],
    ];
    for (const [address, what] of cases)
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: ${what}`);
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', 'fe00::1', '2001:db9::1'])
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: undefined`);
  });

  it('judges IPv4 carried in IPv6 by the IPv4 address: mapped (both spellings), compatible, NAT64, 6to4', () => {
    const cases: Array<[string, string]> = [
      ['::ffff:127.0.0.1', 'a loopback address (127.0.0.1, as IPv4-mapped IPv6)'],
      ['::ffff:7f00:1', 'a loopback address (127.0.0.1, as IPv4-mapped IPv6)'], // how URL writes it
      ['[::ffff:7f00:2]', 'a loopback address (127.0.0.2, as IPv4-mapped IPv6)'],
      ['::ffff:169.254.169.254', 'a link-local address (169.254.169.254, as IPv4-mapped IPv6)'],
      ['::ffff:a9fe:a9fe', 'a link-local address (169.254.169.254, as IPv4-mapped IPv6)'],
      ['::ffff:0.0.0.0', 'an unspecified ("this network") address (0.0.0.0, as IPv4-mapped IPv6)'],
      ['::127.0.0.1', 'a loopback address (127.0.0.1, as IPv4-compatible IPv6)'],
      ['::8.8.8.8', 'a reserved address'],
      ['64:ff9b::10.0.0.1', 'a private address (10.0.0.1, as NAT64 IPv6)'],
      ['2002:7f00:1::1', 'a loopback address (127.0.0.1, as 6to4 IPv6)'],
      ['2002:c0a8:101::', 'a private address (192.168.1.1, as 6to4 IPv6)'],
    ];
    for (const [address, what] of cases)
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: ${what}`);
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2002:808:808::1'])
      expect(`${address}: ${classifyAddress(address)}`).toBe(`${address}: undefined`);
  });

  it('a host name is not an address (it must be resolved first)', () => {
    expect(classifyAddress('localhost')).toBe('not an IP address');
    expect(classifyAddress('example.com')).toBe('not an IP address');
    // A URL (and getaddrinfo) reads `127.1` as 127.0.0.1, so the rule does too: it is no host name.
    expect(classifyAddress('127.1')).toBe('a loopback address');
  });
});
