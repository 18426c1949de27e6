/**
 * Matchmaking for 10,000 queued tickets (issue 14): four pools (duels, squads in two regions, a
 * 16-player mode), skills from a normal distribution (mean 1500, sd 300), 10% parties of 2–4, the
 * tickets created over the last 60 s. Measured:
 * - the pure pass (match-rules.ts) over the whole queue, per ticket and per pass;
 * - one Matchmaker.process() on an EmbeddedDirectory: listing, forming, onMatch (a room id at once)
 *   and the atomic claims, on a fresh queue each round;
 * - passes until the queue is drained or stable, the virtual clock moving 1 s per pass (the
 *   windows widen), with the wall time of all of them and the virtual time-to-match.
 * Medians over rounds; the machine is shared, so figures are noisy.
 */
import { prng, randomInt } from '../../src/random/prng.js';
import type { Ticket } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { createMatchFormer, type MatchRules } from '../../src/services/match-rules.js';
import { Matchmaker } from '../../src/services/matchmaker.js';
import { check, fmt, measure, median, type SuiteContext } from '../harness.js';

const QUEUED = 10_000;
const WINDOW = { initial: 50, perSecond: 10, max: 400 };
const POOLS: Record<string, MatchRules> = {
  'duel/eu': { minPlayers: 2, maxPlayers: 2, skillWindow: WINDOW, fillWaitMs: 0 },
  'squad/eu': { minPlayers: 4, maxPlayers: 8, skillWindow: WINDOW, fillWaitMs: 20_000 },
  'squad/us': { minPlayers: 4, maxPlayers: 8, skillWindow: WINDOW, fillWaitMs: 20_000 },
  'br/eu': { minPlayers: 8, maxPlayers: 16, skillWindow: WINDOW, fillWaitMs: 30_000 },
};
const NAMES = Object.keys(POOLS);
const START = 1_700_000_000_000;
/** A pass with no match after this much virtual time (every window at max, every fill wait over) ends the drain. */
const SETTLED_MS = ((WINDOW.max - WINDOW.initial) / WINDOW.perSecond) * 1000 + 30_000;

interface Request {
  userIds: string[];
  pool: string;
  skill: number;
  createdAt: number;
}

function requests(seed: number): Request[] {
  const next = prng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  let user = 0;
  return Array.from({ length: QUEUED }, () => {
    const pool = NAMES[randomInt(next, NAMES.length)];
    const party = randomInt(next, 10) === 0 ? 2 + randomInt(next, 3) : 1;
    const size = Math.min(party, POOLS[pool].maxPlayers);
    return {
      userIds: Array.from({ length: size }, () => `user${user++}`),
      pool,
      skill: 1500 + 300 * normal(),
      createdAt: START - randomInt(next, 60_000),
    };
  });
}

/** A directory holding the queue, and a matchmaker on it whose clock the caller moves. */
async function queued(reqs: Request[]) {
  let now = START;
  const directory = new EmbeddedDirectory({ nowMs: () => now });
  const waits: number[] = [];
  const sinceStart: number[] = [];
  let rooms = 0;
  const mm = new Matchmaker({
    directory,
    pools: POOLS,
    nowMs: () => now,
    concurrency: 64,
    onMatch: async (tickets) => {
      for (const t of tickets) {
        waits.push(now - t.createdAt);
        sinceStart.push(now - START);
      }
      return { roomId: `room${rooms++}` };
    },
  });
  for (const r of reqs) {
    now = r.createdAt;
    await mm.enqueue(r);
  }
  now = START;
  return { directory, mm, waits, sinceStart, advance: (ms: number) => (now += ms) };
}

