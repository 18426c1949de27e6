import { checkTime, NO_TIME_YET } from '../../time/check-time.js';
import type { PeerConnection } from '../links/peer-connection.js';
import type { DeterministicRandom } from '../math/deterministic-random.js';
import {
  Departure,
  DepartureQuery,
  DepartureReply,
  JoinRequest,
  LatenessReport,
  ListDigests,
  Lost,
  Welcome,
} from './control-messages.js';
import { Departures } from './departures.js';
import { snapshotArrived, type WelcomeValue, welcomeArrived } from './late-join.js';
import { LockstepCore } from './lockstep-core.js';
import type {
  LockstepEvent,
  LockstepSessionOptions,
  LockstepStats,
  LockstepStatus,
} from './lockstep-options.js';
import { TurnRunner } from './turn-runner.js';
import { LATENESS_REPORT_INTERVAL } from './turn-timing.js';

/** Datagrams the packet layer refused as malformed (stale and duplicate ones are the network's doing). */
function malformedPackets(connection: PeerConnection): number {
  const k = connection.endpoint.stats();
  return k.packetsInvalid + k.packetsTooLargeToReceive + k.fragmentsInvalid;
}

type ControlMessage = NonNullable<ReturnType<PeerConnection['channels']['receive']>>;

/** Seconds between packets to a peer outside the session that we still owe a reliable message. */
const IDLE_INTERVAL = 0.25;
const JOIN_REQUEST_INTERVAL = 1;

/**
 * Deterministic lockstep between the peers of a PeerLinks: every peer runs the same turns with the
 * same commands, so only commands travel (docs/lockstep.md). Commands queued during turn N run at
 * turn N + delay on every peer; each peer's list for a turn is resent in every packet until acked;
 * a turn runs only when every member's list for it is in, otherwise the session stalls and says
 * whom it waits for. Checksums of the state are compared every turn; the host (the earliest
 * member) adapts the turn length to the round trips and admits late joiners with a snapshot; a
 * peer that leaves or times out is counted out after an agreed turn. Nothing the network does
 * throws: stalls, desyncs, joins and departures are events (pollEvent) and figures (stats).
 */
export class LockstepSession<T> {
  private readonly core: LockstepCore<T>;
  private readonly runner: TurnRunner<T>;
  private readonly departures: Departures<T>;
  private now = NO_TIME_YET;
  private started = false;
  private stalledSince = -1;
  private stallReported = false;
  private stalls = 0;
  private stallSeconds = 0;
  private commandsQueued = 0;
  private lastLatenessReport = Number.NEGATIVE_INFINITY;
  private lastJoinRequest = Number.NEGATIVE_INFINITY;
  private readonly lastSent: Float64Array;
  private readonly clocked: Float64Array;
  /** The links' handler, made once (an update allocates nothing in the steady state). */
  private readonly onDatagram = (peer: number, data: Uint8Array) => this.receive(peer, data, this.now);

  constructor(options: LockstepSessionOptions<T>) {
    this.core = new LockstepCore<T>(options);
    this.runner = new TurnRunner<T>(this.core);
    this.departures = new Departures<T>(this.core);
    this.lastSent = new Float64Array(this.core.maxPeers).fill(Number.NEGATIVE_INFINITY);
    this.clocked = new Float64Array(this.core.maxPeers).fill(Number.NEGATIVE_INFINITY);
  }

  /** The shared PRNG: use it only inside executeTurn, so every peer draws the same numbers. */
  get random(): DeterministicRandom {
    return this.core.random;
  }

  /** The last turn run (-1 before any). */
  get turn(): number {
    return this.core.executed;
  }

  /** The turn length now, ms (changes between turns, the same turn on every peer). */
  get turnMs(): number {
    return this.core.timing.turnMs;
  }

  get self(): number {
    return this.core.self;
  }

  /** The peers in the session now or from an agreed later turn, ascending. */
  get members(): readonly number[] {
    return this.core.membership.current();
  }

  get status(): LockstepStatus {
    const c = this.core;
    const stalled = c.state === 'running' && this.stalledSince >= 0;
    return {
      state: stalled ? 'stalled' : c.state,
      turn: c.executed,
      waitingFor: stalled ? [...this.runner.waitingFor] : [],
    };
  }

