/**
 * The messages a PortZoneStore and the main thread's store exchange over a port, and the reading
 * of a request on the serving side. A request comes from another thread, so it is read as hostile:
 * the method must be one of the store's (from a fixed table, never looked up on an object), and
 * each argument must have its type before the store sees it. Ranges are the store's own checks
 * (zone-store-checks.ts), so a bad value gets the same RangeError in a worker as in the main thread.
 *
 * request: { kind: 'zone-store', id, method, args }
 * answer:  { kind: 'zone-store', id, ok: true, value } | { kind, id, ok: false, error: {name, message} }
 */
import { isRecord } from './message-port-like.js';
import type { HandoffCommit, InboxRead, ZoneStore } from './zone-store.js';

export const STORE_MESSAGE_KIND = 'zone-store';

/** The longest error message carried back: a store's messages are short; the rest is cut. */
const MAX_ERROR_MESSAGE = 1000;

export interface StoreRequest {
  kind: typeof STORE_MESSAGE_KIND;
  id: number;
  method: string;
  args: unknown[];
}

export interface StoreError {
  name: string;
  message: string;
}

export type StoreAnswer =
  | { kind: typeof STORE_MESSAGE_KIND; id: number; ok: true; value: unknown }
  | { kind: typeof STORE_MESSAGE_KIND; id: number; ok: false; error: StoreError };

/** A store call read from a request, ready to run. */
export type StoreCall = (store: ZoneStore) => Promise<unknown>;

export type ReadRequest =
  /** Not a store message (another adapter shares the port): not ours to count. */
  | { kind: 'other' }
  /** A store message without an id to answer: dropped. */
  | { kind: 'unanswerable' }
  | { kind: 'refused'; id: number; error: Error }
  | { kind: 'call'; id: number; method: string; call: StoreCall };

type ArgsReader = (args: unknown[], maxIds: number) => StoreCall | Error;

const shape = (what: string): TypeError => new TypeError(`bad arguments: ${what}`);
const isNumber = (value: unknown): value is number => typeof value === 'number';
const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;

/** Each ZoneStore method a worker may call, with the types of its arguments. `close` is not one: a
 * worker must not close the store every zone shares. */
const READERS = new Map<string, ArgsReader>([
  [
    'acquireLease',
    ([zone, processId, ttlMs, force]) =>
      isNumber(zone) &&
      typeof processId === 'string' &&
      isNumber(ttlMs) &&
      (force === undefined || typeof force === 'boolean')
        ? (store) => store.acquireLease(zone, processId, ttlMs, force === true)
        : shape('acquireLease(zone: number, processId: string, ttlMs: number, force?: boolean)'),
  ],
  [
    'renewLease',
    ([zone, epoch, ttlMs]) =>
      isNumber(zone) && isNumber(epoch) && isNumber(ttlMs)
        ? (store) => store.renewLease(zone, epoch, ttlMs)
        : shape('renewLease(zone: number, epoch: number, ttlMs: number)'),
  ],
  [
    'releaseLease',
    ([zone, epoch]) =>
      isNumber(zone) && isNumber(epoch)
        ? (store) => store.releaseLease(zone, epoch)
        : shape('releaseLease(zone: number, epoch: number)'),
  ],
  ['lease', ([zone]) => (isNumber(zone) ? (store) => store.lease(zone) : shape('lease(zone: number)'))],
  [
    'commitHandoff',
    ([commit]) => {
      const read = readCommit(commit);
      return read instanceof Error ? read : (store) => store.commitHandoff(read);
    },
  ],
  [
    'readInbox',
    ([zone, epoch, read, max]) => {
      const inboxRead = readInboxRead(read);
      if (!isNumber(zone) || !isNumber(epoch) || inboxRead === null || !isNumber(max)) {
        return shape(
          "readInbox(zone: number, epoch: number, read: {from: 'new'} | {from: 'pending', after: number}, max: number)",
        );
      }
      return (store) => store.readInbox(zone, epoch, inboxRead, max);
    },
  ],
  [
    'writeSnapshot',
    ([zone, epoch, tick, inboxCursor, bytes]) =>
      isNumber(zone) && isNumber(epoch) && isNumber(tick) && isNumber(inboxCursor) && isBytes(bytes)
        ? (store) => store.writeSnapshot(zone, epoch, tick, inboxCursor, bytes)
        : shape(
            'writeSnapshot(zone: number, epoch: number, tick: number, inboxCursor: number, bytes: Uint8Array)',
          ),
  ],
  [
    'readSnapshot',
    ([zone]) => (isNumber(zone) ? (store) => store.readSnapshot(zone) : shape('readSnapshot(zone: number)')),
  ],
  [
    'owners',
    ([worldIds], maxIds) => {
      if (!Array.isArray(worldIds)) return shape('owners(worldIds: number[])');
      // Bounded before the walk, so a huge list costs one length check.
      if (worldIds.length > maxIds) {
        return new RangeError(`owners takes at most ${maxIds} world ids over a port, got ${worldIds.length}`);
      }
      for (const worldId of worldIds) if (!isNumber(worldId)) return shape('owners(worldIds: number[])');
      return (store) => store.owners(worldIds as number[]);
    },
  ],
]);

