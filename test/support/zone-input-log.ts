/**
 * What the zone test game's rules write in a player's data about the inputs they applied, and the
 * check of it against what the player's client sent. An input carries the tick its client made it
 * for (its label); the gateway's input buffer takes one label per world tick, in order, and when
 * the next has not come it takes the last again (the one late is then lost); a zone short of an
 * input repeats the last too. So the labels applied go up by one, stay (a repeat) or jump (inputs
 * lost); and each world tick steps a player at most once. Player data moves with the player across
 * handoffs and is in the zone's snapshots: the log is what the world's surviving history applied.
 */

/** `player.data.inputLog`. JSON, as player data must be. */
export interface InputLog {
  /** The first and newest label applied, and how many labels were. */
  first: number;
  newest: number;
  applied: number;
  /** Labels applied after a newer one: out of order. */
  outOfOrder: number;
  /** Steps that took the newest label again (no input of its own for their tick). */
  repeated: number;
  /** Labels skipped between two applied, as [from, to] runs; the first MAX_GAPS. */
  gaps: [number, number][];
  /** The newest world tick the player stepped, and steps at a world tick not after it (a tick stepped twice). */
  tick: number;
  ticksTwice: number;
}

const MAX_GAPS = 64;

/** Called by the rules' onInput: `label` is what the input says, `tick` the world tick being simulated. */
export function logInput(data: Record<string, unknown>, label: number, tick: number): void {
  data.inputLog ??= {
    first: -1,
    newest: -1,
    applied: 0,
    outOfOrder: 0,
    repeated: 0,
    gaps: [],
    tick: -1,
    ticksTwice: 0,
  } satisfies InputLog;
  const log = data.inputLog as InputLog;
  if (tick <= log.tick) log.ticksTwice++;
  else log.tick = tick;
  if (log.newest >= 0 && label < log.newest) log.outOfOrder++;
  else if (label === log.newest) log.repeated++;
  else {
    if (log.newest >= 0 && label > log.newest + 1 && log.gaps.length < MAX_GAPS)
      log.gaps.push([log.newest + 1, label - 1]);
    if (log.first < 0) log.first = label;
    log.newest = label;
    log.applied++;
  }
}

/** How a player's applied inputs compare with the ticks its client sent. */
export interface InputAudit {
  /** Sent inputs not applied, between the first and the newest applied, by whether an outage explains them. */
  lost: number;
  lostInOutages: number;
  /** Ticks sent before the first one applied (the player was not hosted yet). */
  beforeFirst: number;
  problems: string[];
}

/**
 * Checks a log against the labels a client sent (ascending): no world tick stepped twice, no input
 * out of order, every input applied was sent, and every one sent from the first applied to the
 * newest was applied, or counted lost (in one of `outages`, inclusive label ranges, or not).
 */
export function auditInputs(
  log: InputLog | undefined,
  sent: readonly number[],
  outages: readonly (readonly [number, number])[],
  /** Inputs lost up to this label are not counted (a check before this one counted them). */
  countFrom = Number.NEGATIVE_INFINITY,
): InputAudit {
  const audit: InputAudit = { lost: 0, lostInOutages: 0, beforeFirst: 0, problems: [] };
  if (log === undefined || log.first < 0) {
    audit.problems.push('no input applied');
    return audit;
  }
  if (log.ticksTwice > 0) audit.problems.push(`${log.ticksTwice} world ticks stepped the player twice`);
  if (log.outOfOrder > 0) audit.problems.push(`${log.outOfOrder} inputs applied out of order`);
  if (log.gaps.length >= MAX_GAPS) audit.problems.push(`${log.gaps.length} gaps or more: not all kept`);
  const sentSet = new Set(sent);
  const inGap = (tick: number) => log.gaps.some(([from, to]) => tick >= from && tick <= to);
  let applied = 0;
  let unsent = 0;
  for (let tick = log.first; tick <= log.newest; tick++) {
    if (inGap(tick)) {
      if (!sentSet.has(tick) || tick <= countFrom) continue;
      if (outages.some(([from, to]) => tick >= from && tick <= to)) audit.lostInOutages++;
      else audit.lost++;
      continue;
    }
    applied++;
    if (!sentSet.has(tick)) unsent++;
  }
  if (unsent > 0) audit.problems.push(`${unsent} inputs applied that the client never sent`);
  if (applied !== log.applied)
    audit.problems.push(`${log.applied} inputs applied, ${applied} ticks from the first to the newest`);
  audit.beforeFirst = sent.filter((tick) => tick < log.first).length;
  return audit;
}
