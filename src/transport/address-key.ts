/**
 * The rate limiter's key for a client address. An IPv6 client is usually given a whole /64 and
 * can pick any address in it, so its bucket is its /64 prefix; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, how a dual-stack socket reports an IPv4 client) is keyed as that IPv4 address.
 */
import { ipv6Groups, parseAddress } from './address.js';

/**
 * The key of the host of a datagram source ("a.b.c.d:port" or "[ipv6]:port"), its port dropped:
 * one host picks its source ports freely, so a per-address budget keyed with the port is none.
 * Anything unparsable as addressKey gives it.
 */
export function hostKey(address: string): string {
  const parsed = parseAddress(address);
  return addressKey(parsed === null ? address : parsed.host);
}

/** "a.b.c.d" for IPv4 (mapped or not), "x:x:x:x::/64" for IPv6; anything unparsable as given. */
export function addressKey(address: string): string {
  let a = address.trim().toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (!a.includes(':')) return a;
  const groups = ipv6Groups(a);
  if (groups === null) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