/** The most arguments any method takes: a longer list is refused before it is looked at. */
const MAX_ARGS = 5;

/** Reads one message arriving at the serving side. Never throws. */
export function readStoreRequest(value: unknown, maxIds: number): ReadRequest {
  if (!isRecord(value) || value.kind !== STORE_MESSAGE_KIND) return { kind: 'other' };
  const { id, method, args } = value;
  if (!isNumber(id) || !Number.isSafeInteger(id) || id < 0) return { kind: 'unanswerable' };
  if (typeof method !== 'string')
    return { kind: 'refused', id, error: new TypeError('method must be a string') };
  const reader = READERS.get(method);
  if (reader === undefined) {
    return { kind: 'refused', id, error: new TypeError(`${method.slice(0, 64)} is not a zone store method`) };
  }
  if (!Array.isArray(args) || args.length > MAX_ARGS) {
    return { kind: 'refused', id, error: new TypeError(`args must be an array of at most ${MAX_ARGS}`) };
  }
  const call = reader(args, maxIds);
  return call instanceof Error ? { kind: 'refused', id, error: call } : { kind: 'call', id, method, call };
}

/** A fresh commit with only the fields a HandoffCommit has, or why not. */
function readCommit(value: unknown): HandoffCommit | Error {
  if (!isRecord(value)) return shape('commitHandoff(commit: HandoffCommit)');
  const { worldId, from, fromEpoch, to, hseq, tick, payload } = value;
  if (!isNumber(worldId) || !isNumber(from) || !isNumber(fromEpoch) || !isNumber(to)) {
    return shape('commit.worldId, from, fromEpoch and to must be numbers');
  }
  if (!isNumber(hseq) || !isNumber(tick)) return shape('commit.hseq and tick must be numbers');
  if (!isBytes(payload)) return new TypeError('payload must be a Uint8Array');
  return { worldId, from, fromEpoch, to, hseq, tick, payload };
}

/** A fresh InboxRead, or null when it is not one (its `after` is the store's to range-check). */
function readInboxRead(value: unknown): InboxRead | null {
  if (!isRecord(value)) return null;
  if (value.from === 'new') return { from: 'new' };
  if (value.from === 'pending' && isNumber(value.after)) return { from: 'pending', after: value.after };
  return null;
}

/** What a thrown value becomes on the wire: its class name (for the standard ones) and message. */
export function encodeError(error: unknown): StoreError {
  if (error instanceof RangeError) return { name: 'RangeError', message: error.message };
  if (error instanceof TypeError) return { name: 'TypeError', message: error.message };
  if (error instanceof Error) return { name: 'Error', message: error.message };
  return { name: 'Error', message: String(error) };
}

/** The error a worker's call rejects with: the same class and message as the store threw. */
export function decodeError(value: unknown): Error {
  if (!isRecord(value) || typeof value.message !== 'string') {
    return new Error('the zone store answered an error without a message');
  }
  const message = value.message.slice(0, MAX_ERROR_MESSAGE);
  if (value.name === 'RangeError') return new RangeError(message);
  if (value.name === 'TypeError') return new TypeError(message);
  return new Error(message);
}

/**
 * The buffers of an answer's bytes to move rather than copy. A store returns its caller's own
 * copies (zone-store.ts), so moving them takes nothing from the store; a view that does not cover
 * its whole buffer is left to the copy.
 */
export function answerTransfers(method: string, value: unknown): ArrayBuffer[] {
  const transfers = new Set<ArrayBuffer>();
  const add = (bytes: unknown): void => {
    if (!isBytes(bytes)) return;
    const { buffer } = bytes;
    if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0) return;
    if (bytes.byteLength === buffer.byteLength) transfers.add(buffer);
  };
  if (method === 'readSnapshot' && isRecord(value)) add(value.bytes);
  if (method === 'readInbox' && isRecord(value) && Array.isArray(value.entries)) {
    for (const entry of value.entries) if (isRecord(entry)) add(entry.payload);
  }
  return [...transfers];
}
