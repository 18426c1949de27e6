import { type Address, ipv6Groups, parseAddress } from './address.js';

/**
 * Whether `address` is one no host outside a local network can be reached at: IPv4 private
 * (10/8, 172.16/12, 192.168/16), shared (100.64/10, carrier-grade NAT), loopback (127/8) and
 * link-local (169.254/16); IPv6 loopback (::1), unique-local (fc00::/7) and link-local (fe80::/10).
 * A peer's local candidates are worth trying only there: the reflexive address covers the rest.
 */
export function isNonGlobalAddress(address: Address): boolean {
  const parsed = parseAddress(address);
  if (parsed === null) return false;
  if (parsed.family === 4) {
    const [a, b] = parsed.host.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254)
    );
  }
  const zone = parsed.host.indexOf('%');
  const groups = ipv6Groups(zone < 0 ? parsed.host : parsed.host.slice(0, zone));
  if (groups === null) return false;
  const loopback = groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
  return loopback || (groups[0] & 0xfe00) === 0xfc00 || (groups[0] & 0xffc0) === 0xfe80;
}
