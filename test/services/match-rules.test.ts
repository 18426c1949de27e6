import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import type { Ticket } from '../../src/services/directory.js';
import { createMatchFormer, type MatchRules, skillRadius } from '../../src/services/match-rules.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('match rules');

const RULES: MatchRules = {
  minPlayers: 2,
  maxPlayers: 4,
  skillWindow: { initial: 100, perSecond: 10, max: 500 },
  fillWaitMs: 10_000,
};

let ids = 0;
function ticket(skill: number, createdAt: number, users = 1, pool = 'p', properties = {}): Ticket {
  const id = ids++;
  return {
    ticketId: `t${id}`,
    userIds: Array.from({ length: users }, (_, i) => `u${id}.${i}`),
    pool,
    skill,
    properties,
    createdAt,
  };
}

const users = (match: Ticket[]) => match.reduce((n, t) => n + t.userIds.length, 0);
const idsOf = (matches: Ticket[][]) => matches.map((m) => m.map((t) => t.ticketId).sort());

/** Every invariant a pass must keep, whatever it chose. */
function checkInvariants(rules: MatchRules, tickets: Ticket[], matches: Ticket[][], now: number): void {
  const seen = new Set<string>();
  const given = new Set(tickets.map((t) => t.ticketId));
  for (const m of matches) {
    const n = users(m);
    assert.ok(n >= rules.minPlayers && n <= rules.maxPlayers, `match of ${n} users`);
    const oldest = Math.min(...m.map((t) => t.createdAt));
    assert.ok(n === rules.maxPlayers || now - oldest >= rules.fillWaitMs, 'a short match taken too early');
    const people = m.flatMap((t) => t.userIds);
    assert.equal(new Set(people).size, people.length, 'a user twice in one match');
    for (const a of m) {
      assert.ok(given.has(a.ticketId), 'a ticket that was not queued');
      assert.ok(!seen.has(a.ticketId), `ticket ${a.ticketId} in two matches`);
      seen.add(a.ticketId);
      assert.equal(a.pool, m[0].pool, 'pools mixed');
      for (const b of m) {
        const gap = Math.abs(a.skill - b.skill);
        assert.ok(gap <= skillRadius(rules.skillWindow, now - a.createdAt) + 1e-9, 'outside a window');
        if (rules.compatible !== undefined) assert.ok(a === b || rules.compatible(a, b), 'incompatible');
      }
    }
  }
}

describe('match rules: validation', () => {
  const bad: [string, Partial<MatchRules>][] = [
    ['minPlayers 0', { minPlayers: 0 }],
    ['minPlayers 1.5', { minPlayers: 1.5 }],
    ['maxPlayers below min', { minPlayers: 4, maxPlayers: 3 }],
    ['maxPlayers NaN', { maxPlayers: Number.NaN }],
    ['maxPlayers huge', { maxPlayers: 1e9 }],
    ['negative initial', { skillWindow: { initial: -1, perSecond: 1, max: 10 } }],
    ['infinite perSecond', { skillWindow: { initial: 1, perSecond: Number.POSITIVE_INFINITY, max: 10 } }],
    ['max below initial', { skillWindow: { initial: 20, perSecond: 1, max: 10 } }],
    ['NaN fillWaitMs', { fillWaitMs: Number.NaN }],
    ['negative fillWaitMs', { fillWaitMs: -1 }],
    ['candidatesPerSeed 0', { candidatesPerSeed: 0 }],
    ['compatible not a function', { compatible: 3 as unknown as MatchRules['compatible'] }],
  ];
  for (const [name, patch] of bad)
    it(`refuses ${name} with a RangeError`, () => {
      assert.throws(() => createMatchFormer({ ...RULES, ...patch }), RangeError);
    });

  it('takes an uncapped window and full-matches-only', () => {
    const form = createMatchFormer({
      ...RULES,
      skillWindow: { initial: 0, perSecond: 1, max: Number.POSITIVE_INFINITY },
      fillWaitMs: Number.POSITIVE_INFINITY,
    });
    const tickets = [ticket(0, 0), ticket(5000, 0)];
    assert.deepEqual(form(tickets, 1_000_000), [], 'two of four never make a match');
  });

  it('refuses a non-finite now', () => {
    assert.throws(() => createMatchFormer(RULES)([], Number.NaN), RangeError);
  });

  it('the window widens linearly and stops at max', () => {
    const w = RULES.skillWindow;
    assert.equal(skillRadius(w, -5000), 100);
    assert.equal(skillRadius(w, 0), 100);
    assert.equal(skillRadius(w, 20_000), 300);
    assert.equal(skillRadius(w, 1e9), 500);
  });
});

