import type { Aead } from '../connection/aead.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { Registration } from './rendezvous-registration.js';
import type { RelayCounters } from './rendezvous-relay.js';

export interface RendezvousServerOptions {
  transport: DatagramTransport;
  protocolId: bigint;
  /** The 32-byte key shared with the backend that issues peer tokens. */
  privateKey: Uint8Array;
  /** Unix time in seconds, for token expiry (default: the system clock). */
  unixTime?: () => number;
  /** Peers registered at once across all sessions (default 4096). */
  maxRegistrations?: number;
  /** Datagrams other than relay frames, per address and second (default 20, burst 40). */
  helloPerSecond?: number;
  /** Relay packets per registered peer and second (default 1000, burst 200). */
  relayPerSecond?: number;
  aead?: Aead;
  /** Random bytes for pair keys (default crypto.getRandomValues). */
  randomBytes?: (length: number) => Uint8Array;
}

/** Datagrams refused by the rendezvous, by reason, and what it did. */
export interface RendezvousCounters {
  registered: number;
  introductions: number;
  left: number;
  timedOut: number;
  /** A datagram of a size its kind never has. */
  size: number;
  /** Not a hello and not from a registered address. */
  unknownAddress: number;
  /** A kind the rendezvous never takes. */
  kind: number;
  expired: number;
  /** A token whose private part did not open under the key (forged, or for another protocol). */
  forged: number;
  /** A token that registered before, or said hello from another address (a token registers once). */
  tokenReplayed: number;
  /** A token of a slot older than one the rendezvous registered for that slot (the slot passed on). */
  tokenStale: number;
  /** Unexpired token records dropped for room (a flood of hellos or registrations; costs no slot). */
  tokensEvicted: number;
  /** Unproven registrations dropped for room (a flood of hellos that never answer). */
  pendingEvicted: number;
  /** Empty sessions whose slot generations were forgotten for room before their tokens expired. */
  sessionsForgotten: number;
  /** Registrations dropped because they left too many notices unacknowledged. */
  noticeOverflow: number;
  /** Refusals sent back (token used, expired, full; keep-alives from unknown addresses). */
  refusalsSent: number;
  /** Notices held back from an address that has not yet proven it receives (no amplification). */
  unprovenHeld: number;
  /** A datagram whose MAC failed under the peer's key. */
  mac: number;
  /** A datagram sequence already seen. */
  replay: number;
  malformed: number;
  /** A token for a slot outside its session's size, or no room for another registration. */
  full: number;
  rateLimited: number;
  relay: RelayCounters;
}

export function newRendezvousCounters(relay: RelayCounters): RendezvousCounters {
  return {
    registered: 0,
    introductions: 0,
    left: 0,
    timedOut: 0,
    size: 0,
    unknownAddress: 0,
    kind: 0,
    expired: 0,
    forged: 0,
    tokenReplayed: 0,
    tokenStale: 0,
    tokensEvicted: 0,
    pendingEvicted: 0,
    sessionsForgotten: 0,
    noticeOverflow: 0,
    refusalsSent: 0,
    unprovenHeld: 0,
    mac: 0,
    replay: 0,
    malformed: 0,
    full: 0,
    rateLimited: 0,
    relay,
  };
}

export type NoticeBody = Parameters<Registration['queue']>[0];

export function equalBytes(data: Uint8Array, offset: number, expected: Uint8Array): boolean {
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= data[offset + i] ^ expected[i];
  return diff === 0;
}

/** A copy of the first `length` bytes (never a view a caller's generator might reuse); throws when short. */
export function copyBytes(bytes: Uint8Array, length: number): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length < length)
    throw new RangeError(`RendezvousServer: randomBytes must return ${length} bytes`);
  return bytes.slice(0, length);
}

export function checkRendezvousOptions(o: RendezvousServerOptions): void {
  if (typeof o.protocolId !== 'bigint' || o.protocolId < 0n || o.protocolId >= 1n << 64n)
    throw new RangeError('RendezvousServer: protocolId must be a bigint in [0, 2^64)');
  const m = o.maxRegistrations;
  if (m !== undefined && (!Number.isInteger(m) || m < 1 || m > 1 << 24))
    throw new RangeError('RendezvousServer: maxRegistrations must be an integer in [1, 2^24]');
  for (const [name, rate] of [
    ['helloPerSecond', o.helloPerSecond],
    ['relayPerSecond', o.relayPerSecond],
  ] as const)
    if (rate !== undefined && (!(rate > 0) || !Number.isFinite(rate)))
      throw new RangeError(`RendezvousServer: ${name} must be a positive finite number`);
}

export function toHex(data: Uint8Array, offset: number, length: number): string {
  let text = '';
  for (let i = offset; i < offset + length; i++) text += (data[i] < 16 ? '0' : '') + data[i].toString(16);
  return text;
}
