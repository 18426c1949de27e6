/** What a netcode Server is built with, and what it counts (server.ts is the server itself). */
import type { ReliableConfig } from '../packet/config.js';
import type { Address } from '../transport/address.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { Aead } from './aead.js';
import { KEY_BYTES } from './constants.js';

/** Why the server dropped a client. */
export type ServerDisconnectReason = 'timed out' | 'client disconnected' | 'kicked' | 'server shut down';

export interface ServerOptions {
  protocolId: bigint;
  /** The 32-byte key shared with the backend that issues connect tokens. */
  privateKey: Uint8Array;
  /**
   * The addresses clients use to reach this server, as written in connect tokens; a request is
   * accepted only if its token names one of them. One transport per address, in the same order.
   */
  publicAddresses: Address[];
  transports: DatagramTransport[];
  /** Client slots (default 256). */
  maxClients?: number;
  aead?: Aead;
  /**
   * Configuration of each connection's ReliableEndpoint; `false` carries raw netcode payloads
   * instead (1..1200 bytes, no acks), as plain netcode peers such as the C reference expect.
   */
  reliable?: Partial<ReliableConfig> | false;
  /** Unix time in seconds, for connect token expiry (default: the system clock). */
  unixTime?: () => number;
  /** Datagrams taken from each transport per update (default 1024): a flood cannot stall the loop. */
  maxDatagramsPerUpdate?: number;
  /**
   * Handshakes in progress kept at once (default max(1024, 4 × maxClients)): when full, the
   * least recently active is dropped. Size it by the rate of valid-token requests to survive: a
   * handshake completes under a flood of R such requests per second while its round trip is
   * under maxPendingHandshakes / R seconds.
   */
  maxPendingHandshakes?: number;
  onConnect?(clientIndex: number, clientId: bigint, userData: Uint8Array): void;
  onDisconnect?(clientIndex: number, clientId: bigint, reason: ServerDisconnectReason): void;
  /** A packet from a client: data[offset, offset + length), valid during the call. */
  /** Returning exactly false refuses the packet: it is then not acked (its sender will not count it delivered). */
  onPacket?(clientIndex: number, data: Uint8Array, offset: number, length: number): unknown;
  /** Delivery notification for packets sent with a record. */
  onAcked?(clientIndex: number, sequence: number, record: unknown): void;
  onLost?(clientIndex: number, sequence: number, record: unknown): void;
}

/** What the server counts about traffic it refused, by reason. */
export interface ServerCounters {
  requestsAccepted: number;
  requestsInvalid: number;
  requestsExpired: number;
  requestsBadToken: number;
  requestsWrongServer: number;
  requestsAlreadyConnected: number;
  requestsTokenReused: number;
  /** Handshakes in progress dropped, still live, to make room for newer requests (a flood of them). */
  handshakesEvicted: number;
  /** Records of presented tokens dropped before they expired, to make room for newer ones. */
  seenTokensEvicted: number;
  /** Records of completed tokens dropped before they expired, to make room for newer completions. */
  usedTokensEvicted: number;
  deniedFull: number;
  responsesInvalid: number;
  unknownAddress: number;
  rejectedPackets: number;
  replayedPackets: number;
}

/** Every counter at zero: what a new Server starts from (the fields are listed once, beside their type). */
export function zeroServerCounters(): ServerCounters {
  return {
    requestsAccepted: 0,
    requestsInvalid: 0,
    requestsExpired: 0,
    requestsBadToken: 0,
    requestsWrongServer: 0,
    requestsAlreadyConnected: 0,
    requestsTokenReused: 0,
    handshakesEvicted: 0,
    seenTokensEvicted: 0,
    usedTokensEvicted: 0,
    deniedFull: 0,
    responsesInvalid: 0,
    unknownAddress: 0,
    rejectedPackets: 0,
    replayedPackets: 0,
  };
}

/** The Server constructor's checks of its options: the slots and the pending-handshake table's size, or a RangeError naming the option. */
export function checkServerOptions(options: ServerOptions): { maxClients: number; maxPending: number } {
  const maxClients = options.maxClients ?? 256;
  if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 4096) {
    throw new RangeError(`Server: maxClients must be an integer in [1, 4096], got ${maxClients}`);
  }
  if (!(options.privateKey instanceof Uint8Array) || options.privateKey.length !== KEY_BYTES) {
    throw new RangeError(`Server: privateKey must be ${KEY_BYTES} bytes`);
  }
  if (options.publicAddresses.length < 1 || options.publicAddresses.length !== options.transports.length) {
    throw new RangeError('Server: give one transport per public address (at least one)');
  }
  const maxPending = options.maxPendingHandshakes ?? Math.max(1024, 4 * maxClients);
  if (!Number.isInteger(maxPending) || maxPending < 4 * maxClients || maxPending > 1 << 20) {
    throw new RangeError(
      `Server: maxPendingHandshakes must be an integer in [4 × maxClients, 2^20], got ${maxPending}`,
    );
  }
  return { maxClients, maxPending };
}
