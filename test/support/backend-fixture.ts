/**
 * A backend served on a loopback port over an EmbeddedDirectory, with stand-in room processes (they
 * answer create-room requests by listing the room in the directory, as a real process does) and a
 * stand-in matchmaker (the real one lives in matchmaker.ts).
 */
import { afterEach } from 'node:test';
import {
  type Backend,
  type BackendOptions,
  createBackend,
  serveBackend,
} from '../../src/services/backend.js';
import type { MatchmakingQueue } from '../../src/services/backend-matchmake-routes.js';
import type { Directory, ProcessAddresses, RoomMetadata } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import type { EnqueueRequest } from '../../src/services/matchmaker.js';
import { createMatchRoom } from '../../src/services/room-placer.js';
import {
  type CreateRoomReply,
  type CreateRoomRequest,
  processChannel,
  replyChannel,
} from '../../src/services/room-requests.js';
import { randomId } from '../../src/services/seat-token.js';

export const PRIVATE_KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
export const PROTOCOL_ID = 0x1122334455667788n;

export function addressesOf(n: number): ProcessAddresses {
  return {
    udp: `127.0.0.1:${41000 + n}`,
    websocket: `127.0.0.1:${42000 + n}`,
    webrtc: `127.0.0.1:${43000 + n}`,
    signalingUrl: `http://127.0.0.1:${44000 + n}/rtc/offer`,
  };
}

export interface FakeProcessOptions {
  processId: string;
  addresses?: ProcessAddresses;
  maxRooms?: number;
  /** Seats per room it creates (default 2). */
  maxClients?: number;
  /** answer: create and reply · silent: never reply · refuse: reply ok: false. */
  mode?: 'answer' | 'silent' | 'refuse';
  ttlMs?: number;
  rooms?: number;
}

/** A room process as far as the backend can tell: registered, listening, listing rooms it is asked for. */
export class FakeRoomProcess {
  readonly requests: CreateRoomRequest[] = [];
  private unsubscribe: (() => Promise<void>) | null = null;

  private constructor(
    readonly directory: Directory,
    readonly options: FakeProcessOptions,
  ) {}

  static async start(directory: Directory, options: FakeProcessOptions): Promise<FakeRoomProcess> {
    const process = new FakeRoomProcess(directory, options);
    await directory.registerProcess(
      {
        processId: options.processId,
        machine: 'test',
        addresses: options.addresses ?? addressesOf(0),
        state: 'ready',
        maxRooms: options.maxRooms ?? 10,
        load: { rooms: options.rooms ?? 0, clients: 0, tickMs: 1, tickMaxMs: 2 },
        heartbeatAt: 0,
      },
      options.ttlMs ?? 60_000,
    );
    process.unsubscribe = await directory.subscribe(processChannel(options.processId), (message) => {
      void process.handle(JSON.parse(message) as CreateRoomRequest);
    });
    return process;
  }

  private async handle(request: CreateRoomRequest): Promise<void> {
    this.requests.push(request);
    const mode = this.options.mode ?? 'answer';
    if (mode === 'silent') return;
    let reply: CreateRoomReply;
    if (mode === 'refuse') reply = { requestId: request.requestId, ok: false, reason: 'bad options' };
    else {
      const roomId = randomId();
      const maxClients = this.options.maxClients ?? 2;
      const metadata: RoomMetadata = {};
      await this.directory.createRoom({
        roomId,
        name: request.name,
        processId: this.options.processId,
        maxClients,
        locked: false,
        private: request.private ?? false,
        metadata,
      });
      reply = { requestId: request.requestId, ok: true, roomId, maxClients, metadata };
    }
    await this.directory.publish(replyChannel(request.requestId), JSON.stringify(reply));
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }
}

/** The matchmaker's part the routes use, over the directory's queue; match() pairs a pool at once. */
export class FakeMatchmaker implements MatchmakingQueue {
  constructor(private readonly directory: Directory) {}

  async enqueue(request: EnqueueRequest): Promise<string> {
    if (request.pool === 'no-rules') throw new RangeError('pool "no-rules" has no match rules');
    const ticketId = randomId();
    await this.directory.addTicket({ ticketId, properties: {}, ...request, createdAt: Date.now() });
    return ticketId;
  }

  cancel(ticketId: string) {
    return this.directory.cancelTicket(ticketId);
  }

  status(ticketId: string) {
    return this.directory.ticketStatus(ticketId);
  }

  /** Matches every ticket queued in `pool` into one new private room of type `name`. */
  async match(pool: string, name: string): Promise<string> {
    const tickets = await this.directory.listTickets(pool);
    const { roomId } = await createMatchRoom({ directory: this.directory, name });
    const ok = await this.directory.claimTickets(
      tickets.map((t) => t.ticketId),
      { matchId: randomId(), roomId },
      60_000,
    );
    if (!ok) throw new Error('claim failed');
    return roomId;
  }
}

export interface Fixture {
  url: string;
  backend: Backend;
  directory: EmbeddedDirectory;
  matchmaker: FakeMatchmaker;
  close(): Promise<void>;
}

/** A served backend (rate limit off unless given) over a fresh directory. */
export async function startBackend(options: Partial<BackendOptions> = {}): Promise<Fixture> {
  const directory = (options.directory as EmbeddedDirectory | undefined) ?? new EmbeddedDirectory();
  const matchmaker = new FakeMatchmaker(directory);
  const backend = createBackend({
    directory,
    privateKey: PRIVATE_KEY,
    protocolId: PROTOCOL_ID,
    matchmaker,
    rateLimit: false,
    createTimeoutMs: 1000,
    ...options,
  });
  const served = await serveBackend(backend);
  return {
    url: served.url,
    backend,
    directory,
    matchmaker,
    async close() {
      await served.close();
      await directory.close();
    },
  };
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: string };
  headers: Headers;
}

/** One JSON request; the answer's status, parsed body and headers. */
export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  session?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (session !== undefined) headers.Authorization = `Bearer ${session}`;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A guest session on the backend at `url`. */
export async function guest(url: string, name = 'ada'): Promise<{ session: string; userId: string }> {
  const answer = await call(url, 'POST', '/auth', { name });
  if (answer.status !== 200) throw new Error(`auth answered ${answer.status}: ${answer.body.error}`);
  return answer.body as { session: string; userId: string };
}

/**
 * A backend per test: the returned start() serves one (then `prepare` runs on it, e.g. a fake room
 * process), closing the one it served before; the test's afterEach closes the last.
 */
export function backendPerTest(
  prepare?: (fixture: Fixture) => Promise<unknown>,
): (options?: Partial<BackendOptions>) => Promise<Fixture> {
  let fixture: Fixture | null = null;
  afterEach(async () => {
    await fixture?.close();
    fixture = null;
  });
  return async (options = {}) => {
    await fixture?.close();
    fixture = await startBackend(options);
    await prepare?.(fixture);
    return fixture;
  };
}
