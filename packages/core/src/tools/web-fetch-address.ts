import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The fetch would reach an address on this machine or its network, which the settings forbid. */
export class PrivateAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `${host} resolves to ${address} (${range}), an address on this machine or its local network, so web_fetch refused it. ` +
        'Fetch a public address instead; the user can set webFetch.allowPrivateNetwork to true to allow such addresses.',
    );
    this.name = 'PrivateAddressError';
  }
}

/**
 * The range of an address if it is not public unicast (loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved...), else undefined. IPv4 written inside IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it is.
 */
export function nonPublicRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/**
 * A `lookup` for http.request that refuses non-public addresses. It runs when the socket connects,
 * so the address checked is the address used: a name that resolves to a public address for a
 * check and to 127.0.0.1 for the connection (DNS rebinding) is caught too.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses;
      if (!allowPrivate) {
        for (const entry of list) {
          const range = nonPublicRange(entry.address);
          if (range) return callback(new PrivateAddressError(hostname, entry.address, range), '', 0);
        }
      }
      if (options.all) return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** For URLs naming an IP address directly: Node connects without a lookup, so check it here. */
export function checkLiteralAddress(hostname: string, allowPrivate: boolean): void {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || !ipaddr.isValid(bare)) return;
  const range = nonPublicRange(bare);
  if (range) throw new PrivateAddressError(hostname, bare, range);
}