describe('match rules: forming', () => {
  it('fills a match to maxPlayers at once, counting users and keeping parties whole', () => {
    const form = createMatchFormer(RULES);
    const party3 = ticket(1000, 0, 3);
    const party2 = ticket(1001, 0, 2);
    const solo = ticket(1002, 0, 1);
    const matches = form([party3, party2, solo], 0);
    assert.deepEqual(idsOf(matches), [[party3.ticketId, solo.ticketId].sort()]);
    assert.equal(users(matches[0]), 4);
  });

  it('takes a short match only after fillWaitMs, and never below minPlayers', () => {
    const form = createMatchFormer(RULES);
    const a = ticket(1000, 0);
    const b = ticket(1010, 0);
    assert.deepEqual(form([a, b], 9_999), [], 'two of four before the fill wait');
    assert.deepEqual(idsOf(form([a, b], 10_000)), [[a.ticketId, b.ticketId].sort()]);
    assert.deepEqual(form([ticket(1000, 0)], 1e9), [], 'one user is below minPlayers');
  });

  it('a far-skill pair matches only once both windows reach the gap', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const a = ticket(1000, 0);
    const b = ticket(1300, 0);
    // radius 100 + 10/s: 300 after 20 s.
    assert.deepEqual(form([a, b], 19_999), []);
    assert.deepEqual(idsOf(form([a, b], 20_000)), [[a.ticketId, b.ticketId].sort()]);
  });

  it('needs each ticket inside the other window: a newcomer is not pulled to an old wide ticket', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const old = ticket(1000, 0); // radius 500 at 100 s
    const fresh = ticket(1300, 100_000); // radius 100
    assert.deepEqual(form([old, fresh], 100_000), []);
    // 20 s later the newcomer's radius is 300: they match.
    assert.equal(form([old, fresh], 120_000).length, 1);
  });

  it('never mixes pools', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const a = ticket(1000, 0, 1, 'duel/eu');
    const b = ticket(1000, 0, 1, 'duel/us');
    assert.deepEqual(form([a, b], 1e6), []);
    const c = ticket(1000, 0, 1, 'duel/us');
    assert.deepEqual(idsOf(form([a, b, c], 0)), [[b.ticketId, c.ticketId].sort()]);
  });

  it("applies the game's compatible hook to every pair", () => {
    const form = createMatchFormer({
      ...RULES,
      maxPlayers: 2,
      compatible: (x, y) => x.properties.map === y.properties.map,
    });
    const a = ticket(1000, 0, 1, 'p', { map: 'dust' });
    const b = ticket(1001, 0, 1, 'p', { map: 'ice' });
    const c = ticket(1002, 0, 1, 'p', { map: 'dust' });
    assert.deepEqual(idsOf(form([a, b, c], 0)), [[a.ticketId, c.ticketId].sort()]);
  });

  it('serves the oldest ticket first and prefers its nearest skills', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const old = ticket(1000, 0);
    const near = ticket(1020, 5000);
    const far = ticket(980 - 50, 5000);
    const matches = form([near, far, old], 5000);
    assert.deepEqual(idsOf(matches), [[old.ticketId, near.ticketId].sort()]);
  });

  it('never puts one user in a match twice (two tickets of one user)', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const a = ticket(1000, 0);
    const b = { ...ticket(1000, 0), userIds: [...a.userIds] };
    assert.deepEqual(form([a, b], 1e6), []);
  });

  it('leaves alone tickets no match can take (empty or oversized party, non-finite skill)', () => {
    const form = createMatchFormer({ ...RULES, maxPlayers: 2 });
    const tickets = [ticket(1000, 0, 3), { ...ticket(1000, 0), userIds: [] }, ticket(Number.NaN, 0)];
    assert.deepEqual(form(tickets, 1e6), []);
  });

  it('keeps every invariant on random queues (seeded)', () => {
    const next = prng(SEED);
    for (let round = 0; round < 200; round++) {
      const min = 1 + randomInt(next, 4);
      const rules: MatchRules = {
        minPlayers: min,
        maxPlayers: min + randomInt(next, 6),
        skillWindow: {
          initial: randomInt(next, 200),
          perSecond: randomInt(next, 30),
          max: 300 + randomInt(next, 600),
        },
        fillWaitMs: randomInt(next, 3) === 0 ? Number.POSITIVE_INFINITY : randomInt(next, 20_000),
        candidatesPerSeed: 1 + randomInt(next, 40),
        ...(randomInt(next, 3) === 0
          ? { compatible: (a: Ticket, b: Ticket) => a.properties.m === b.properties.m }
          : {}),
      };
      const now = 100_000;
      const userPool = Array.from({ length: 60 }, (_, i) => `user${i}`);
      const tickets = Array.from({ length: randomInt(next, 120) }, () => {
        const t = ticket(
          1500 + (next() - 0.5) * 1500,
          now - randomInt(next, 60_000),
          1,
          `pool${randomInt(next, 3)}`,
          {
            m: randomInt(next, 2),
          },
        );
        const party = 1 + (randomInt(next, 5) === 0 ? randomInt(next, rules.maxPlayers + 1) : 0);
        // Users drawn from a small set, so some tickets share a user.
        t.userIds = [
          ...new Set(Array.from({ length: party }, () => userPool[randomInt(next, userPool.length)])),
        ];
        return t;
      });
      const matches = createMatchFormer(rules)(tickets, now);
      checkInvariants(rules, tickets, matches, now);
    }
  });

  it('forms full matches from a dense queue of 10,000 tickets in one pass', () => {
    const next = prng(SEED ^ 0x5bd1e995);
    const tickets = Array.from({ length: 10_000 }, () => ticket(1500 + next() * 50, randomInt(next, 1000)));
    const matches = createMatchFormer(RULES)(tickets, 1000);
    checkInvariants(RULES, tickets, matches, 1000);
    assert.equal(matches.length, 2500, 'every ticket matched: each lies in every other window');
  });
});
