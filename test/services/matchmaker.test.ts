import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import type { Ticket, TicketStatus } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type MatchRules, skillRadius } from '../../src/services/match-rules.js';
import { Matchmaker, type MatchmakerOptions } from '../../src/services/matchmaker.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('matchmaker');

const RULES: MatchRules = {
  minPlayers: 2,
  maxPlayers: 4,
  skillWindow: { initial: 100, perSecond: 10, max: 500 },
  fillWaitMs: 10_000,
};

/** A manual clock shared by the directory and the matchmakers. */
function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** A matchmaker whose onMatch names rooms r0, r1, … and records what it made and abandoned. */
function setup(options: Partial<MatchmakerOptions> = {}, directory?: EmbeddedDirectory) {
  const time = clock();
  const dir = directory ?? new EmbeddedDirectory({ now: time.now });
  const made: { roomId: string; tickets: Ticket[] }[] = [];
  const abandoned: string[] = [];
  let rooms = 0;
  const mm = new Matchmaker({
    directory: dir,
    rules: RULES,
    now: time.now,
    onMatch: async (tickets) => {
      const roomId = `r${rooms++}`;
      made.push({ roomId, tickets });
      return { roomId };
    },
    onAbandon: (roomId) => {
      abandoned.push(roomId);
    },
    ...options,
  });
  return { time, dir, mm, made, abandoned };
}

const matched = (s: TicketStatus) => {
  assert.equal(s.state, 'matched');
  return s as Extract<TicketStatus, { state: 'matched' }>;
};

describe('matchmaker: enqueue', () => {
  it('refuses misuse with a RangeError', async () => {
    const { mm } = setup();
    const ok = { userIds: ['a'], pool: 'duel', skill: 1000 };
    await assert.rejects(mm.enqueue({ ...ok, userIds: [] }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, userIds: ['a', 'b', 'c', 'd', 'e'] }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, userIds: ['a', 'a'] }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, userIds: [''] }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, skill: Number.NaN }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, skill: Number.POSITIVE_INFINITY }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, pool: '' }), RangeError);
    await assert.rejects(mm.enqueue({ ...ok, pool: 'x'.repeat(65) }), RangeError);
  });

  it('refuses bad options at construction', () => {
    const { dir } = setup();
    const onMatch = async () => ({ roomId: 'r' });
    assert.throws(() => new Matchmaker({ directory: dir, onMatch }), RangeError);
    assert.throws(
      () => new Matchmaker({ directory: dir, onMatch, rules: { ...RULES, minPlayers: 0 } }),
      RangeError,
    );
    assert.throws(
      () => new Matchmaker({ directory: dir, onMatch, rules: RULES, ticketsPerUser: 0 }),
      RangeError,
    );
    assert.throws(
      () => new Matchmaker({ directory: dir, onMatch, rules: RULES, concurrency: 1.5 }),
      RangeError,
    );
    assert.throws(
      () => new Matchmaker({ directory: dir, onMatch, rules: RULES, resultTtlMs: -1 }),
      RangeError,
    );
  });

  it('takes only pools with rules when no default is given, each with its own maxPlayers', async () => {
    const { mm } = setup({ rules: undefined, pools: { duel: { ...RULES, maxPlayers: 2 } } });
    await assert.rejects(mm.enqueue({ userIds: ['a'], pool: 'squad', skill: 1 }), RangeError);
    await assert.rejects(mm.enqueue({ userIds: ['a', 'b', 'c'], pool: 'duel', skill: 1 }), RangeError);
    assert.equal(typeof (await mm.enqueue({ userIds: ['a', 'b'], pool: 'duel', skill: 1 })), 'string');
  });

  it('limits queued tickets per user, and frees the slot on cancel and on match', async () => {
    const { mm, time } = setup({ ticketsPerUser: 1 });
    const t = await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await assert.rejects(mm.enqueue({ userIds: ['b', 'a'], pool: 'p', skill: 1000 }), RangeError);
    assert.equal(await mm.cancel(t), true);
    await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
    time.advance(10_000);
    await mm.process();
    assert.equal(mm.metrics().matches, 1);
    await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
  });

  it('reports a queued ticket with its fields', async () => {
    const { mm } = setup();
    const id = await mm.enqueue({ userIds: ['a', 'b'], pool: 'p', skill: 1234, properties: { map: 'ice' } });
    const s = await mm.status(id);
    assert.equal(s.state, 'queued');
    assert.deepEqual(s.state === 'queued' && s.ticket.userIds, ['a', 'b']);
    assert.deepEqual((await mm.status('nope')).state, 'unknown');
  });
});

