/**
 * The matchmaker: players (or parties) queue tickets in the directory; a periodic pass lists the
 * queue, forms matches by the pool's rules (match-rules.ts) on that copy, outside any lock, and
 * commits each match with the directory's atomic claimTickets, which is the re-check: it takes all
 * of a match's tickets or none, so two matchmakers on one directory never put a ticket in two
 * matches, and a ticket cancelled meanwhile stops its match.
 *
 * Order: create, then claim. For each match the game's onMatch creates the room and reserves its
 * seats; only then are the tickets claimed with that room's id. A ticket's status therefore only
 * ever says 'matched' with a room that was made, and a failed room creation leaves the tickets
 * queued for the next pass. When the claim loses (a ticket was cancelled or matched by another
 * matchmaker), onAbandon releases the unused room. The other order cannot be made sound with the
 * directory: claimed tickets cannot be put back in the queue, so a room creation that failed after
 * the claim would leave players 'matched' into nothing. The price of this order is a room made
 * and dropped on a lost race; if a process dies between onMatch and the claim, the room's unused
 * reservations lapse and the empty room is disposed by its grace time.
 *
 * Peer pools (peerPools) form matches by the same rules but make no room: each match is a
 * peer-to-peer session with a fresh random id, claimed as "p2p:<sessionId>" (peer-sessions.ts);
 * its players in claim order are the slots, and the backend answers each one's poll with a peer
 * token for its slot. A lost claim costs nothing there: no room was made.
 */
import type { Directory, RoomMetadata, Ticket, TicketStatus } from './directory.js';
import { createMatchFormer, type MatchFormer, type MatchRules, validateMatchRules } from './match-rules.js';
import { checkPeerPoolSize, newPeerSessionId, peerSessionRoomId } from './peer-sessions.js';
import { randomId } from './seat-token.js';

export interface MatchmakerOptions {
  directory: Directory;
  /** Rules of every pool not named in `pools`; without it only the named pools take tickets. */
  rules?: MatchRules;
  /** Rules per pool name (e.g. "duel/eu"), overriding `rules`. */
  pools?: Record<string, MatchRules>;
  /**
   * Rules per pool whose matches are peer-to-peer sessions (2..64 players) rather than rooms: the
   * backend (given its rendezvous option) answers each player's poll with a peer token.
   */
  peerPools?: Record<string, MatchRules>;
  /**
   * Makes the match's room and reserves its seats; rejects to leave the tickets queued. Needed
   * unless every pool is a peer pool.
   */
  onMatch?: (tickets: Ticket[], match: { matchId: string; pool: string }) => Promise<{ roomId: string }>;
  /** Releases a room made by onMatch whose tickets could not be claimed. */
  onAbandon?: (roomId: string) => Promise<void> | void;
  /** Queued tickets one user may have at once (default 1), counted per Matchmaker. */
  ticketsPerUser?: number;
  /** How long a match result stays readable by status() (default 60 s). */
  resultTtlMs?: number;
  /** onMatch calls in flight at once in one pass (default 16). */
  concurrency?: number;
  /** The clock, unix milliseconds (default Date.now); give tests and the directory the same one. */
  nowMs?: () => number;
}

export interface EnqueueRequest {
  /** The party: one user or several matched together. */
  userIds: string[];
  pool: string;
  skill: number;
  properties?: RoomMetadata;
}

export interface MatchmakerMetrics {
  matches: number;
  playersMatched: number;
  /** From a ticket's createdAt to its match, over the last 1,024 matched tickets (NaN before any). */
  timeToMatchP50Ms: number;
  timeToMatchP99Ms: number;
  ticketsCancelled: number;
  /** Queued tickets per pool at the last pass. */
  queueDepth: Record<string, number>;
  lastProcessMs: number;
  passes: number;
  /** onMatch rejected or threw (its tickets stayed queued). */
  onMatchErrors: number;
  /** Claims lost to a cancellation or another matchmaker (the room was abandoned). */
  claimsLost: number;
  /** Other failures: a pass whose listing failed, a claim or onAbandon that threw. */
  errors: number;
  lastError: unknown;
}

