/**
 * Peers running ArenaGame through RollbackSession over a MemoryNetwork, each transport wrapped in
 * a seeded NetworkSimulator; simulated time at 60 ticks a second. Each peer's loop per tick:
 * addLocalInput, advanceFrame, update (the documented order).
 */
import { LocalPeerLinks } from '../../src/lockstep/links/local-peer-links.js';
import { RollbackSession } from '../../src/lockstep/rollback/rollback-session.js';
import type { AdvanceResult, RollbackEvent } from '../../src/lockstep/rollback/rollback-stats.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';
import { ArenaGame, ArenaInput, type ArenaInputValue, IDLE, scriptedInput } from './rollback-game.js';

export interface SceneOptions {
  seed: number;
  peers: number;
  /** Run until every peer has run this many frames (or `maxTicks`). */
  frames: number;
  latencyMs?: number;
  jitterMs?: number;
  lossPercent?: number;
  duplicatesPercent?: number;
  /** Ticks each peer waits before its loop starts (default none). */
  startTicks?: number[];
  inputDelay?: number;
  maxPrediction?: number;
  maxTicks?: number;
}

export interface ScenePeer {
  session: RollbackSession<ArenaInputValue, Int32Array>;
  game: ArenaGame;
  simulator: NetworkSimulator;
  events: RollbackEvent[];
  results: Record<AdvanceResult, number>;
  /** Frames run with every input confirmed (their states are final). */
  settled: number;
  /** Confirmed inputs per frame (index), by peer. */
  confirmed: ArenaInputValue[][];
}

export const TICK = 1 / 60;
const NONE: ReadonlySet<number> = new Set();

export function createScene(o: SceneOptions) {
  const network = new MemoryNetwork();
  const conditions = {
    latencyMs: o.latencyMs ?? 0,
    jitterMs: o.jitterMs ?? 0,
    loss: o.lossPercent ?? 0,
    duplicates: o.duplicatesPercent ?? 0,
  };
  const simulators = Array.from(
    { length: o.peers },
    (_, i) =>
      new NetworkSimulator(network.createTransport(), {
        seed: (o.seed + i * 7919) >>> 0,
        outgoing: conditions,
      }),
  );
  const addresses = simulators.map((s) => s.localAddress);
  const peers: ScenePeer[] = simulators.map((simulator, self) => {
    const game = new ArenaGame(o.peers);
    const links = new LocalPeerLinks({ transport: simulator, self, addresses, timeout: 2 });
    const session = new RollbackSession({
      links,
      input: ArenaInput,
      initialInput: IDLE,
      game,
      inputDelay: o.inputDelay,
      maxPrediction: o.maxPrediction,
    });
    return {
      session,
      game,
      simulator,
      events: [],
      results: { advanced: 0, synchronizing: 0, waiting: 0, stalled: 0 },
      confirmed: [],
      settled: -1,
    };
  });
  let tick = 0;
  /** One tick of every peer whose loop has started and is not paused; `twice` run two frames. */
  const step = (paused: ReadonlySet<number> = NONE, twice: ReadonlySet<number> = NONE) => {
    tick++;
    const now = tick * TICK;
    peers.forEach((peer, index) => {
      if (tick < (o.startTicks?.[index] ?? 0) || paused.has(index)) return;
      const { session } = peer;
      for (let k = twice.has(index) ? 2 : 1; k > 0; k--) {
        session.addLocalInput(scriptedInput(o.seed, index, session.frame));
        peer.results[session.advanceFrame()]++;
        peer.settled = Math.min(session.stats().confirmedFrame, session.frame - 1);
      }
      session.update(now);
      for (let e = session.pollEvent(); e !== null; e = session.pollEvent()) peer.events.push(e);
      for (let f = peer.confirmed.length; f <= session.confirmedFrame; f++) {
        const row: ArenaInputValue[] = [];
        for (let p = 0; p < o.peers; p++) row.push({ ...(session.confirmedInput(f, p) as ArenaInputValue) });
        peer.confirmed.push(row);
      }
    });
  };
  const run = () => {
    const maxTicks = o.maxTicks ?? o.frames * 3 + 600;
    while (tick < maxTicks && peers.some((p) => p.session.frame < o.frames)) step();
  };
  return {
    peers,
    step,
    run,
    get tick() {
      return tick;
    },
  };
}

/** The input peer `peer` sent for frame `frame` in a scene (IDLE before the input delay). */
export function sentInput(seed: number, peer: number, frame: number, inputDelay: number): ArenaInputValue {
  return frame < inputDelay ? IDLE : scriptedInput(seed, peer, frame - inputDelay);
}
