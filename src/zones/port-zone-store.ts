/**
 * The zone store reached over a message port: the embedded mode runs each zone in a worker thread
 * and keeps the one ZoneStore in the main thread, so each call is a request and an answer.
 * - servePortZoneStore (main thread): answers one port's requests by calling the store. The
 *   requests are read as hostile (port-zone-store-wire.ts) and bounded in flight per port; a bad
 *   one gets an error answer and never reaches the store. It never throws from a message.
 * - PortZoneStore (worker): a ZoneStore whose every call posts a request and waits for its answer;
 *   the store's RangeError/TypeError come back as the same class and message. A call rejects if
 *   the port closes or no answer comes within the timeout.
 * Bytes cross once: the caller's payload or snapshot is copied to a buffer of its own exact size,
 * which moves (is transferred) to the main thread; the store's answers move back the same way.
 * Give each PortZoneStore a port of its own (a MessageChannel end): its close() closes the port.
 */
import { closePort, isRecord, type MessagePortLike, onPortEnd, tryPost } from './message-port-like.js';
import {
  answerTransfers,
  decodeError,
  encodeError,
  readStoreRequest,
  STORE_MESSAGE_KIND,
  type StoreAnswer,
  type StoreCall,
  type StoreRequest,
} from './port-zone-store-wire.js';
import {
  type CommitResult,
  DEFAULT_ZONE_STORE_LIMITS,
  type EntityOwner,
  type HandoffCommit,
  type InboxRead,
  type InboxResult,
  type LeaseResult,
  type ZoneLease,
  type ZoneSnapshot,
  type ZoneStore,
} from './zone-store.js';

export interface ServePortZoneStoreOptions {
  /** Requests from the port the store may be working on at once; beyond it, an error answer. */
  maxInFlight?: number;
  /** The most world ids one owners call may carry (the store's own maxBatch applies as well). */
  maxIdsPerCall?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 1024;

export interface PortZoneStoreServingStats {
  /** Calls the store ran and answered (with a value or its own error). */
  answered: number;
  /** Requests answered with an error before reaching the store: bad shape, unknown method, busy. */
  refused: number;
  /** Of those refused, the ones over the in-flight bound. */
  busy: number;
  /** Store messages with no id to answer: dropped. */
  dropped: number;
  inFlight: number;
}

export interface PortZoneStoreServing {
  stats(): PortZoneStoreServingStats;
  /** Stops answering the port, and closes it. */
  close(): void;
}

/** Serves `store` to the thread at the other end of `port`. */
export function servePortZoneStore(
  store: ZoneStore,
  port: MessagePortLike,
  options: ServePortZoneStoreOptions = {},
): PortZoneStoreServing {
  const maxInFlight = checkPositiveInteger(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, 'maxInFlight');
  const maxIds = checkPositiveInteger(
    options.maxIdsPerCall ?? DEFAULT_ZONE_STORE_LIMITS.maxBatch,
    'maxIdsPerCall',
  );
  const counts = { answered: 0, refused: 0, busy: 0, dropped: 0 };
  let inFlight = 0;
  let open = true;

  const answerError = (id: number, error: unknown): void => {
    if (!open) return;
    const answer: StoreAnswer = { kind: STORE_MESSAGE_KIND, id, ok: false, error: encodeError(error) };
    tryPost(port, answer);
  };
  const answerValue = (id: number, method: string, value: unknown): void => {
    if (!open) return;
    const answer: StoreAnswer = { kind: STORE_MESSAGE_KIND, id, ok: true, value };
    const failed = tryPost(port, answer, answerTransfers(method, value));
    // A value that cannot be cloned is the store's bug; the worker still gets an answer.
    if (failed !== null)
      answerError(id, new Error(`the store's answer to ${method} cannot be sent: ${failed.message}`));
  };
  const run = (id: number, method: string, call: StoreCall): void => {
    inFlight += 1;
    new Promise<unknown>((resolve) => resolve(call(store)))
      .then(
        (value) => answerValue(id, method, value),
        (error: unknown) => answerError(id, error),
      )
      .finally(() => {
        inFlight -= 1;
        counts.answered += 1;
      });
  };

  port.on('message', (value) => {
    if (!open) return;
    const request = readStoreRequest(value, maxIds);
    if (request.kind === 'other') return;
    if (request.kind === 'unanswerable') {
      counts.dropped += 1;
    } else if (request.kind === 'refused') {
      counts.refused += 1;
      answerError(request.id, request.error);
    } else if (inFlight >= maxInFlight) {
      counts.refused += 1;
      counts.busy += 1;
      answerError(
        request.id,
        new Error(`the zone store is busy: ${maxInFlight} requests of this port in flight`),
      );
    } else {
      run(request.id, request.method, request.call);
    }
  });
  onPortEnd(port, () => {
    open = false;
  });

  return {
    stats: () => ({ ...counts, inFlight }),
    close: () => {
      open = false;
      closePort(port);
    },
  };
}

export interface PortZoneStoreOptions {
  /** How long a call waits for its answer before it rejects, milliseconds. */
  timeoutMs?: number;
}

export const DEFAULT_PORT_CALL_TIMEOUT_MS = 5000;

/** The longest timer setTimeout keeps (a longer one fires at once). */
const MAX_TIMEOUT_MS = 0x7fff_ffff;

export interface PortZoneStoreStats {
  /** Calls waiting for their answer. */
  pending: number;
  /** Answers for no waiting call (it timed out first): ignored. */
  late: number;
  /** Store answers of a bad shape: ignored. */
  malformed: number;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A ZoneStore in a worker, calling the main thread's store over `port`. */
export class PortZoneStore implements ZoneStore {
  private readonly timeoutMs: number;
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 0;
  /** Why calls are refused now (closed, or the port ended), or null while open. */
  private endedBecause: string | null = null;
  private readonly counts = { late: 0, malformed: 0 };