/** A pool's rules, its pass, and whether its matches are peer sessions. */
interface Former {
  rules: MatchRules;
  form: MatchFormer;
  peer: boolean;
}

/** Longest user id or pool name accepted (as seat-token's ids). */
const MAX_NAME_LENGTH = 64;
const SAMPLES = 1024;

export class Matchmaker {
  private readonly directory: Directory;
  private readonly formers = new Map<string, Former>();
  private readonly fallback: Former | null;
  private readonly onMatch: MatchmakerOptions['onMatch'];
  private readonly onAbandon: MatchmakerOptions['onAbandon'];
  private readonly ticketsPerUser: number;
  private readonly resultTtlMs: number;
  private readonly concurrency: number;
  private readonly now: () => number;
  /** This matchmaker's queued tickets per user, for the per-user limit. */
  private readonly queuedByUser = new Map<string, number>();
  /** This matchmaker's queued tickets: their users and the first listing sure to include them. */
  private readonly ownTickets = new Map<string, { userIds: string[]; listedFrom: number }>();
  private listings = 0;
  private readonly waits = new Float64Array(SAMPLES);
  private waitCount = 0;
  private readonly counters = {
    matches: 0,
    playersMatched: 0,
    ticketsCancelled: 0,
    lastProcessMs: 0,
    passes: 0,
    onMatchErrors: 0,
    claimsLost: 0,
    errors: 0,
    lastError: undefined as unknown,
  };
  private queueDepth: Record<string, number> = {};
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private intervalMs = 0;

  constructor(options: MatchmakerOptions) {
    this.directory = options.directory;
    const prepare = (rules: MatchRules, peer: boolean): Former => {
      validateMatchRules(rules);
      return { rules, form: createMatchFormer(rules), peer };
    };
    this.fallback = options.rules === undefined ? null : prepare(options.rules, false);
    for (const [pool, rules] of Object.entries(options.pools ?? {})) {
      checkName('pool', pool);
      this.formers.set(pool, prepare(rules, false));
    }
    for (const [pool, rules] of Object.entries(options.peerPools ?? {})) {
      checkName('pool', pool);
      if (this.formers.has(pool)) throw new RangeError(`pool "${pool}" is both a room pool and a peer pool`);
      const former = prepare(rules, true);
      checkPeerPoolSize(pool, rules.minPlayers, rules.maxPlayers);
      this.formers.set(pool, former);
    }
    if (this.fallback === null && this.formers.size === 0)
      throw new RangeError('Matchmaker needs rules or at least one pool');
    const roomPools = this.fallback !== null || [...this.formers.values()].some((f) => !f.peer);
    if (options.onMatch !== undefined ? typeof options.onMatch !== 'function' : roomPools)
      throw new RangeError('onMatch must be a function (it makes the rooms of room pools)');
    this.onMatch = options.onMatch;
    this.onAbandon = options.onAbandon;
    this.ticketsPerUser = positiveInteger('ticketsPerUser', options.ticketsPerUser ?? 1);
    this.resultTtlMs = options.resultTtlMs ?? 60_000;
    if (!Number.isFinite(this.resultTtlMs) || this.resultTtlMs <= 0)
      throw new RangeError(`resultTtlMs must be a positive finite number, got ${this.resultTtlMs}`);
    this.concurrency = positiveInteger('concurrency', options.concurrency ?? 16);
    this.now = options.nowMs ?? Date.now;
  }