describe('matchmaker: passes', () => {
  it('matches a party and solos into one room; every ticket names the same match and room', async () => {
    const { mm, made, time } = setup();
    const party = await mm.enqueue({ userIds: ['a', 'b', 'c'], pool: 'p', skill: 1000 });
    const solo = await mm.enqueue({ userIds: ['d'], pool: 'p', skill: 1050 });
    const other = await mm.enqueue({ userIds: ['e', 'f'], pool: 'p', skill: 1000 });
    time.advance(2500);
    await mm.process();
    assert.equal(made.length, 1);
    assert.deepEqual(made[0].tickets.map((t) => t.ticketId).sort(), [party, solo].sort());
    const a = matched(await mm.status(party));
    const b = matched(await mm.status(solo));
    assert.equal(a.roomId, 'r0');
    assert.equal(a.matchId, b.matchId);
    assert.deepEqual(a.ticketIds.sort(), [party, solo].sort());
    assert.equal((await mm.status(other)).state, 'queued', 'a party of 2 does not fit beside 4');
    const m = mm.metrics();
    assert.equal(m.matches, 1);
    assert.equal(m.playersMatched, 4);
    assert.equal(m.timeToMatchP50Ms, 2500);
    assert.deepEqual(m.queueDepth, { p: 3 }, 'depth as listed at the start of the pass');
  });

  it('widens the window with waiting time: a far-skill pair matches only after enough wait', async () => {
    const { mm, time, made } = setup({ rules: { ...RULES, maxPlayers: 2 } });
    await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1250 });
    // Radius 100 + 10/s reaches 250 after 15 s.
    for (let s = 0; s < 15; s++) {
      await mm.process();
      assert.equal(made.length, 0, `matched after only ${s} s`);
      time.advance(1000);
    }
    await mm.process();
    assert.equal(made.length, 1);
    assert.equal(mm.metrics().timeToMatchP99Ms, 15_000);
  });

  it('never mixes pools, and never matches below minPlayers', async () => {
    const { mm, time, made } = setup();
    await mm.enqueue({ userIds: ['a'], pool: 'eu', skill: 1000 });
    await mm.enqueue({ userIds: ['b'], pool: 'us', skill: 1000 });
    await mm.enqueue({ userIds: ['c'], pool: 'asia', skill: 1000 });
    time.advance(3_600_000);
    await mm.process();
    assert.equal(made.length, 0);
    assert.deepEqual(mm.metrics().queueDepth, { eu: 1, us: 1, asia: 1 });
  });

  it('a cancelled ticket is never matched', async () => {
    const { mm, time, made } = setup({ rules: { ...RULES, maxPlayers: 2 } });
    const a = await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
    assert.equal(await mm.cancel(a), true);
    assert.equal(await mm.cancel(a), false);
    assert.equal((await mm.status(a)).state, 'cancelled');
    time.advance(60_000);
    await mm.process();
    assert.equal(made.length, 0);
    assert.equal(mm.metrics().ticketsCancelled, 1);
  });

  it('a ticket cancelled while its room is made loses the claim: the room is abandoned, the rest stay queued', async () => {
    let cancelDuring: string | null = null;
    const ctx = setup({
      rules: { ...RULES, maxPlayers: 2 },
      onMatch: async () => {
        if (cancelDuring !== null) await ctx.mm.cancel(cancelDuring);
        return { roomId: 'room-x' };
      },
    });
    const a = await ctx.mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    const b = await ctx.mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
    cancelDuring = a;
    await ctx.mm.process();
    assert.deepEqual(ctx.abandoned, ['room-x']);
    assert.equal((await ctx.mm.status(a)).state, 'cancelled');
    assert.equal((await ctx.mm.status(b)).state, 'queued');
    assert.equal(ctx.mm.metrics().claimsLost, 1);
    assert.equal(ctx.mm.metrics().matches, 0);
  });

  it('a failing onMatch leaves the tickets queued and counts the error; the next pass matches them', async () => {
    let failures = 1;
    const ctx = setup({
      rules: { ...RULES, maxPlayers: 2 },
      onMatch: async () => {
        if (failures-- > 0) throw new Error('no server free');
        return { roomId: 'r' };
      },
    });
    const a = await ctx.mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await ctx.mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
    await ctx.mm.process();
    assert.equal((await ctx.mm.status(a)).state, 'queued');
    assert.equal(ctx.mm.metrics().onMatchErrors, 1);
    assert.match(String(ctx.mm.metrics().lastError), /no server free/);
    await ctx.mm.process();
    assert.equal(matched(await ctx.mm.status(a)).roomId, 'r');
  });

  it('a claim that throws is settled by the ticket status: landed → matched, not landed → abandoned', async () => {
    for (const landed of [true, false]) {
      const time = clock();
      const dir = new (class extends EmbeddedDirectory {
        override async claimTickets(
          ids: string[],
          match: { matchId: string; roomId: string },
          ttl: number,
        ): Promise<boolean> {
          if (landed) await super.claimTickets(ids, match, ttl);
          throw new Error('connection reset');
        }
      })({ now: time.now });
      const ctx = setup({ rules: { ...RULES, maxPlayers: 2 } }, dir);
      const a = await ctx.mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
      await ctx.mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
      await ctx.mm.process();
      const m = ctx.mm.metrics();
      assert.equal(m.errors, 1);
      assert.equal(m.matches, landed ? 1 : 0);
      assert.deepEqual(ctx.abandoned, landed ? [] : ['r0']);
      assert.equal((await ctx.mm.status(a)).state, landed ? 'matched' : 'queued');
    }
  });

  it('a process() called during a pass joins that pass', async () => {
    const { mm } = setup();
    const first = mm.process();
    assert.equal(mm.process(), first);
    await first;
    assert.equal(mm.metrics().passes, 1);
  });

  it('a pass whose listing fails rejects and is counted', async () => {
    const { mm, dir } = setup();
    await dir.close();
    await assert.rejects(mm.process(), /closed/);
    assert.equal(mm.metrics().errors, 1);
    assert.equal(mm.metrics().passes, 1);
  });

  it('start() runs passes on a timer until stop()', async () => {
    const { mm, made, time } = setup({ rules: { ...RULES, maxPlayers: 2 } });
    assert.throws(() => mm.start(0), RangeError);
    mm.start(5);
    assert.throws(() => mm.start(5), RangeError);
    await mm.enqueue({ userIds: ['a'], pool: 'p', skill: 1000 });
    await mm.enqueue({ userIds: ['b'], pool: 'p', skill: 1000 });
    time.advance(1);
    for (let i = 0; i < 200 && made.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await mm.stop();
    assert.equal(made.length, 1);
    const passes = mm.metrics().passes;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(mm.metrics().passes, passes, 'no pass after stop()');
    assert.ok(mm.metrics().lastProcessMs >= 0);
  });
});

