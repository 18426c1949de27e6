/**
 * The embedded directory shared by a machine's server processes: the parent (the process manager)
 * holds the one EmbeddedDirectory and answers over each child's IPC channel; a child uses an
 * IpcDirectory, which sends each call to the parent and waits for its result.
 *
 * Values cross by structured clone, so the channel must use 'advanced' serialization (a taken
 * seat's expiresAt is Infinity, which JSON would turn into null); every reply carries an Infinity
 * and the child refuses replies where it did not survive. A call never hangs: it rejects at once
 * when the channel is closed, when it closes, or after a timeout.
 */
import { ChildProcess } from 'node:child_process';
import type {
  ConsumeResult,
  Directory,
  PeerSessionCreated,
  PeerSlotResult,
  ProcessLoad,
  ProcessRecord,
  ProcessState,
  ReserveResult,
  RoomListing,
  RoomMetadata,
  RoomQuery,
  Seat,
  Ticket,
  TicketStatus,
  Unsubscribe,
} from './directory.js';
import { childEndpoint, type IpcEndpoint, ignoreSendError, parentEndpoint } from './ipc-endpoint.js';

/** Child → parent: one Directory call (or a subscription change). */
interface CallMessage {
  gw: 'dir';
  id: number;
  method: string;
  args: unknown[];
}

type ResultMessage = { gw: 'dir-result'; id: number; inf: number } & (
  | { ok: true; value: unknown }
  | { ok: false; error: { name: string; message: string } }
);

/** Parent → child: a message published on a channel the child subscribed to. */
interface PublishedMessage {
  gw: 'dir-message';
  sub: number;
  message: string;
}

/** Directory methods a child may call with plain arguments (subscriptions are handled apart). */
const PLAIN_METHODS = new Set([
  'registerProcess',
  'heartbeat',
  'getProcess',
  'listProcesses',
  'removeProcess',
  'sweep',
  'createRoom',
  'updateRoom',
  'removeRoom',
  'getRoom',
  'findRooms',
  'reserveSeat',
  'consumeSeat',
  'holdSeat',
  'getSeat',
  'releaseSeat',
  'restoreSeat',
  'addTicket',
  'cancelTicket',
  'listTickets',
  'claimTickets',
  'ticketStatus',
  'createPeerSession',
  'takePeerSlot',
  'leavePeerSession',
  'publish',
]);
const MAX_ARGS = 5;
/** Subscriptions one child may hold: a bound on what a runaway child makes the parent keep. */
export const MAX_CHILD_SUBSCRIPTIONS = 4096;

/**
 * Answers the Directory calls a child sends over its IPC channel, forwarding the messages of the
 * channels it subscribed to. Returns the function that stops serving it (called by itself when the
 * channel closes), which drops the child's subscriptions.
 */
