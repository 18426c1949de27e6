import { type Address, formatAddress, ipv6Groups, ipv6Text, parseAddress } from '../transport/address.js';
import { readU16, writeU16 } from './bytes.js';

/**
 * netcode's address encoding inside connect tokens: type u8 (1 = IPv4: 4 bytes then port u16;
 * 2 = IPv6: 8 groups u16 LE then port u16). Ports are little-endian too.
 */
const ADDRESS_IPV4 = 1;
const ADDRESS_IPV6 = 2;
export const MAX_ADDRESS_BYTES = 1 + 16 + 2;

/** Bytes `address` takes; throws for an address that is not IPv4 or IPv6 (a zone cannot be sent). */
export function writeNetcodeAddress(out: Uint8Array, offset: number, address: Address): number {
  const parsed = parseAddress(address);
  if (parsed === null || parsed.host.includes('%')) {
    throw new RangeError(`connect token: ${address} is not an IPv4 or IPv6 address without a zone`);
  }
  if (parsed.family === 4) {
    out[offset] = ADDRESS_IPV4;
    const octets = parsed.host.split('.');
    for (let i = 0; i < 4; i++) out[offset + 1 + i] = Number(octets[i]);
    writeU16(out, offset + 5, parsed.port);
    return 7;
  }
  const groups = ipv6Groups(parsed.host)!;
  out[offset] = ADDRESS_IPV6;
  for (let i = 0; i < 8; i++) writeU16(out, offset + 1 + 2 * i, groups[i]);
  writeU16(out, offset + 17, parsed.port);
  return 19;
}

/**
 * Reads an address at `offset` within data[.., end); returns the address and its length, or null
 * when the type is unknown or the bytes run out.
 */
export function readNetcodeAddress(
  data: Uint8Array,
  offset: number,
  end: number,
): { address: Address; bytes: number } | null {
  const type = data[offset];
  if (type === ADDRESS_IPV4) {
    if (offset + 7 > end) return null;
    const host = `${data[offset + 1]}.${data[offset + 2]}.${data[offset + 3]}.${data[offset + 4]}`;
    return { address: formatAddress(host, readU16(data, offset + 5)), bytes: 7 };
  }
  if (type === ADDRESS_IPV6) {
    if (offset + 19 > end) return null;
    const groups: number[] = [];
    for (let i = 0; i < 8; i++) groups.push(readU16(data, offset + 1 + 2 * i));
    return { address: formatAddress(ipv6Text(groups), readU16(data, offset + 17)), bytes: 19 };
  }
  return null;
}

const addressEncoder = new TextEncoder();
/** An address's text is at most ~60 bytes (IPv6 with a zone and port). */
const addressScratch = new Uint8Array(128);

/** The address as bytes (its text), for a challenge token's associated data; valid until the next call. */
export function addressText(address: Address): Uint8Array {
  const { written } = addressEncoder.encodeInto(address, addressScratch);
  return addressScratch.subarray(0, written);
}