  /** Queues a ticket; returns its id. Throws RangeError on a bad request or a user over the limit. */
  async enqueue(request: EnqueueRequest): Promise<string> {
    const { userIds, pool, skill } = request;
    checkName('pool', pool);
    const former = this.formerOf(pool);
    if (former === null) throw new RangeError(`pool "${pool}" has no match rules`);
    if (!Array.isArray(userIds) || userIds.length < 1 || userIds.length > former.rules.maxPlayers)
      throw new RangeError(
        `a ticket seats 1..${former.rules.maxPlayers} users in pool "${pool}", got ${userIds?.length}`,
      );
    for (const u of userIds) checkName('user id', u);
    if (new Set(userIds).size !== userIds.length) throw new RangeError('a party names a user twice');
    if (typeof skill !== 'number' || !Number.isFinite(skill))
      throw new RangeError(`skill must be a finite number, got ${skill}`);
    for (const u of userIds)
      if ((this.queuedByUser.get(u) ?? 0) >= this.ticketsPerUser)
        throw new RangeError(`user ${u} already has ${this.ticketsPerUser} queued ticket(s)`);
    const ticket: Ticket = {
      ticketId: randomId(),
      userIds: [...userIds],
      pool,
      skill,
      properties: { ...(request.properties ?? {}) },
      createdAt: this.now(),
    };
    // Counted before the await, so two enqueues of one user at once cannot both pass the limit.
    this.track(ticket.ticketId, ticket.userIds);
    try {
      await this.directory.addTicket(ticket);
      const own = this.ownTickets.get(ticket.ticketId);
      if (own !== undefined) own.listedFrom = this.listings + 1;
    } catch (error) {
      this.untrack(ticket.ticketId);
      throw error;
    }
    return ticket.ticketId;
  }

  /** Takes a ticket out of the queue; false when it is no longer queued (matched, gone). */
  async cancel(ticketId: string): Promise<boolean> {
    const cancelled = await this.directory.cancelTicket(ticketId);
    if (cancelled) {
      this.counters.ticketsCancelled++;
      this.untrack(ticketId);
    }
    return cancelled;
  }

  status(ticketId: string): Promise<TicketStatus> {
    return this.directory.ticketStatus(ticketId);
  }

  /** One pass over the queue; a call while a pass runs waits for that pass instead. */
  process(): Promise<void> {
    if (this.running === null)
      this.running = this.pass().finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Runs process() every intervalMs (measured from the end of one pass to the next). */
  start(intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0)
      throw new RangeError(`intervalMs must be a positive finite number, got ${intervalMs}`);
    if (this.timer !== null) throw new RangeError('the matchmaker is already started');
    this.intervalMs = intervalMs;
    this.schedule();
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.intervalMs = 0;
    await this.running?.catch(() => {});
  }

  metrics(): MatchmakerMetrics {
    const n = Math.min(this.waitCount, SAMPLES);
    const sorted = this.waits.slice(0, n).sort();
    const q = (p: number) => (n === 0 ? Number.NaN : sorted[Math.min(n - 1, Math.floor(p * n))]);
    return {
      ...this.counters,
      timeToMatchP50Ms: q(0.5),
      timeToMatchP99Ms: q(0.99),
      queueDepth: { ...this.queueDepth },
    };
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.process()
        .catch(() => {}) // counted in pass()
        .finally(() => {
          if (this.timer !== null && this.intervalMs > 0) this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref?.();
  }

  private async pass(): Promise<void> {
    const started = performance.now();
    try {
      const listing = ++this.listings;
      const queue = await this.directory.listTickets();
      const now = this.now();
      const byPool = new Map<string, Ticket[]>();
      const listed = new Set<string>();
      for (const t of queue) {
        listed.add(t.ticketId);
        const list = byPool.get(t.pool);
        if (list === undefined) byPool.set(t.pool, [t]);
        else list.push(t);
      }
      // Own tickets gone from the queue (matched by another matchmaker, cancelled elsewhere,
      // lost with the directory) no longer count against their users.
      // A ticket still being added (or added after this listing began) may be missing: kept.
      for (const [id, own] of [...this.ownTickets])
        if (own.listedFrom <= listing && !listed.has(id)) this.untrack(id);
      const depth: Record<string, number> = {};
      const matches: { pool: string; tickets: Ticket[]; peer: boolean }[] = [];
      for (const [pool, tickets] of byPool) {
        depth[pool] = tickets.length;
        const former = this.formerOf(pool);
        if (former === null) continue;
        for (const m of former.form(tickets, now)) matches.push({ pool, tickets: m, peer: former.peer });
      }
      this.queueDepth = depth;
      // Matches are committed with bounded concurrency: room creation may wait on another process.
      let nextMatch = 0;
      const worker = async () => {
        while (nextMatch < matches.length) {
          const m = matches[nextMatch++];
          await this.commit(m.pool, m.tickets, m.peer);
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, matches.length) }, worker));
    } catch (error) {
      this.fail(error);
      throw error;
    } finally {
      this.counters.passes++;
      this.counters.lastProcessMs = performance.now() - started;
    }
  }

