/**
 * One player of the zone test game walking a fixed route through a lossy, slow link, watched frame
 * by frame: a real GameClient over real UDP whose datagrams pass a seeded NetworkSimulator, and
 * what it saw: its corrected predictions (with the server tick of each), the longest wait for a new
 * server state of its own walker and of the ghosts well inside its interest, ghosts that went away
 * while well inside it, and each of its walker's server states (to place the handoffs).
 */
import { GameClient } from '../../src/game/game-client.js';
import { fromBase64, JOIN_PATH, readJoinAnswer } from '../../src/game/game-join.js';
import { registeredUdpOpener } from '../../src/game/transport-openers.js';
import type { LinkConditions } from '../../src/transport/link-conditions.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';
import type { HandoffRule } from '../../src/zones/handoff-rule.js';
import type { ZoneMap } from '../../src/zones/zone-map.js';
import { zoneGame } from './zone-game.js';

type Client = GameClient<typeof zoneGame>;

export interface LossyWalkOptions {
  /** The world's (or server's) URL: its join endpoint mints the token. */
  url: string;
  /** Seeds the link's loss. */
  seed: number;
  /** Applied to each direction. */
  link: LinkConditions;
  /** Points the walker goes to in turn, from wherever it spawned. */
  route: readonly (readonly [number, number])[];
  /** A ghost this close to the walker (world units) is "well inside" its interest. */
  wellInside: number;
  /** Frames at rest after connecting, before the walk (the link's measures settle). */
  settleFrames?: number;
  /** The zone a point is in: ghosts well inside interest in another zone than the walker's are counted. */
  zoneAt?: (x: number, y: number) => number;
  /** Milliseconds the whole walk may take before it fails (default 60 000). */
  timeoutMs?: number;
}

/** A wait for a new server state, as a frame saw it. */
export interface Gap {
  /** Milliseconds since the entity's newest state arrived, at the frame that saw the longest. */
  ms: number;
  /** The client's interpolation delay then, in milliseconds. */
  delayMs: number;
  /** The server tick of the state waited after (the one the client had). */
  afterTick: number;
  /** 'own' or the ghost's id. */
  who: string;
}

export interface LossyWalkResult {
  /** Corrected predictions during the walk, each with the own walker's newest server tick then. */
  mispredictions: { tick: number; x: number; y: number }[];
  /** The longest waits for a new state: of the own walker, and of a ghost well inside interest. */
  ownGap: Gap;
  ghostGap: Gap;
  /** The longest wait over the delay at that frame (ms, below 0 when always within it). */
  ownOverDelayMs: number;
  ghostOverDelayMs: number;
  /** Longest run of server ticks missing between two states received (own walker, ghosts well inside). */
  ownTickGap: number;
  ghostTickGap: number;
  /** The interpolation delay during the walk, milliseconds. */
  delayMs: { min: number; max: number };
  /** Ghosts seen well inside interest while in another zone than the walker (with `zoneAt`). */
  neighbourGhosts: number;
  /** Ghosts that went away (or came back as another generation) while well inside interest. */
  blinks: string[];
  /** The own ghost's ids seen (one, when it never changed). */
  ownIds: number[];
  /** Each server state of the own walker received: tick, x, y. */
  ownStates: [number, number, number][];
  frames: number;
  /** The client's and the link's figures at the end. */
  client: ReturnType<Client['stats']>;
  predictor: { reconciliations: number; historyMisses: number; maxCorrection: number };
  link: { sentLost: number; sentPassed: number; receivedLost: number; receivedPassed: number };
}

/** Joins through the endpoint at `url` and connects over UDP wrapped in a NetworkSimulator. */
export async function connectLossy(
  url: string,
  seed: number,
  link: LinkConditions,
): Promise<{ client: Client; simulator: NetworkSimulator }> {
  const response = await fetch(`${url}${JOIN_PATH}`);
  if (!response.ok) throw new Error(`join refused: ${response.status}`);
  const answer = readJoinAnswer(await response.json());
  if (answer === null) throw new Error('not a join answer');
  const udp = registeredUdpOpener();
  if (udp === null) throw new Error("no UDP opener: import '../../src/node.js' first");
  const simulator = new NetworkSimulator(await udp(answer.serverAddress), {
    seed,
    outgoing: link,
    incoming: link,
  });
  const client = await GameClient.connect(zoneGame, {
    token: fromBase64(answer.token),
    transport: simulator,
  });
  return { client, simulator };
}

const FRAME_MS = 1000 / 60;

