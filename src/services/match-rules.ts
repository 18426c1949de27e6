/**
 * Match rules: which queued tickets make a match, as a pure function of the tickets and the time.
 *
 * - Only tickets of the same pool match; a ticket's users (its party) all go into one match, and
 *   players are counted as users, not tickets: minPlayers ≤ users ≤ maxPlayers.
 * - Skill window: a ticket that has waited `w` seconds accepts skills within
 *   `min(max, initial + perSecond × w)` of its own. Two tickets are compatible when EACH lies in the
 *   other's window (|a − b| ≤ both radii), so a newcomer is never pulled far off its skill just
 *   because an old ticket has widened; every pair in a match satisfies it (and the game's
 *   `compatible` hook, when given).
 * - Good enough: a match filled to maxPlayers is taken at once; one of at least minPlayers is taken
 *   once its oldest ticket has waited fillWaitMs (Infinity: only full matches).
 *
 * One pass: per pool, tickets sorted by skill in a linked list of the ones still free; seeds are
 * taken oldest first (the longest wait is served first), and each seed grows a match from its
 * skill neighbours outwards, nearest first, looking at no more than `candidatesPerSeed` of them.
 * The pairwise skill rule is kept in O(1) per candidate: the group's allowed skills are the
 * intersection of its members' windows, an interval. A pass costs O(n log n + n × candidatesPerSeed).
 */
import type { Ticket } from './directory.js';

export interface SkillWindow {
  /** Radius accepted at once (skill units, ≥ 0). */
  initial: number;
  /** Radius added per second waited (≥ 0). */
  perSecond: number;
  /** Largest radius (≥ initial; Infinity for no cap). */
  max: number;
}

export interface MatchRules {
  /** Users in a match at least (integer ≥ 1). */
  minPlayers: number;
  /** Users in a match at most (integer ≥ minPlayers). */
  maxPlayers: number;
  skillWindow: SkillWindow;
  /** A match short of maxPlayers (but ≥ minPlayers) is taken once its oldest ticket waited this long. */
  fillWaitMs: number;
  /** The game's own rule on two tickets' properties (e.g. same map choice); must be symmetric. */
  compatible?: (a: Ticket, b: Ticket) => boolean;
  /** Skill neighbours one seed looks at (bounds a pass); default max(32, 8 × maxPlayers). */
  candidatesPerSeed?: number;
}

/** Forms matches from queued tickets at time `now` (unix ms); each ticket is in at most one match. */
export type MatchFormer = (tickets: readonly Ticket[], now: number) => Ticket[][];

/** Users in one match at most: a bound that catches a unit mistake, far above any real room. */
export const MAX_PLAYERS_LIMIT = 10_000;

/** Throws RangeError on a rule a caller got wrong; returns the rules with defaults filled in. */
export function validateMatchRules(
  rules: MatchRules,
): Required<Omit<MatchRules, 'compatible'>> & Pick<MatchRules, 'compatible'> {
  const { minPlayers, maxPlayers, skillWindow, fillWaitMs, compatible } = rules;
  if (!Number.isInteger(minPlayers) || minPlayers < 1)
    throw new RangeError(`minPlayers must be an integer ≥ 1, got ${minPlayers}`);
  if (!Number.isInteger(maxPlayers) || maxPlayers < minPlayers || maxPlayers > MAX_PLAYERS_LIMIT)
    throw new RangeError(
      `maxPlayers must be an integer in [minPlayers=${minPlayers}, ${MAX_PLAYERS_LIMIT}], got ${maxPlayers}`,
    );
  if (typeof skillWindow !== 'object' || skillWindow === null)
    throw new RangeError('skillWindow must be { initial, perSecond, max }');
  const { initial, perSecond, max } = skillWindow;
  if (!Number.isFinite(initial) || initial < 0)
    throw new RangeError(`skillWindow.initial must be a finite number ≥ 0, got ${initial}`);
  if (!Number.isFinite(perSecond) || perSecond < 0)
    throw new RangeError(`skillWindow.perSecond must be a finite number ≥ 0, got ${perSecond}`);
  if (Number.isNaN(max) || typeof max !== 'number' || max < initial)
    throw new RangeError(`skillWindow.max must be ≥ initial (${initial}), got ${max}`);
  if (typeof fillWaitMs !== 'number' || Number.isNaN(fillWaitMs) || fillWaitMs < 0)
    throw new RangeError(`fillWaitMs must be ≥ 0 (Infinity: full matches only), got ${fillWaitMs}`);
  if (compatible !== undefined && typeof compatible !== 'function')
    throw new RangeError('compatible must be a function (a, b) => boolean');
  const candidatesPerSeed = rules.candidatesPerSeed ?? Math.max(32, 8 * maxPlayers);
  if (!Number.isInteger(candidatesPerSeed) || candidatesPerSeed < 1)
    throw new RangeError(`candidatesPerSeed must be an integer ≥ 1, got ${candidatesPerSeed}`);
  return {
    minPlayers,
    maxPlayers,
    skillWindow: { initial, perSecond, max },
    fillWaitMs,
    compatible,
    candidatesPerSeed,
  };
}