describe('matchmaker: concurrency', () => {
  /** Two matchmakers on one directory, rooms made with random delays, passes run concurrently. */
  async function race(seed: number, rounds: number) {
    const next = prng(seed);
    const time = clock();
    const dir = new EmbeddedDirectory({ now: time.now });
    const made = new Map<string, Ticket[]>();
    const abandoned = new Set<string>();
    let rooms = 0;
    const rules = (i: number): MatchRules => ({
      minPlayers: 2,
      maxPlayers: 2 + (i % 3),
      skillWindow: { initial: 50, perSecond: 20, max: 400 },
      fillWaitMs: 5000,
    });
    const pools = { a: rules(0), b: rules(1), c: rules(2) };
    const matchmakers = [0, 1].map(
      () =>
        new Matchmaker({
          directory: dir,
          pools,
          now: time.now,
          ticketsPerUser: 3,
          onMatch: async (tickets) => {
            for (let i = randomInt(next, 4); i > 0; i--) await new Promise((r) => setImmediate(r));
            if (randomInt(next, 20) === 0) throw new Error('room refused');
            const roomId = `room${rooms++}`;
            made.set(roomId, tickets);
            return { roomId };
          },
          onAbandon: (roomId) => {
            abandoned.add(roomId);
          },
        }),
    );
    const ids: string[] = [];
    const cancelled = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      for (let i = randomInt(next, 30); i > 0; i--) {
        const pool = ['a', 'b', 'c'][randomInt(next, 3)] as keyof typeof pools;
        const party = randomInt(next, 10) === 0 ? 2 : 1;
        const user = () => `u${randomInt(next, 200)}`;
        const userIds = [...new Set(Array.from({ length: party }, user))];
        const mm = matchmakers[randomInt(next, 2)];
        try {
          ids.push(await mm.enqueue({ userIds, pool, skill: 1500 + (next() - 0.5) * 600 }));
        } catch (error) {
          assert.ok(error instanceof RangeError, String(error)); // over the per-user limit
        }
      }
      const cancels = ids.slice(-5).filter(() => randomInt(next, 8) === 0);
      const passes = Promise.all([
        ...matchmakers.map((m) => m.process()),
        ...cancels.map(async (id) => {
          if (await matchmakers[0].cancel(id)) cancelled.add(id);
        }),
      ]);
      await passes;
      time.advance(randomInt(next, 2000));
    }
    // Invariants, from the directory's own record.
    const inMatch = new Map<string, string>();
    const byRoom = new Map<string, Extract<TicketStatus, { state: 'matched' }>[]>();
    for (const id of ids) {
      const s = await dir.ticketStatus(id);
      if (s.state !== 'matched') continue;
      assert.ok(!cancelled.has(id), `ticket ${id} cancelled and matched`);
      assert.ok(!abandoned.has(s.roomId), `ticket ${id} points at abandoned room ${s.roomId}`);
      assert.ok(made.has(s.roomId), `ticket ${id} points at a room never made`);
      const list = byRoom.get(s.roomId) ?? [];
      list.push(s);
      byRoom.set(s.roomId, list);
      inMatch.set(id, s.matchId);
    }
    for (const [roomId, statuses] of byRoom) {
      const tickets = made.get(roomId) ?? [];
      assert.deepEqual(statuses.map((s) => s.ticketIds)[0].sort(), tickets.map((t) => t.ticketId).sort());
      assert.equal(new Set(statuses.map((s) => s.matchId)).size, 1, `room ${roomId} has two matches`);
      assert.equal(statuses.length, tickets.length, `room ${roomId}: not every ticket claimed`);
      const pool = tickets[0].pool as keyof typeof pools;
      const users = tickets.reduce((n, t) => n + t.userIds.length, 0);
      assert.ok(
        users >= pools[pool].minPlayers && users <= pools[pool].maxPlayers,
        `room ${roomId}: ${users} users`,
      );
      const matchedAt = statuses[0].matchedAt;
      for (const t of tickets) {
        assert.equal(t.pool, pool, 'pools mixed');
        for (const u of tickets) {
          // The window at formation time is at most the window at claim time (clock only advances).
          const radius = skillRadius(pools[pool].skillWindow, matchedAt - t.createdAt);
          assert.ok(Math.abs(t.skill - u.skill) <= radius + 1e-9, 'outside a skill window');
        }
      }
    }
    const lost = matchmakers.reduce((n, m) => n + m.metrics().claimsLost, 0);
    const matches = matchmakers.reduce((n, m) => n + m.metrics().matches, 0);
    assert.equal(lost, abandoned.size, 'every lost claim abandoned its room');
    assert.equal(matches, byRoom.size, 'every counted match is recorded in the directory');
    assert.equal(made.size, matches + lost, 'every room made was either claimed or abandoned');
    return { matches, lost, tickets: ids.length, matched: inMatch.size };
  }

  it('two matchmakers processing one queue concurrently never put a ticket in two matches', async () => {
    const r = await race(12345, 40);
    assert.ok(r.matches > 20, `only ${r.matches} matches`);
    assert.ok(r.lost > 0, 'the two matchmakers never raced for a ticket');
  });

  it('keeps every invariant under random queues, cancels and room failures (seeded)', async () => {
    for (let i = 0; i < 8; i++) await race((SEED + i) >>> 0, 25);
  });
});
