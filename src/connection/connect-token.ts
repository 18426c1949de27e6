import type { Address } from '../transport/address.js';
import { readNetcodeAddress, writeNetcodeAddress } from './address-codec.js';
import { type Aead, defaultAead } from './aead.js';
import { readU32, readU64, readU64Big, writeU32, writeU64 } from './bytes.js';
import {
  CONNECT_TOKEN_BYTES,
  CONNECT_TOKEN_NONCE_BYTES,
  CONNECT_TOKEN_PRIVATE_BYTES,
  KEY_BYTES,
  MAC_BYTES,
  MAX_SERVERS_PER_CONNECT,
  USER_DATA_BYTES,
  VERSION_INFO,
  VERSION_INFO_BYTES,
} from './constants.js';

/** What only the dedicated servers can read: encrypted under the private key they share with the backend. */
export interface ConnectTokenPrivate {
  clientId: bigint;
  /** Seconds without packets before either side times out; negative disables timeouts. */
  timeoutSeconds: number;
  serverAddresses: Address[];
  clientToServerKey: Uint8Array;
  serverToClientKey: Uint8Array;
  /** 256 bytes the backend passes to the server (an account id, a session ticket…). */
  userData: Uint8Array;
}

/** The whole token as the client holds it. */
export interface ConnectToken {
  protocolId: bigint;
  createTimestamp: number;
  expireTimestamp: number;
  nonce: Uint8Array;
  /** The encrypted private part, passed through to the server unread. */
  privateData: Uint8Array;
  timeoutSeconds: number;
  serverAddresses: Address[];
  clientToServerKey: Uint8Array;
  serverToClientKey: Uint8Array;
}

const PRIVATE_PLAINTEXT_BYTES = CONNECT_TOKEN_PRIVATE_BYTES - MAC_BYTES;

function checkBytes(what: string, value: Uint8Array, length: number): void {
  if (!(value instanceof Uint8Array) || value.length !== length) {
    throw new RangeError(`connect token: ${what} must be a Uint8Array of ${length} bytes`);
  }
}

function checkAddresses(addresses: readonly Address[]): void {
  if (!Array.isArray(addresses) || addresses.length < 1 || addresses.length > MAX_SERVERS_PER_CONNECT) {
    throw new RangeError(`connect token: 1 to ${MAX_SERVERS_PER_CONNECT} server addresses are needed`);
  }
}

/** Writes the private part's plaintext (1008 bytes + 16 zero bytes of MAC room) into a new 1024-byte buffer. */
export function writeConnectTokenPrivate(p: ConnectTokenPrivate): Uint8Array {
  checkAddresses(p.serverAddresses);
  checkBytes('clientToServerKey', p.clientToServerKey, KEY_BYTES);
  checkBytes('serverToClientKey', p.serverToClientKey, KEY_BYTES);
  checkBytes('userData', p.userData, USER_DATA_BYTES);
  if (typeof p.clientId !== 'bigint' || p.clientId < 0n || p.clientId >= 1n << 64n) {
    throw new RangeError('connect token: clientId must be a bigint in [0, 2^64)');
  }
  if (
    !Number.isInteger(p.timeoutSeconds) ||
    p.timeoutSeconds < -0x80000000 ||
    p.timeoutSeconds > 0x7fffffff
  ) {
    throw new RangeError('connect token: timeoutSeconds must be a 32-bit integer');
  }
  const out = new Uint8Array(CONNECT_TOKEN_PRIVATE_BYTES);
  writeU64(out, 0, p.clientId);
  writeU32(out, 8, p.timeoutSeconds);
  writeU32(out, 12, p.serverAddresses.length);
  let o = 16;
  for (const address of p.serverAddresses) o += writeNetcodeAddress(out, o, address);
  out.set(p.clientToServerKey, o);
  out.set(p.serverToClientKey, o + KEY_BYTES);
  out.set(p.userData, o + 2 * KEY_BYTES);
  return out;
}