const quantile = (values: number[], q: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

export async function runMatchmaking(ctx: SuiteContext): Promise<void> {
  const rounds = ctx.options.quick ? 3 : 7;
  const reqs = requests(0x6d617463);
  const parties = reqs.filter((r) => r.userIds.length > 1).length;
  const players = reqs.reduce((n, r) => n + r.userIds.length, 0);
  ctx.note(
    `${QUEUED.toLocaleString('en-US')} tickets in ${NAMES.length} pools (${NAMES.join(', ')}), ${parties} parties of 2–4 (${players.toLocaleString('en-US')} players), skill N(1500, 300); window ${WINDOW.initial} + ${WINDOW.perSecond}/s up to ${WINDOW.max}; ${rounds} rounds, medians`,
  );

  // The pure pass, over the same tickets as the directory would list them.
  const tickets: Ticket[] = reqs.map((r, i) => ({ ticketId: `t${i}`, properties: {}, ...r }));
  const formers = Object.fromEntries(NAMES.map((name) => [name, createMatchFormer(POOLS[name])]));
  const byPool = NAMES.map((name) => ({ name, tickets: tickets.filter((t) => t.pool === name) }));
  let formed = 0;
  const pure = measure(
    [
      {
        name: 'match-rules pass',
        units: QUEUED,
        run(n) {
          let matches = 0;
          for (let i = 0; i < n; i++)
            for (const pool of byPool) matches += formers[pool.name](pool.tickets, START).length;
          formed = matches / n;
          return matches;
        },
      },
    ],
    { ...ctx.options, targetMs: 100 },
  );
  check(formed > 0, 'the pure pass formed no match');

  // One process() on a fresh queue per round (the first round untimed: warm-up).
  const passMs: number[] = [];
  let firstMatches = 0;
  let firstPlayers = 0;
  for (let r = -1; r < rounds; r++) {
    const q = await queued(reqs);
    const start = performance.now();
    await q.mm.process();
    if (r >= 0) passMs.push(performance.now() - start);
    firstMatches = q.mm.metrics().matches;
    firstPlayers = q.mm.metrics().playersMatched;
    check(q.mm.metrics().errors === 0, `process() failed: ${String(q.mm.metrics().lastError)}`);
  }

  // Passes until drained or stable, 1 s of virtual time apart.
  const drain = {
    passes: [] as number[],
    ms: [] as number[],
    left: 0,
    matched: 0,
    p50: 0,
    p99: 0,
    sinceP50: 0,
    sinceP99: 0,
    worst: 0,
  };
  for (let r = 0; r < rounds; r++) {
    const q = await queued(reqs);
    let passes = 0;
    let elapsed = 0;
    let waited = 0;
    for (;;) {
      const before = q.mm.metrics().matches;
      const start = performance.now();
      await q.mm.process();
      const ms = performance.now() - start;
      elapsed += ms;
      drain.worst = Math.max(drain.worst, ms);
      passes++;
      const depth = Object.values(q.mm.metrics().queueDepth).reduce((n, d) => n + d, 0);
      const made = q.mm.metrics().matches - before;
      if (depth === 0 || (made === 0 && waited >= SETTLED_MS) || passes >= 500) break;
      q.advance(1000);
      waited += 1000;
    }
    drain.passes.push(passes);
    drain.ms.push(elapsed);
    drain.left = (await q.directory.listTickets()).length;
    drain.matched = q.mm.metrics().playersMatched;
    drain.p50 = quantile(q.waits, 0.5);
    drain.p99 = quantile(q.waits, 0.99);
    drain.sinceP50 = quantile(q.sinceStart, 0.5);
    drain.sinceP99 = quantile(q.sinceStart, 0.99);
  }

  const pr = pure[0];
  const lines = [
    `pure pass over ${QUEUED.toLocaleString('en-US')} tickets: ${fmt((pr.median * QUEUED) / 1e6)} ms (${fmt(pr.median)} ns/ticket, min..max ${fmt((pr.min * QUEUED) / 1e6)}..${fmt((pr.max * QUEUED) / 1e6)} ms), ${formed} matches`,
    `one Matchmaker.process() (EmbeddedDirectory, list + form + ${firstMatches} onMatch + claims): ${fmt(median(passMs))} ms (min..max ${fmt(Math.min(...passMs))}..${fmt(Math.max(...passMs))}), ${firstPlayers.toLocaleString('en-US')} players matched`,
    `until drained or stable (1 s virtual per pass): ${median(drain.passes)} passes, ${fmt(median(drain.ms))} ms of passes in all (slowest single pass of all rounds ${fmt(drain.worst)} ms); ${drain.matched.toLocaleString('en-US')} players matched, ${drain.left} tickets left queued`,
    `time to match (virtual; tickets were 0–60 s old at the first pass): from creation p50 ${fmt(drain.p50 / 1000)} s, p99 ${fmt(drain.p99 / 1000)} s; from the first pass p50 ${fmt(drain.sinceP50 / 1000)} s, p99 ${fmt(drain.sinceP99 / 1000)} s`,
  ];
  for (const line of lines) ctx.note(line);
  ctx.record('matchmaking', {
    pureMs: (pr.median * QUEUED) / 1e6,
    processMs: median(passMs),
    drainPasses: median(drain.passes),
    drainMs: median(drain.ms),
    playersMatched: drain.matched,
    leftQueued: drain.left,
    timeToMatchP50Ms: drain.p50,
    timeToMatchP99Ms: drain.p99,
    sinceFirstPassP50Ms: drain.sinceP50,
    sinceFirstPassP99Ms: drain.sinceP99,
  });
}