  constructor(
    private readonly port: MessagePortLike,
    options: PortZoneStoreOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_PORT_CALL_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new RangeError(`timeoutMs must be an integer in 1..${MAX_TIMEOUT_MS}, got ${timeoutMs}`);
    }
    this.timeoutMs = timeoutMs;
    port.on('message', (value) => this.receive(value));
    onPortEnd(port, () => this.end('the zone store port closed'));
  }

  async acquireLease(
    zone: number,
    processId: string,
    ttlMs: number,
    force = false,
  ): Promise<ZoneLease | null> {
    return this.call('acquireLease', [zone, processId, ttlMs, force]) as Promise<ZoneLease | null>;
  }

  async renewLease(zone: number, epoch: number, ttlMs: number): Promise<LeaseResult> {
    return this.call('renewLease', [zone, epoch, ttlMs]) as Promise<LeaseResult>;
  }

  async releaseLease(zone: number, epoch: number): Promise<LeaseResult> {
    return this.call('releaseLease', [zone, epoch]) as Promise<LeaseResult>;
  }

  async lease(zone: number): Promise<ZoneLease | null> {
    return this.call('lease', [zone]) as Promise<ZoneLease | null>;
  }

  async commitHandoff(commit: HandoffCommit): Promise<CommitResult> {
    const payload = ownCopy(commit.payload);
    const { worldId, from, fromEpoch, to, hseq, tick } = commit;
    const sent = { worldId, from, fromEpoch, to, hseq, tick, payload: payload ?? commit.payload };
    return this.call('commitHandoff', [sent], payload) as Promise<CommitResult>;
  }

  async readInbox(zone: number, epoch: number, read: InboxRead, max: number): Promise<InboxResult> {
    return this.call('readInbox', [zone, epoch, read, max]) as Promise<InboxResult>;
  }

  async writeSnapshot(
    zone: number,
    epoch: number,
    tick: number,
    inboxCursor: number,
    bytes: Uint8Array,
  ): Promise<LeaseResult> {
    const copy = ownCopy(bytes);
    return this.call(
      'writeSnapshot',
      [zone, epoch, tick, inboxCursor, copy ?? bytes],
      copy,
    ) as Promise<LeaseResult>;
  }

  async readSnapshot(zone: number): Promise<ZoneSnapshot | null> {
    return this.call('readSnapshot', [zone]) as Promise<ZoneSnapshot | null>;
  }

  async owners(worldIds: readonly number[]): Promise<EntityOwner[]> {
    return this.call('owners', [worldIds]) as Promise<EntityOwner[]>;
  }

  /** Rejects the waiting calls and closes the port; the main thread's store stays open. */
  async close(): Promise<void> {
    this.end('the port zone store is closed');
    closePort(this.port);
  }

  stats(): PortZoneStoreStats {
    return { pending: this.pending.size, ...this.counts };
  }

  private call(method: string, args: unknown[], bytes?: Uint8Array): Promise<unknown> {
    if (this.endedBecause !== null) return Promise.reject(new Error(this.endedBecause));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the zone store did not answer ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const request: StoreRequest = { kind: STORE_MESSAGE_KIND, id, method, args };
      const failed = tryPost(
        this.port,
        request,
        bytes === undefined ? undefined : [bytes.buffer as ArrayBuffer],
      );
      if (failed !== null) {
        this.settle(id);
        reject(new TypeError(`${method}: its arguments cannot be sent over a port (${failed.message})`));
      }
    });
  }

  private receive(value: unknown): void {
    if (!isRecord(value) || value.kind !== STORE_MESSAGE_KIND) return;
    const call = typeof value.id === 'number' ? this.settle(value.id) : undefined;
    if (call === undefined) {
      this.counts.late += 1;
    } else if (value.ok === true) {
      call.resolve(value.value);
    } else if (value.ok === false) {
      call.reject(decodeError(value.error));
    } else {
      this.counts.malformed += 1;
      call.reject(new Error('the zone store answered in a bad shape'));
    }
  }

  /** Takes the call off the waiting list and stops its timer. */
  private settle(id: number): PendingCall | undefined {
    const call = this.pending.get(id);
    if (call === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(call.timer);
    return call;
  }

  private end(reason: string): void {
    if (this.endedBecause !== null) return;
    this.endedBecause = reason;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(new Error(reason));
  }
}

/** A copy of `bytes` in a buffer of its own exact size (to transfer), or undefined for a non-Uint8Array. */
function ownCopy(bytes: unknown): Uint8Array | undefined {
  return bytes instanceof Uint8Array ? new Uint8Array(bytes) : undefined;
}

function checkPositiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be a positive safe integer, got ${value}`);
  }
  return value;
}