/** Reads a decrypted private part; null when its counts or address types are invalid. */
export function readConnectTokenPrivate(data: Uint8Array): ConnectTokenPrivate | null {
  if (data.length < PRIVATE_PLAINTEXT_BYTES) return null;
  const count = readU32(data, 12);
  if (count < 1 || count > MAX_SERVERS_PER_CONNECT) return null;
  const serverAddresses: Address[] = [];
  let o = 16;
  for (let i = 0; i < count; i++) {
    const read = readNetcodeAddress(data, o, PRIVATE_PLAINTEXT_BYTES);
    if (read === null) return null;
    serverAddresses.push(read.address);
    o += read.bytes;
  }
  if (o + 2 * KEY_BYTES + USER_DATA_BYTES > PRIVATE_PLAINTEXT_BYTES) return null;
  return {
    clientId: readU64Big(data, 0),
    timeoutSeconds: readU32(data, 8) | 0,
    serverAddresses,
    clientToServerKey: data.slice(o, o + KEY_BYTES),
    serverToClientKey: data.slice(o + KEY_BYTES, o + 2 * KEY_BYTES),
    userData: data.slice(o + 2 * KEY_BYTES, o + 2 * KEY_BYTES + USER_DATA_BYTES),
  };
}

/** version_info || protocol_id || expire_timestamp: what the private part's MAC also covers. */
export function privateAssociatedData(
  protocolId: bigint,
  expireTimestamp: number | bigint,
  out: Uint8Array = new Uint8Array(VERSION_INFO_BYTES + 16),
): Uint8Array {
  out.set(VERSION_INFO, 0);
  writeU64(out, VERSION_INFO_BYTES, protocolId);
  writeU64(out, VERSION_INFO_BYTES + 8, expireTimestamp);
  return out;
}

/** Encrypts a private part in place (the MAC fills its last 16 bytes). */
export function encryptConnectTokenPrivate(
  data: Uint8Array,
  protocolId: bigint,
  expireTimestamp: number,
  nonce: Uint8Array,
  privateKey: Uint8Array,
  aead: Aead,
): void {
  aead.encryptX(
    data,
    0,
    PRIVATE_PLAINTEXT_BYTES,
    privateAssociatedData(protocolId, expireTimestamp),
    nonce,
    privateKey,
  );
}

/** Decrypts a private part in place; false when it was not sealed with this key, protocol and expiry. */
export function decryptConnectTokenPrivate(
  data: Uint8Array,
  associatedData: Uint8Array,
  nonce: Uint8Array,
  privateKey: Uint8Array,
  aead: Aead,
): boolean {
  return (
    data.length === CONNECT_TOKEN_PRIVATE_BYTES &&
    aead.decryptX(data, 0, CONNECT_TOKEN_PRIVATE_BYTES, associatedData, nonce, privateKey)
  );
}

/** The 2048-byte token a client is given. */
export function writeConnectToken(t: ConnectToken): Uint8Array {
  checkAddresses(t.serverAddresses);
  checkBytes('nonce', t.nonce, CONNECT_TOKEN_NONCE_BYTES);
  checkBytes('privateData', t.privateData, CONNECT_TOKEN_PRIVATE_BYTES);
  checkBytes('clientToServerKey', t.clientToServerKey, KEY_BYTES);
  checkBytes('serverToClientKey', t.serverToClientKey, KEY_BYTES);
  const out = new Uint8Array(CONNECT_TOKEN_BYTES);
  out.set(VERSION_INFO, 0);
  let o = VERSION_INFO_BYTES;
  writeU64(out, o, t.protocolId);
  writeU64(out, o + 8, t.createTimestamp);
  writeU64(out, o + 16, t.expireTimestamp);
  o += 24;
  out.set(t.nonce, o);
  o += CONNECT_TOKEN_NONCE_BYTES;
  out.set(t.privateData, o);
  o += CONNECT_TOKEN_PRIVATE_BYTES;
  writeU32(out, o, t.timeoutSeconds);
  writeU32(out, o + 4, t.serverAddresses.length);
  o += 8;
  for (const address of t.serverAddresses) o += writeNetcodeAddress(out, o, address);
  out.set(t.clientToServerKey, o);
  out.set(t.serverToClientKey, o + KEY_BYTES);
  return out;
}

export type ConnectTokenResult = { ok: true; token: ConnectToken } | { ok: false; reason: string };

