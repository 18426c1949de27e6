/**
 * Datagram addresses as canonical strings, so they can key a Map: "127.0.0.1:40000",
 * "[::1]:40000", "[fe80::1%eth0]:9000". Equal addresses are equal strings: IPv4 is dotted decimal
 * without leading zeros; IPv6 is the RFC 5952 form (lowercase, no leading zeros, the first longest
 * run of two or more zero groups written "::", IPv4-mapped addresses as "::ffff:a.b.c.d"); a zone
 * (scope) is kept as written. Host names are not addresses: nothing here resolves names.
 */

declare const addressBrand: unique symbol;

/** A canonical address string. Make one with `toAddress`, `formatAddress` or a transport. */
export type Address = string & { readonly [addressBrand]: true };

export interface ParsedAddress {
  /** IPv4 dotted decimal, or canonical IPv6 without brackets (with its zone, if any). */
  readonly host: string;
  readonly port: number;
  readonly family: 4 | 6;
}

/** Longer texts are rejected without looking further (the longest real address is 70-odd chars). */
const MAX_ADDRESS_TEXT = 128;
const MAX_ZONE = 64;

const PORT_PATTERN = /^(?:0|[1-9][0-9]{0,4})$/;
const OCTET_PATTERN = /^(?:0|[1-9][0-9]{0,2})$/;
const GROUP_PATTERN = /^[0-9a-fA-F]{1,4}$/;
const ZONE_PATTERN = /^[0-9A-Za-z._~-]+$/;

function parsePort(text: string): number {
  if (!PORT_PATTERN.test(text)) return -1;
  const port = Number(text);
  return port <= 65535 ? port : -1;
}

/** The four octets of a dotted-decimal IPv4 address, or null. */
function parseIPv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!OCTET_PATTERN.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets.push(value);
  }
  return octets;
}

/** Parses a colon-separated run of groups into `out`; the last may be dotted IPv4 when allowed. */
function parseGroups(text: string, out: number[], allowIPv4Tail: boolean): boolean {
  if (text === '') return true;
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (allowIPv4Tail && i === parts.length - 1 && part.includes('.')) {
      const octets = parseIPv4Octets(part);
      if (octets === null) return false;
      out.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
    } else {
      if (!GROUP_PATTERN.test(part)) return false;
      out.push(Number.parseInt(part, 16));
    }
  }
  return true;
}

/** Eight 16-bit groups as the RFC 5952 text. */
function formatIPv6Groups(groups: number[]): string {
  // IPv4-mapped (::ffff:0:0/96) keeps its dotted tail, as RFC 5952 section 5 recommends.
  if (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  ) {
    return `::ffff:${groups[6] >>> 8}.${groups[6] & 0xff}.${groups[7] >>> 8}.${groups[7] & 0xff}`;
  }
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** The eight 16-bit groups of an IPv6 address text without a zone, or null when it is not one. */
export function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups: number[] = [];
  if (halves.length === 1) {
    if (!parseGroups(text, groups, true) || groups.length !== 8) return null;
  } else {
    const tail: number[] = [];
    // A dotted tail is only allowed at the very end of the text.
    if (!parseGroups(halves[0], groups, false) || !parseGroups(halves[1], tail, true)) return null;
    // "::" stands for at least one zero group.
    const zeros = 8 - groups.length - tail.length;
    if (zeros < 1) return null;
    for (let i = 0; i < zeros; i++) groups.push(0);
    for (const g of tail) groups.push(g);
  }
  return groups;
}

/** The canonical (RFC 5952) text of eight 16-bit groups. */
export function ipv6Text(groups: readonly number[]): string {
  return formatIPv6Groups(groups as number[]);
}

/** Canonical IPv6 text (zone included), or null when `text` is not an IPv6 address. */
function canonicalIPv6(text: string): string | null {
  let zone = '';
  const percent = text.indexOf('%');
  if (percent >= 0) {
    zone = text.slice(percent + 1);
    if (zone.length === 0 || zone.length > MAX_ZONE || !ZONE_PATTERN.test(zone)) return null;
    text = text.slice(0, percent);
  }
  const groups = ipv6Groups(text);
  if (groups === null) return null;
  const canonical = formatIPv6Groups(groups);
  return zone === '' ? canonical : `${canonical}%${zone}`;
}

/** The canonical host and its family, or null when `host` is neither IPv4 nor IPv6 text. */
export function parseHost(host: string): { host: string; family: 4 | 6 } | null {
  if (typeof host !== 'string' || host.length === 0 || host.length > MAX_ADDRESS_TEXT) return null;
  if (host.includes(':')) {
    const canonical = canonicalIPv6(host);
    return canonical === null ? null : { host: canonical, family: 6 };
  }
  return parseIPv4Octets(host) === null ? null : { host, family: 4 };
}

/**
 * Parses "a.b.c.d:port" or "[ipv6]:port" strictly: no names, no leading zeros in IPv4 octets or
 * ports, ports in [0, 65535], brackets required around IPv6. Never throws; null when invalid.
 */
export function parseAddress(text: string): ParsedAddress | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_ADDRESS_TEXT) return null;
  let hostText: string;
  let portText: string;
  if (text.charCodeAt(0) === 0x5b /* [ */) {
    const close = text.indexOf(']');
    if (close < 0 || text.charCodeAt(close + 1) !== 0x3a /* : */) return null;
    hostText = text.slice(1, close);
    if (!hostText.includes(':')) return null; // brackets are for IPv6 only
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0) return null;
    hostText = text.slice(0, colon);
    if (hostText.includes(':')) return null; // IPv6 without brackets is ambiguous
    portText = text.slice(colon + 1);
  }
  const port = parsePort(portText);
  if (port < 0) return null;
  const host = parseHost(hostText);
  return host === null ? null : { host: host.host, port, family: host.family };
}

/** The address of `host` and `port`; throws a RangeError naming the bad part. */
export function formatAddress(host: string, port: number): Address {
  const parsed = parseHost(host);
  if (parsed === null) {
    throw new RangeError(`formatAddress: ${JSON.stringify(host)} is not an IPv4 or IPv6 address`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`formatAddress: port must be an integer in [0, 65535], got ${port}`);
  }
  return (parsed.family === 6 ? `[${parsed.host}]:${port}` : `${parsed.host}:${port}`) as Address;
}

/** The canonical form of an address text; throws a RangeError when it is not one. */
export function toAddress(text: string): Address {
  const parsed = parseAddress(text);
  if (parsed === null) {
    throw new RangeError(
      `toAddress: ${JSON.stringify(text)} is not an address ("a.b.c.d:port" or "[ipv6]:port", port 0..65535)`,
    );
  }
  return formatAddress(parsed.host, parsed.port);
}

/** True when `text` is an address already in canonical form (so it may be used as an Address). */
export function isAddress(text: string): text is Address {
  const parsed = parseAddress(text);
  return parsed !== null && formatAddress(parsed.host, parsed.port) === text;
}

/** True for an IPv6 address (canonical addresses of that family start with "["). */
export function isIPv6(address: Address): boolean {
  return address.charCodeAt(0) === 0x5b;
}