  /**
   * Queues a command of this peer for the turn `delay` after the current one (before this peer's
   * first turn: for its first). Throws a RangeError when the session is not running, when
   * maxCommandsPerTurn are already queued for that turn, or for a value outside the schema.
   */
  queue(command: T): void {
    const c = this.core;
    if (c.state !== 'running')
      throw new RangeError(`LockstepSession.queue: the session is ${c.state}, not running`);
    const pending = this.runner.pending;
    if (pending.length >= c.options.maxCommandsPerTurn)
      throw new RangeError(
        `LockstepSession.queue: ${c.options.maxCommandsPerTurn} commands already queued for turn ${c.executed + c.delay} (maxCommandsPerTurn)`,
      );
    // Encoded and read back: the value every peer will decode, and a schema check at the call.
    const decoded = c.codec.decode(c.codec.encode(command));
    if (!decoded.ok) throw new RangeError(`LockstepSession.queue: ${decoded.error}`);
    pending.push(decoded.value);
    this.commandsQueued++;
  }

  /** Commands queued for this peer's next list (at most maxCommandsPerTurn). */
  get queued(): number {
    return this.runner.pending.length;
  }

  /** Takes the next event, or null. */
  pollEvent(): LockstepEvent | null {
    return this.core.pollEvent();
  }

  /**
   * Advances to `now` (seconds, never backwards): receives, handles joins and departures, runs
   * every turn that is due and complete (at most maxTurnsPerUpdate), and sends.
   */
  update(now: number): void {
    this.now = checkTime('LockstepSession.update', now, this.now);
    const c = this.core;
    if (c.state === 'closed') return;
    c.now = now;
    c.traffic.update(now);
    c.traffic.receive(this.onDatagram);
    for (let e = c.traffic.pollEvent(); e !== null; e = c.traffic.pollEvent()) {
      if (e.kind === 'connected') {
        if (c.state === 'joining') this.lastJoinRequest = Number.NEGATIVE_INFINITY;
      } else this.departures.lost(e.peer, e.kind);
    }
    for (let p = 0; p < c.maxPeers; p++) if (p !== c.self) this.control(p, now);
    if (c.state === 'joining' && now - this.lastJoinRequest >= JOIN_REQUEST_INTERVAL) {
      this.lastJoinRequest = now;
      for (const p of c.traffic.connectedPeers()) c.send(p, JoinRequest, {});
    }
    if (c.state === 'running') {
      if (!this.started) {
        this.started = true;
        c.timing.begin(now);
      }
      this.runTurns(now);
      this.reportLateness(now);
    }
    this.send(now);
  }

  private receive(peer: number, data: Uint8Array, now: number): void {
    const c = this.core;
    if (!c.traffic.admit(peer, data.length, now)) return;
    const connection = c.connections[peer]!;
    // The packet layer's clock moves only when it is updated: brought to now before an ack is
    // read, so round trips are not measured short by up to the time since this peer's last packet.
    if (this.clocked[peer] !== now) {
      this.clocked[peer] = now;
      connection.endpoint.update(now);
    }
    const rejected = connection.channels.stats().packetsRejected;
    const malformed = malformedPackets(connection);
    try {
      connection.receivePacket(data);
    } catch (error) {
      // A last resort, as for control messages: a datagram never throws out of update.
      c.refuse(peer, `peer ${peer}: packet failed: ${(error as Error).message}`);
      return;
    }
    if (connection.channels.stats().packetsRejected !== rejected) {
      c.traffic.peers[peer].refused++;
      c.lastRefusal = `peer ${peer}: ${connection.channels.lastRejection}`;
    } else if (malformedPackets(connection) !== malformed) {
      c.traffic.peers[peer].refused++;
      c.lastRefusal = `peer ${peer}: malformed packet`;
    }
  }

  /** Handles the control messages `peer` sent. */
  private control(peer: number, now: number): void {
    const c = this.core;
    const channels = c.connections[peer]!.channels;
    for (let message = channels.receive(0); message !== null; message = channels.receive(0)) {
      if (c.state === 'closed' || c.state === 'removed') continue;
      const named = (message.value as { peer?: unknown } | null)?.peer;
      if (typeof named === 'number' && named >= c.maxPeers) {
        c.refuse(peer, `peer ${peer}: ${message.name} names peer ${named}, past the session's ${c.maxPeers}`);
        continue;
      }
      try {
        this.handle(peer, message, now);
      } catch (error) {
        // A last resort: nothing a peer sends may throw out of update (the checks above should).
        c.refuse(peer, `peer ${peer}: ${message.name} failed: ${(error as Error).message}`);
      }
    }
  }