/** Walks the route, one frame every 1/60 s, and reports what the client saw. Closes the client. */
export async function lossyWalk(options: LossyWalkOptions): Promise<LossyWalkResult> {
  const { client, simulator } = await connectLossy(options.url, options.seed, options.link);
  try {
    return await walk(client, simulator, options);
  } finally {
    client.close();
  }
}

interface Watched {
  tick: number;
  generation: number;
  changedAt: number;
  x: number;
  y: number;
}

function walk(
  client: Client,
  simulator: NetworkSimulator,
  options: LossyWalkOptions,
): Promise<LossyWalkResult> {
  const { mirror, latency, predictor } = client.expert;
  const tickMs = 1000 / zoneGame.tickRate;
  const near = options.wellInside;
  let settle = options.settleFrames ?? 90;
  let leg = 0;
  let frames = 0;
  let mispredicted = predictor.stats().mispredictions;
  const neighbours = new Set<number>();
  const result: Omit<LossyWalkResult, 'client' | 'predictor' | 'link' | 'frames' | 'neighbourGhosts'> = {
    mispredictions: [],
    ownGap: { ms: 0, delayMs: 0, afterTick: -1, who: 'own' },
    ghostGap: { ms: 0, delayMs: 0, afterTick: -1, who: '' },
    ownOverDelayMs: Number.NEGATIVE_INFINITY,
    ghostOverDelayMs: Number.NEGATIVE_INFINITY,
    ownTickGap: 0,
    ghostTickGap: 0,
    delayMs: { min: Number.POSITIVE_INFINITY, max: 0 },
    blinks: [],
    ownIds: [],
    ownStates: [],
  };
  let own: Watched | null = null;
  const ghosts = new Map<number, Watched>();

  const frame = (): boolean => {
    const me = client.me;
    let input = { dx: 0, dy: 0, tick: 0 };
    if (me !== null && settle > 0) settle--;
    else if (me !== null) {
      const [tx, ty] = options.route[leg];
      const dx = Math.abs(tx - me.state.x) < 0.25 ? 0 : Math.sign(tx - me.state.x);
      const dy = Math.abs(ty - me.state.y) < 0.25 ? 0 : Math.sign(ty - me.state.y);
      if (dx === 0 && dy === 0) leg++;
      input = { dx, dy, tick: 0 };
    }
    client.update(input);
    if (leg >= options.route.length) return true;
    if (me === null || settle > 0) {
      // Corrections while joining and at rest are not the walk's.
      mispredicted = predictor.stats().mispredictions;
      return false;
    }
    frames++;
    const now = performance.now();
    const delayMs = latency.delay.ticks * tickMs;
    result.delayMs.min = Math.min(result.delayMs.min, delayMs);
    result.delayMs.max = Math.max(result.delayMs.max, delayMs);
    const count = predictor.stats().mispredictions;
    const ownGhost = mirror.ghost(me.id);
    if (ownGhost === null) return false;
    if (!result.ownIds.includes(me.id)) result.ownIds.push(me.id);
    const ownState = ownGhost.value as { x: number; y: number };
    if (count > mispredicted)
      result.mispredictions.push({ tick: ownGhost.tick, x: ownState.x, y: ownState.y });
    mispredicted = count;

    // The own walker: the wait since its newest server state, from its first state of the walk
    // on (an idle walker does not change, so the state it rested in before is no measure: the
    // first wait would be the time its first step takes to come back).
    if (own === null) {
      own = {
        tick: ownGhost.tick,
        generation: ownGhost.generation,
        changedAt: Number.NaN,
        x: ownState.x,
        y: ownState.y,
      };
      return false;
    }
    if (ownGhost.tick !== own.tick) {
      if (!Number.isNaN(own.changedAt))
        result.ownTickGap = Math.max(result.ownTickGap, ownGhost.tick - own.tick);
      own = {
        tick: ownGhost.tick,
        generation: ownGhost.generation,
        changedAt: now,
        x: ownState.x,
        y: ownState.y,
      };
      result.ownStates.push([ownGhost.tick, ownState.x, ownState.y]);
    }
    if (!Number.isNaN(own.changedAt)) {
      const ownWait = now - own.changedAt;
      if (ownWait > result.ownGap.ms)
        result.ownGap = { ms: ownWait, delayMs, afterTick: own.tick, who: 'own' };
      result.ownOverDelayMs = Math.max(result.ownOverDelayMs, ownWait - delayMs);
    }

    // The others: the same wait, for those well inside interest; and any that went away while there.
    const seen = new Set<number>();
    for (const shown of client.entities) {
      const ghost = mirror.ghost(shown.id);
      if (ghost === null) continue;
      seen.add(ghost.id);
      const state = ghost.value as { x: number; y: number };
      const inside = Math.hypot(state.x - ownState.x, state.y - ownState.y) < near;
      if (
        inside &&
        options.zoneAt !== undefined &&
        options.zoneAt(state.x, state.y) !== options.zoneAt(ownState.x, ownState.y)
      )
        neighbours.add(ghost.id);
      const before = ghosts.get(ghost.id);
      if (
        before !== undefined &&
        before.generation !== ghost.generation &&
        Math.hypot(before.x - ownState.x, before.y - ownState.y) < near
      )
        result.blinks.push(
          `ghost ${ghost.id} at (${before.x.toFixed(1)}, ${before.y.toFixed(1)}) after tick ${before.tick} came back as generation ${ghost.generation} at (${state.x.toFixed(1)}, ${state.y.toFixed(1)}) at tick ${ghost.tick}, the walker at (${ownState.x.toFixed(1)}, ${ownState.y.toFixed(1)})`,
        );
      if (before === undefined || before.generation !== ghost.generation || before.tick !== ghost.tick) {
        // A wait counts only while the ghost stays well inside (and it was known before).
        if (before !== undefined && before.generation === ghost.generation && inside) {
          const was = Math.hypot(before.x - own.x, before.y - own.y) < near;
          if (was) result.ghostTickGap = Math.max(result.ghostTickGap, ghost.tick - before.tick);
        }
        ghosts.set(ghost.id, {
          tick: ghost.tick,
          generation: ghost.generation,
          changedAt: now,
          x: state.x,
          y: state.y,
        });
        continue;
      }
      if (!inside) continue;
      const wait = now - before.changedAt;
      if (wait > result.ghostGap.ms)
        result.ghostGap = { ms: wait, delayMs, afterTick: before.tick, who: String(ghost.id) };
      result.ghostOverDelayMs = Math.max(result.ghostOverDelayMs, wait - delayMs);
    }
    for (const [id, before] of ghosts) {
      if (seen.has(id)) continue;
      ghosts.delete(id);
      if (Math.hypot(before.x - ownState.x, before.y - ownState.y) < near)
        result.blinks.push(
          `ghost ${id} went away at (${before.x.toFixed(1)}, ${before.y.toFixed(1)}) after tick ${before.tick}, the walker at (${ownState.x.toFixed(1)}, ${ownState.y.toFixed(1)})`,
        );
    }
    return false;
  };

  const deadline = performance.now() + (options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      try {
        if (!frame()) {
          if (performance.now() > deadline)
            throw new Error(
              `the walk did not end in time (leg ${leg}, at ${JSON.stringify(client.me?.state)})`,
            );
          return;
        }
        clearInterval(timer);
        const p = predictor.stats();
        const s = simulator.stats();
        resolve({
          ...result,
          frames,
          neighbourGhosts: neighbours.size,
          client: client.stats(),
          predictor: {
            reconciliations: p.reconciliations,
            historyMisses: p.historyMisses,
            maxCorrection: p.maxCorrection,
          },
          link: {
            sentLost: s.outgoing.lost,
            sentPassed: s.outgoing.passed,
            receivedLost: s.incoming.lost,
            receivedPassed: s.incoming.passed,
          },
        });
      } catch (error) {
        clearInterval(timer);
        reject(error);
      }
    }, FRAME_MS);
  });
}

/**
 * The ticks at which the walker changed zone, as the handoff rule decides from its server states
 * (the server evaluates it on the state of each tick T-1 and the entity enters its new zone at T):
 * from states a lossy link thinned, each tick found may be late by the ticks missing before it.
 */
export function handoffTicks(
  states: readonly [number, number, number][],
  map: ZoneMap,
  rule: HandoffRule,
  firstOwner: number,
): { tick: number; from: number; to: number }[] {
  const handoffs: { tick: number; from: number; to: number }[] = [];
  let owner = firstOwner;
  let last = Number.NEGATIVE_INFINITY;
  for (const [tick, x, y] of states) {
    const since = Math.min(tick + 1 - last, Number.MAX_SAFE_INTEGER);
    const target = rule.target(map, owner, x, y, since);
    if (target === null) continue;
    handoffs.push({ tick: tick + 1, from: owner, to: target });
    owner = target;
    last = tick + 1;
  }
  return handoffs;
}