/** Reads a 2048-byte token as a client does (the private part stays sealed). Never throws. */
export function readConnectToken(data: Uint8Array): ConnectTokenResult {
  if (!(data instanceof Uint8Array) || data.length !== CONNECT_TOKEN_BYTES) {
    return { ok: false, reason: `a connect token is exactly ${CONNECT_TOKEN_BYTES} bytes` };
  }
  for (let i = 0; i < VERSION_INFO_BYTES; i++) {
    if (data[i] !== VERSION_INFO[i]) return { ok: false, reason: 'not a NETCODE 1.02 connect token' };
  }
  let o = VERSION_INFO_BYTES;
  const protocolId = readU64Big(data, o);
  const createTimestamp = readU64(data, o + 8);
  const expireTimestamp = readU64(data, o + 16);
  if (createTimestamp > expireTimestamp)
    return { ok: false, reason: 'connect token expires before it was created' };
  o += 24;
  const nonce = data.slice(o, o + CONNECT_TOKEN_NONCE_BYTES);
  o += CONNECT_TOKEN_NONCE_BYTES;
  const privateData = data.slice(o, o + CONNECT_TOKEN_PRIVATE_BYTES);
  o += CONNECT_TOKEN_PRIVATE_BYTES;
  const timeoutSeconds = readU32(data, o) | 0;
  const count = readU32(data, o + 4);
  if (count < 1 || count > MAX_SERVERS_PER_CONNECT)
    return { ok: false, reason: 'connect token has no valid server count' };
  o += 8;
  const serverAddresses: Address[] = [];
  for (let i = 0; i < count; i++) {
    const read = readNetcodeAddress(data, o, CONNECT_TOKEN_BYTES);
    if (read === null) return { ok: false, reason: 'connect token has an invalid server address' };
    serverAddresses.push(read.address);
    o += read.bytes;
  }
  if (o + 2 * KEY_BYTES > CONNECT_TOKEN_BYTES) return { ok: false, reason: 'connect token is truncated' };
  return {
    ok: true,
    token: {
      protocolId,
      createTimestamp,
      expireTimestamp,
      nonce,
      privateData,
      timeoutSeconds,
      serverAddresses,
      clientToServerKey: data.slice(o, o + KEY_BYTES),
      serverToClientKey: data.slice(o + KEY_BYTES, o + 2 * KEY_BYTES),
    },
  };
}

export interface GenerateConnectTokenOptions {
  protocolId: bigint;
  /** The 32-byte key shared by the backend and the dedicated servers. */
  privateKey: Uint8Array;
  clientId: bigint;
  serverAddresses: Address[];
  /** Unix time, seconds. */
  now: number;
  /** Seconds until the token expires (default 30). */
  expireSeconds?: number;
  /** Connection timeout, seconds (default 5; negative disables timeouts). */
  timeoutSeconds?: number;
  /** 256 bytes for the server (default zeros). */
  userData?: Uint8Array;
  /** Default: the registered default backend (node:crypto under ghostwire/node). */
  aead?: Aead;
  /** Random bytes (default crypto.getRandomValues); tests pass a fixed source. */
  randomBytes?: (length: number) => Uint8Array;
  /** Fixed values instead of random ones (tests and vectors). */
  nonce?: Uint8Array;
  clientToServerKey?: Uint8Array;
  serverToClientKey?: Uint8Array;
}

function secureRandomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  globalThis.crypto.getRandomValues(out);
  return out;
}

/**
 * What a backend (matchmaker, web service) calls to authorize one client on its servers: a
 * 2048-byte connect token with fresh per-client keys, the private part sealed under `privateKey`.
 */
export function generateConnectToken(options: GenerateConnectTokenOptions): Uint8Array {
  const random = options.randomBytes ?? secureRandomBytes;
  const expireSeconds = options.expireSeconds ?? 30;
  const timeoutSeconds = options.timeoutSeconds ?? 5;
  checkBytes('privateKey', options.privateKey, KEY_BYTES);
  if (!Number.isInteger(options.now) || options.now < 0)
    throw new RangeError('connect token: now must be unix seconds');
  if (!Number.isInteger(expireSeconds) || expireSeconds < 0)
    throw new RangeError('connect token: expireSeconds must be >= 0');
  const clientToServerKey = options.clientToServerKey ?? random(KEY_BYTES);
  const serverToClientKey = options.serverToClientKey ?? random(KEY_BYTES);
  const nonce = options.nonce ?? random(CONNECT_TOKEN_NONCE_BYTES);
  const expireTimestamp = options.now + expireSeconds;
  const privateData = writeConnectTokenPrivate({
    clientId: options.clientId,
    timeoutSeconds,
    serverAddresses: options.serverAddresses,
    clientToServerKey,
    serverToClientKey,
    userData: options.userData ?? new Uint8Array(USER_DATA_BYTES),
  });
  encryptConnectTokenPrivate(
    privateData,
    options.protocolId,
    expireTimestamp,
    nonce,
    options.privateKey,
    options.aead ?? defaultAead(),
  );
  return writeConnectToken({
    protocolId: options.protocolId,
    createTimestamp: options.now,
    expireTimestamp,
    nonce,
    privateData,
    timeoutSeconds,
    serverAddresses: options.serverAddresses,
    clientToServerKey,
    serverToClientKey,
  });
}
