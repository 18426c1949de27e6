import { LocalPeerLinks } from '../../src/lockstep/links/local-peer-links.js';
import type { LockstepEvent, LockstepSessionOptions } from '../../src/lockstep/lockstep/lockstep-options.js';
import { LockstepSession } from '../../src/lockstep/lockstep/lockstep-session.js';
import { prng } from '../../src/random/prng.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/network-simulator.js';
import { Order, type OrderValue, RtsSim } from './rts-sim.js';

export interface ScenePeer {
  index: number;
  session: LockstepSession<OrderValue>;
  sim: RtsSim;
  links: LocalPeerLinks;
  transport: NetworkSimulator;
  /** The sim's hash after each turn it ran (0: not run). */
  checksums: Uint32Array;
  events: LockstepEvent[];
  /** Stepped by the scene (false once closed or cut off). */
  alive: boolean;
  /** The last turn it ran, per turn, the time (s): for pacing checks. */
  turnsRun: number;
}

export interface SceneOptions {
  peers: number;
  units: number;
  seed: number;
  /** One-way conditions on every peer's outgoing datagrams. */
  conditions: LinkConditions;
  /** Peers that start outside the session and ask to join (stepped only once `start` is called). */
  joiners?: number[];
  /** Orders each peer's bot queues a second (default 4). */
  ordersPerSecond?: number;
  /** Turns recorded per peer (default 12,000). */
  maxTurns?: number;
  session?: Partial<LockstepSessionOptions<OrderValue>>;
  linkTimeout?: number;
}

/**
 * Peers running the RTS sim in lockstep over a MemoryNetwork, each behind its own seeded
 * NetworkSimulator, with bots queueing orders; simulated time advances by `step`.
 */
export class LockstepScene {
  readonly peers: ScenePeer[];
  now = 0;
  private readonly bot: () => number;
  private readonly ordersPerSecond: number;

  constructor(readonly options: SceneOptions) {
    const network = new MemoryNetwork();
    const transports = Array.from(
      { length: options.peers },
      (_, i) =>
        new NetworkSimulator(network.createTransport(), {
          seed: (options.seed + i) >>> 0,
          outgoing: options.conditions,
        }),
    );
    const addresses = transports.map((t) => t.localAddress);
    const maxTurns = options.maxTurns ?? 12_000;
    this.bot = prng(options.seed ^ 0x5eed);
    this.ordersPerSecond = options.ordersPerSecond ?? 4;
    const joiners = options.joiners ?? [];
    this.peers = transports.map((transport, index) => {
      const links = new LocalPeerLinks({
        transport,
        self: index,
        addresses,
        timeout: options.linkTimeout ?? 5,
      });
      const sim = new RtsSim(options.units, options.seed);
      const checksums = new Uint32Array(maxTurns);
      const peer: ScenePeer = {
        index,
        sim,
        links,
        transport,
        checksums,
        events: [],
        alive: !joiners.includes(index),
        turnsRun: 0,
        session: null as unknown as LockstepSession<OrderValue>,
      };
      const members = Array.from({ length: options.peers }, (_, i) => i).filter((i) => !joiners.includes(i));
      peer.session = new LockstepSession<OrderValue>({
        links,
        command: Order,
        seed: options.seed >>> 0,
        members,
        joining: joiners.includes(index),
        game: {
          executeTurn: (turn, commands) => {
            for (const orders of commands) for (const o of orders) sim.order(o);
            sim.step(turn, peer.session.random);
            if (turn < maxTurns) checksums[turn] = sim.hash;
            peer.turnsRun++;
          },
          checksum: () => sim.hash,
          saveState: () => sim.save(),
          loadState: (bytes) => sim.load(bytes),
          dumpState: (turn) => ({ turn, unit0: [sim.x[0], sim.y[0]] }),
        },
        ...options.session,
      });
      return peer;
    });
  }

  /** Starts stepping a joiner. */
  start(index: number): void {
    this.peers[index].alive = true;
  }

  /** Stops stepping a peer without a goodbye (its links go silent: the others time it out). */
  cut(index: number): void {
    this.peers[index].alive = false;
  }

  /** Cuts the link between two peers both ways (each still reaches the others). */
  cutBetween(a: number, b: number): void {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ]) {
      const transport = this.peers[from].transport;
      const address = this.peers[to].transport.localAddress;
      const send = transport.send.bind(transport);
      transport.send = (destination, data) => {
        if (destination !== address) send(destination, data);
      };
    }
  }

  /** Closes a peer's session (a goodbye) and stops stepping it. */
  leave(index: number): void {
    this.peers[index].session.close();
    this.peers[index].alive = false;
    this.closed.push(index);
  }

  /** Closed peers whose simulated links still deliver what they sent last (the goodbye). */
  private readonly closed: number[] = [];

  step(dt: number): void {
    this.now += dt;
    const chance = this.ordersPerSecond * dt;
    for (const index of this.closed) this.peers[index].transport.update(this.now);
    for (const peer of this.peers) {
      if (!peer.alive) continue;
      const session = peer.session;
      if (session.status.state === 'running' || session.status.state === 'stalled') {
        // A player's orders while the game waits pile up; the game keeps to the per-turn limit.
        if (this.bot() < chance && session.queued < 16) {
          const first = Math.floor(this.bot() * this.options.units);
          session.queue({
            first: Math.min(first, 65535),
            count: 1 + Math.floor(this.bot() * 64),
            x: Math.floor(this.bot() * 4096),
            y: Math.floor(this.bot() * 4096),
          });
        }
      }
      session.update(this.now);
      for (let e = session.pollEvent(); e !== null; e = session.pollEvent()) peer.events.push(e);
    }
  }

  /** Steps until `done` or `seconds` of simulated time pass; returns whether `done` held. */
  runUntil(done: () => boolean, seconds: number, dt = 0.02): boolean {
    const end = this.now + seconds;
    while (this.now < end) {
      if (done()) return true;
      this.step(dt);
    }
    return done();
  }

  /** The lowest turn every alive running peer has run. */
  minTurn(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const p of this.peers) if (p.alive) min = Math.min(min, p.session.turn);
    return min;
  }
}