  /** One control message from `peer`. */
  private handle(peer: number, message: ControlMessage, now: number): void {
    const c = this.core;
    if (message.is(JoinRequest)) {
      if (!c.membership.isCurrent(peer)) c.joinRequests.add(peer);
    } else if (message.is(Welcome)) welcomeArrived(c, peer, message.value as WelcomeValue);
    else if (message.is(LatenessReport)) c.timing.report(peer, message.value.ms, now);
    else if (message.is(Lost)) {
      // A peer already counted out cannot get others counted out (a cut between two peers drops one).
      if (c.membership.isCurrent(peer) && !c.membership.lost[peer])
        this.departures.lost(message.value.peer, message.value.reason);
    } else if (message.is(DepartureQuery)) {
      if (c.membership.isCurrent(peer) || c.state === 'joining')
        this.departures.query(peer, message.value.peer, message.value.from);
    } else if (message.is(c.Forward)) {
      const v = message.value;
      this.departures.forwarded(peer, v.peer, v.turn, v.list);
    } else if (message.is(DepartureReply))
      this.departures.reply(peer, message.value.peer, message.value.last, message.value.executed);
    else if (message.is(Departure)) {
      const v = message.value;
      this.departures.announced(peer, v.peer, v.afterTurn, v.reason);
    } else if (message.is(ListDigests))
      this.runner.digestsArrived(peer, message.value.turn, message.value.digests);
    else if (message.name === 'block') snapshotArrived(c, peer, message.value as Uint8Array, now);
  }

  private runTurns(now: number): void {
    const c = this.core;
    const runner = this.runner;
    for (let n = 0; n < c.options.maxTurnsPerUpdate && c.state === 'running'; n++) {
      const next = c.executed + 1;
      if (!c.timing.due(now) && !runner.behind(next)) break;
      runner.seal(now);
      if (!runner.complete(next)) {
        if (this.stalledSince < 0) {
          this.stalledSince = now;
          this.stalls++;
        }
        if (!this.stallReported && now - this.stalledSince >= c.options.stallReportSeconds) {
          this.stallReported = true;
          c.pushEvent({ kind: 'stalled', turn: next, waitingFor: [...runner.waitingFor] });
        }
        break;
      }
      runner.run(next);
      c.timing.ran(now);
      if (this.stalledSince >= 0) {
        const seconds = now - this.stalledSince;
        this.stallSeconds += seconds;
        if (this.stallReported) c.pushEvent({ kind: 'resumed', turn: next, seconds });
        this.stalledSince = -1;
        this.stallReported = false;
      }
    }
  }

  private reportLateness(now: number): void {
    const c = this.core;
    if (now - this.lastLatenessReport < LATENESS_REPORT_INTERVAL) return;
    this.lastLatenessReport = now;
    const host = c.membership.acting();
    if (host === c.self || host < 0) return;
    const ms = c.timing.ownLatenessMs();
    if (ms > 0) c.send(host, LatenessReport, { ms: Math.min(0xffff, Math.round(ms)) });
  }

  /**
   * One packet to each peer that needs one: at once after a seal, every resendSeconds while it
   * lacks lists or messages, and at least once a turn to a member (its acks).
   */
  private send(now: number): void {
    const c = this.core;
    const sealed = c.sealed;
    const resend = c.options.resendSeconds;
    c.sealed = false;
    for (let p = 0; p < c.maxPeers; p++) {
      if (p === c.self) continue;
      const connection = c.connections[p]!;
      const lists = c.channels[p]!.unacked > 0;
      const messages = connection.channels.channels[0].sendQueueDepth > 0;
      const since = now - this.lastSent[p];
      const member = c.membership.isCurrent(p);
      const due = member
        ? (sealed && lists) || ((lists || messages) && since >= resend) || since >= c.timing.turnMs / 1000
        : messages && since >= (c.state === 'joining' ? resend : IDLE_INTERVAL);
      if (!due) continue;
      connection.update(now);
      this.lastSent[p] = now;
    }
  }

  stats(): LockstepStats {
    const c = this.core;
    const peers = c.traffic.peers.map((p, i) => ({
      ...p,
      rttMs: i === c.self ? 0 : c.connections[i]!.rttMs,
    }));
    return {
      turn: c.executed,
      turnMs: c.timing.turnMs,
      stalls: this.stalls,
      stallSeconds: this.stallSeconds + (this.stalledSince >= 0 ? this.now - this.stalledSince : 0),
      commandsQueued: this.commandsQueued,
      commandsExecuted: this.runner.commandsExecuted,
      desyncs: this.runner.desyncs,
      peers,
      lastRefusal: c.lastRefusal,
      eventsDropped: c.eventsDropped,
      messagesDropped: c.messagesDropped,
    };
  }

  /** Says goodbye to every peer (they count this one out) and stops; idempotent. */
  close(): void {
    const c = this.core;
    if (c.state === 'closed') return;
    c.state = 'closed';
    for (const connection of c.connections) connection?.close();
    c.traffic.close();
  }
}