/** The skill radius a ticket accepts after waiting `waitedMs` (negative waits count as 0). */
export function skillRadius(window: SkillWindow, waitedMs: number): number {
  const radius = window.initial + (window.perSecond * Math.max(0, waitedMs)) / 1000;
  return Math.min(radius, window.max);
}

/** Validates the rules once and returns the pass that applies them. */
export function createMatchFormer(rules: MatchRules): MatchFormer {
  const r = validateMatchRules(rules);
  return (tickets, now) => {
    if (!Number.isFinite(now)) throw new RangeError(`now must be a finite time, got ${now}`);
    const byPool = new Map<string, Ticket[]>();
    for (const t of tickets) {
      // A ticket no match can take (bad party size or skill) is left alone, never thrown on.
      if (t.userIds.length < 1 || t.userIds.length > r.maxPlayers || !Number.isFinite(t.skill)) continue;
      const list = byPool.get(t.pool);
      if (list === undefined) byPool.set(t.pool, [t]);
      else list.push(t);
    }
    const out: Ticket[][] = [];
    for (const list of byPool.values()) formPool(list, now, r, out);
    return out;
  };
}

type Rules = ReturnType<typeof validateMatchRules>;

function formPool(pool: Ticket[], now: number, r: Rules, out: Ticket[][]): void {
  const n = pool.length;
  // Sorted by skill (ties: older first, then id) so a pass is deterministic for a given queue.
  pool.sort((a, b) => a.skill - b.skill || a.createdAt - b.createdAt || compareIds(a.ticketId, b.ticketId));
  const skill = new Float64Array(n);
  const radius = new Float64Array(n);
  const size = new Int32Array(n);
  // The free tickets in skill order: prev/next indices, -1 at the ends.
  const prev = new Int32Array(n);
  const next = new Int32Array(n);
  const used = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const t = pool[i];
    skill[i] = t.skill;
    radius[i] = skillRadius(r.skillWindow, now - t.createdAt);
    size[i] = t.userIds.length;
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  const byAge = Array.from({ length: n }, (_, i) => i);
  byAge.sort((a, b) => pool[a].createdAt - pool[b].createdAt || a - b);
  // Which seed's group each user is in now, so no user appears twice in one match.
  const userGroup = new Map<string, number>();
  const members: number[] = [];
  const take = (i: number) => {
    used[i] = 1;
    const p = prev[i];
    const q = next[i];
    if (p >= 0) next[p] = q;
    if (q >= 0) prev[q] = p;
  };

  for (let s = 0; s < n; s++) {
    const seed = byAge[s];
    if (used[seed]) continue;
    members.length = 0;
    members.push(seed);
    for (const u of pool[seed].userIds) userGroup.set(u, seed);
    let users = size[seed];
    let lo = skill[seed];
    let hi = lo;
    let allowLo = lo - radius[seed];
    let allowHi = lo + radius[seed];
    let oldest = pool[seed].createdAt;
    let left = prev[seed];
    let right = next[seed];
    let looked = 0;
    while (users < r.maxPlayers && looked < r.candidatesPerSeed) {
      // Past the group's allowed interval on one side, everything further out is too.
      if (left >= 0 && skill[left] < allowLo) left = -1;
      if (right >= 0 && skill[right] > allowHi) right = -1;
      if (left < 0 && right < 0) break;
      const goLeft = right < 0 || (left >= 0 && skill[seed] - skill[left] <= skill[right] - skill[seed]);
      const c = goLeft ? left : right;
      if (goLeft) left = prev[c];
      else right = next[c];
      looked++;
      const sc = skill[c];
      const rc = radius[c];
      if (users + size[c] > r.maxPlayers) continue;
      if (sc < allowLo || sc > allowHi || sc - lo > rc || hi - sc > rc) continue;
      const t = pool[c];
      if (t.userIds.some((u) => userGroup.get(u) === seed)) continue;
      if (r.compatible !== undefined && !members.every((m) => r.compatible?.(pool[m], t))) continue;
      members.push(c);
      for (const u of t.userIds) userGroup.set(u, seed);
      users += size[c];
      if (sc < lo) lo = sc;
      if (sc > hi) hi = sc;
      if (sc - rc > allowLo) allowLo = sc - rc;
      if (sc + rc < allowHi) allowHi = sc + rc;
      if (t.createdAt < oldest) oldest = t.createdAt;
    }
    const full = users === r.maxPlayers;
    if (full || (users >= r.minPlayers && now - oldest >= r.fillWaitMs)) {
      const match: Ticket[] = [];
      for (const m of members) {
        take(m);
        match.push(pool[m]);
      }
      out.push(match);
    }
  }
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
