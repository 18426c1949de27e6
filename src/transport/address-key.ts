/**
 * The rate limiter's key for a client address. An IPv6 client is usually given a whole /64 and
 * can pick any address in it, so its bucket is its /64 prefix; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, how a dual-stack socket reports an IPv4 client) is keyed as that IPv4 address.
 */
import { parseAddress } from './address.js';

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

/** The eight 16-bit groups of an IPv6 address ('::' expanded, a dotted IPv4 tail read); null if malformed. */
function ipv6Groups(text: string): number[] | null {
  let a = text;
  const lastColon = a.lastIndexOf(':');
  const last = a.slice(lastColon + 1);
  if (last.includes('.')) {
    const parts = last.split('.');
    if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
    const [b0, b1, b2, b3] = parts.map(Number) as [number, number, number, number];
    a = `${a.slice(0, lastColon + 1)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return null;
  const side = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const head = side(halves[0]);
  const tail = side(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => Number.parseInt(g, 16));
}