export function serveDirectory(child: ChildProcess | IpcEndpoint, directory: Directory): () => void {
  const endpoint = child instanceof ChildProcess ? childEndpoint(child) : child;
  const subscriptions = new Map<number, Promise<Unsubscribe | null>>();
  let served = true;

  const reply = (id: number, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => {
    if (!served) return;
    const message: ResultMessage = outcome.ok
      ? { gw: 'dir-result', id, inf: Number.POSITIVE_INFINITY, ok: true, value: outcome.value }
      : { gw: 'dir-result', id, inf: Number.POSITIVE_INFINITY, ok: false, error: errorShape(outcome.error) };
    endpoint.send(message, ignoreSendError);
  };

  const run = (call: CallMessage): Promise<unknown> => {
    const { method, args } = call;
    if (PLAIN_METHODS.has(method)) {
      const fn = (directory as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
      return fn.apply(directory, args);
    }
    if (method === 'subscribe') return subscribe(args[0], args[1]);
    if (method === 'unsubscribe') return unsubscribe(args[0]);
    return Promise.reject(new Error(`no directory method ${JSON.stringify(method)}`));
  };

  const subscribe = async (channel: unknown, sub: unknown): Promise<void> => {
    if (typeof channel !== 'string' || !Number.isSafeInteger(sub))
      throw new TypeError('subscribe takes a channel name and a subscription number');
    const id = sub as number;
    if (subscriptions.has(id)) throw new Error(`subscription ${id} exists`);
    if (subscriptions.size >= MAX_CHILD_SUBSCRIPTIONS)
      throw new Error(`a child holds at most ${MAX_CHILD_SUBSCRIPTIONS} subscriptions`);
    const forward = (message: string) => {
      if (served)
        endpoint.send({ gw: 'dir-message', sub: id, message } satisfies PublishedMessage, ignoreSendError);
    };
    const subscribed = directory.subscribe(channel, forward);
    subscriptions.set(
      id,
      subscribed.catch(() => null),
    );
    try {
      await subscribed;
    } catch (error) {
      subscriptions.delete(id);
      throw error;
    }
  };

  const unsubscribe = async (sub: unknown): Promise<void> => {
    const pending = subscriptions.get(sub as number);
    if (pending === undefined) return;
    subscriptions.delete(sub as number);
    await (await pending)?.();
  };

  const unsubscribeAll = async (): Promise<void> => {
    const all = [...subscriptions.values()];
    subscriptions.clear();
    for (const pending of all) await (await pending)?.().catch(() => {});
  };

  const removeMessage = endpoint.onMessage((message) => {
    const call = parseCall(message);
    if (call === null) return;
    Promise.resolve()
      .then(() => run(call))
      .then(
        (value) => reply(call.id, { ok: true, value }),
        (error: unknown) => reply(call.id, { ok: false, error }),
      );
  });
  const stop = () => {
    if (!served) return;
    served = false;
    removeMessage();
    removeDisconnect();
    void unsubscribeAll();
  };
  const removeDisconnect = endpoint.onDisconnect(stop);
  return stop;
}

function parseCall(message: unknown): CallMessage | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as Record<string, unknown>;
  if (m.gw !== 'dir' || !Number.isSafeInteger(m.id) || typeof m.method !== 'string') return null;
  if (!Array.isArray(m.args) || m.args.length > MAX_ARGS) return null;
  return m as unknown as CallMessage;
}

function errorShape(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** The error a child sees for a failed call: RangeError and TypeError keep their kind (misuse). */
function errorFrom(shape: { name: string; message: string }): Error {
  if (shape.name === 'RangeError') return new RangeError(shape.message);
  if (shape.name === 'TypeError') return new TypeError(shape.message);
  return new Error(shape.message);
}

export interface IpcDirectoryOptions {
  /** The channel to the parent serving the directory (default: this process's own). */
  endpoint?: IpcEndpoint;
  /** A call not answered within this many milliseconds rejects (default 5000). */
  timeoutMs?: number;
}

/**
 * Call and subscription numbers are unique in the process, not per IpcDirectory: a child may make
 * several on its one channel, and each must know its own replies and messages among all of them.
 */
let nextCallId = 1;
let nextSubscription = 1;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A Directory whose calls are answered by the parent process's directory (see serveDirectory). */
export class IpcDirectory implements Directory {
  private readonly endpoint: IpcEndpoint;
  private readonly timeoutMs: number;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<number, (message: string) => void>();
  private readonly removers: (() => void)[];
  private closed = false;

  constructor(options: IpcDirectoryOptions = {}) {
    const endpoint = options.endpoint ?? parentEndpoint();
    if (endpoint === null)
      throw new Error('IpcDirectory needs an IPC channel to a parent serving the directory (fork it)');
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new RangeError(`timeoutMs must be a positive finite number, got ${timeoutMs}`);
    this.endpoint = endpoint;
    this.timeoutMs = timeoutMs;
    this.removers = [
      endpoint.onMessage((message) => this.onMessage(message)),
      endpoint.onDisconnect(() => this.failAll(new Error('IPC channel to the directory closed'))),
    ];
  }

  registerProcess(record: ProcessRecord, ttlMs: number): Promise<void> {
    return this.call('registerProcess', [record, ttlMs]);
  }
  heartbeat(processId: string, state: ProcessState, load: ProcessLoad, ttlMs: number): Promise<boolean> {
    return this.call('heartbeat', [processId, state, load, ttlMs]);
  }
  getProcess(processId: string): Promise<ProcessRecord | null> {
    return this.call('getProcess', [processId]);
  }
  listProcesses(): Promise<ProcessRecord[]> {
    return this.call('listProcesses', []);
  }
  removeProcess(processId: string): Promise<void> {
    return this.call('removeProcess', [processId]);
  }
  sweep(): Promise<string[]> {
    return this.call('sweep', []);
  }
  createRoom(listing: Omit<RoomListing, 'seats' | 'createdAt'>): Promise<boolean> {
    return this.call('createRoom', [listing]);
  }
  updateRoom(
    roomId: string,
    patch: { locked?: boolean; metadata?: RoomMetadata; maxClients?: number },
  ): Promise<boolean> {
    return this.call('updateRoom', [roomId, patch]);
  }
  removeRoom(roomId: string): Promise<void> {
    return this.call('removeRoom', [roomId]);
  }
  getRoom(roomId: string): Promise<RoomListing | null> {
    return this.call('getRoom', [roomId]);
  }
  findRooms(query: RoomQuery): Promise<RoomListing[]> {
    return this.call('findRooms', [query]);
  }
  reserveSeat(roomId: string, seat: Parameters<Directory['reserveSeat']>[1]): Promise<ReserveResult> {
    return this.call('reserveSeat', [roomId, seat]);
  }
  consumeSeat(seatId: string, roomId: string): Promise<ConsumeResult> {
    return this.call('consumeSeat', [seatId, roomId]);
  }
  holdSeat(seatId: string, ttlMs: number): Promise<boolean> {
    return this.call('holdSeat', [seatId, ttlMs]);
  }
  getSeat(seatId: string): Promise<Seat | null> {
    return this.call('getSeat', [seatId]);
  }
  releaseSeat(seatId: string): Promise<void> {
    return this.call('releaseSeat', [seatId]);
  }
  restoreSeat(seat: Seat): Promise<boolean> {
    return this.call('restoreSeat', [seat]);
  }
  addTicket(ticket: Ticket): Promise<void> {
    return this.call('addTicket', [ticket]);
  }
  cancelTicket(ticketId: string): Promise<boolean> {
    return this.call('cancelTicket', [ticketId]);
  }
  listTickets(pool?: string): Promise<Ticket[]> {
    return this.call('listTickets', pool === undefined ? [] : [pool]);
  }
  claimTickets(
    ticketIds: string[],
    match: { matchId: string; roomId: string },
    resultTtlMs: number,
  ): Promise<boolean> {
    return this.call('claimTickets', [ticketIds, match, resultTtlMs]);
  }
  ticketStatus(ticketId: string): Promise<TicketStatus> {
    return this.call('ticketStatus', [ticketId]);
  }
  createPeerSession(
    sessionId: string,
    maxPeers: number,
    userId: string,
    ttlMs: number,
    maxPerUser?: number,
  ): Promise<PeerSessionCreated> {
    return this.call('createPeerSession', [sessionId, maxPeers, userId, ttlMs, maxPerUser]);
  }
  takePeerSlot(sessionId: string, userId: string, ttlMs: number): Promise<PeerSlotResult> {
    return this.call('takePeerSlot', [sessionId, userId, ttlMs]);
  }
  leavePeerSession(sessionId: string, userId: string, emptyTtlMs?: number): Promise<boolean> {
    return this.call('leavePeerSession', [sessionId, userId, emptyTtlMs]);
  }
  publish(channel: string, message: string): Promise<void> {
    return this.call('publish', [channel, message]);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
    // The id is ours and the handler in place before asking: a message may overtake the reply.
    const sub = nextSubscription++;
    this.handlers.set(sub, handler);
    try {
      await this.call('subscribe', [channel, sub]);
    } catch (error) {
      this.handlers.delete(sub);
      // A timeout may hide a subscription the parent made: drop it there too (an unknown id is ignored).
      if (!this.closed && this.endpoint.connected) void this.call('unsubscribe', [sub]).catch(() => {});
      throw error;
    }
    return async () => {
      if (!this.handlers.delete(sub) || this.closed || !this.endpoint.connected) return;
      await this.call('unsubscribe', [sub]);
    };
  }

  /** Drops its own subscriptions in the parent (not others' on the channel); the directory stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    const subs = [...this.handlers.keys()];
    const drop = this.endpoint.connected
      ? Promise.all(subs.map((sub) => this.call('unsubscribe', [sub]).catch(() => {})))
      : null;
    this.closed = true;
    this.handlers.clear();
    await drop;
    for (const remove of this.removers) remove();
    this.failAll(new Error('directory closed'));
  }

  private call<T>(method: string, args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new Error('directory closed'));
    if (!this.endpoint.connected) return Promise.reject(new Error('IPC channel to the directory closed'));
    const id = nextCallId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new Error(`directory call ${method} timed out after ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      const message: CallMessage = { gw: 'dir', id, method, args };
      this.endpoint.send(message, (error) => {
        if (error !== null) this.settle(id, error);
      });
    });
  }

  private settle(id: number, error: Error | null, value?: unknown): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (error === null) pending.resolve(value);
    else pending.reject(error);
  }

  private failAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, error);
  }

  private onMessage(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const m = message as Record<string, unknown>;
    if (m.gw === 'dir-message') {
      const handler = this.handlers.get(m.sub as number);
      const text = m.message;
      // Each on its own microtask, as the embedded directory delivers.
      if (handler !== undefined && typeof text === 'string') queueMicrotask(() => handler(text));
      return;
    }
    if (m.gw !== 'dir-result' || typeof m.id !== 'number') return;
    const result = m as unknown as ResultMessage;
    if (result.inf !== Number.POSITIVE_INFINITY)
      this.settle(result.id, new Error("the IPC channel must use 'advanced' serialization (fork option)"));
    else if (result.ok) this.settle(result.id, null, result.value);
    else this.settle(result.id, errorFrom(result.error));
  }
}