  private async commit(pool: string, tickets: Ticket[], peer: boolean): Promise<void> {
    const matchId = randomId();
    let roomId: string;
    try {
      if (peer) roomId = peerSessionRoomId(newPeerSessionId());
      else if (this.onMatch === undefined) throw new TypeError('no onMatch for a room pool');
      else ({ roomId } = await this.onMatch(tickets, { matchId, pool }));
      if (typeof roomId !== 'string' || roomId === '') throw new TypeError('onMatch returned no roomId');
    } catch (error) {
      this.counters.onMatchErrors++;
      this.counters.lastError = error;
      return;
    }
    const ticketIds = tickets.map((t) => t.ticketId);
    let claimed: boolean;
    try {
      claimed = await this.directory.claimTickets(ticketIds, { matchId, roomId }, this.resultTtlMs);
    } catch (error) {
      this.fail(error);
      // The claim may have landed before the failure: the first ticket's status tells. Unknown →
      // keep the room (players might be sent there); unused, it is disposed when its seats lapse.
      const status = await this.directory.ticketStatus(ticketIds[0]).catch(() => null);
      if (status === null) return;
      claimed = status.state === 'matched' && status.matchId === matchId;
    }
    if (!claimed) {
      this.counters.claimsLost++;
      if (peer) return; // no room was made
      try {
        await this.onAbandon?.(roomId);
      } catch (error) {
        this.fail(error);
      }
      return;
    }
    const matchedAt = this.now();
    this.counters.matches++;
    for (const t of tickets) {
      this.counters.playersMatched += t.userIds.length;
      this.waits[this.waitCount++ % SAMPLES] = Math.max(0, matchedAt - t.createdAt);
      this.untrack(t.ticketId);
    }
  }

  private formerOf(pool: string): Former | null {
    return this.formers.get(pool) ?? this.fallback;
  }

  private track(ticketId: string, userIds: string[]): void {
    this.ownTickets.set(ticketId, { userIds, listedFrom: Number.POSITIVE_INFINITY });
    for (const u of userIds) this.queuedByUser.set(u, (this.queuedByUser.get(u) ?? 0) + 1);
  }

  private untrack(ticketId: string): void {
    const own = this.ownTickets.get(ticketId);
    if (own === undefined) return;
    this.ownTickets.delete(ticketId);
    for (const u of own.userIds) {
      const count = (this.queuedByUser.get(u) ?? 1) - 1;
      if (count > 0) this.queuedByUser.set(u, count);
      else this.queuedByUser.delete(u);
    }
  }

  private fail(error: unknown): void {
    this.counters.errors++;
    this.counters.lastError = error;
  }
}

function checkName(what: string, name: unknown): void {
  if (typeof name !== 'string' || name.length < 1 || name.length > MAX_NAME_LENGTH)
    throw new RangeError(`${what} must be a string of 1..${MAX_NAME_LENGTH} characters, got ${String(name)}`);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be an integer ≥ 1, got ${value}`);
  return value;
}
