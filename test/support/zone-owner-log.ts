/**
 * The zones' per-tick logs of what they own (zone-audit-machine.ts), gathered and checked: at every
 * tick each entity is owned by one zone at most, and from its first tick on by one at least, except
 * while the zone that has it next was not stepping at all (skipping ticks behind the clock, or no
 * process running it before a takeover), or right after the last log of a killed process (its
 * last logs die with it: it may have owned the entity then). An entity that entered a zone late
 * is that zone's from its handoff's tick. It also keeps what each zone said it refused as late.
 */
import type { AuditEvent } from './zone-audit-protocol.js';

const MAX_PROBLEMS = 20;

export interface OwnerAudit {
  problems: string[];
  /** World ids owned at the last tick checked. */
  entities: number;
  /** Gaps explained: the next zone not stepping (a takeover, skipped ticks), or a killed process's lost logs. */
  gapsExplained: number;
  lateArrivals: number;
}

export class ZoneOwnerLog {
  /** World id → tick → zone. */
  private readonly owners = new Map<number, Map<number, number>>();
  /** Zone → ticks it stepped, under any epoch. */
  private readonly stepped = new Map<number, Set<number>>();
  private readonly problems: string[] = [];
  private lateArrivals = 0;
  /** "zone:tick": the last tick a zone logged before its process was killed. */
  private readonly killedAfter = new Set<string>();
  readonly starts: { zone: number; epoch: number; tick: number }[] = [];
  /** "zone:epoch" → inputs it refused as late, as it last said. */
  private readonly lateInputs = new Map<string, number>();

  add(event: AuditEvent): void {
    if (event.kind === 'started') this.starts.push(event);
    else if (event.kind === 'late-inputs') this.lateInputs.set(`${event.zone}:${event.epoch}`, event.count);
    else if (event.kind === 'owned') {
      const ticks = this.stepped.get(event.zone) ?? new Set<number>();
      this.stepped.set(event.zone, ticks);
      ticks.add(event.tick);
      for (const worldId of event.ids) this.own(worldId, event.tick, event.zone);
    } else if (event.kind === 'late') {
      this.lateArrivals++;
      for (let tick = event.fromTick; tick <= event.tick; tick++) this.own(event.worldId, tick, event.zone);
    }
  }

  /** Inputs every zone under every epoch refused as late, as far as they said (also the killed ones). */
  inputsRefusedLate(): number {
    let sum = 0;
    for (const count of this.lateInputs.values()) sum += count;
    return sum;
  }

  /** The process running `zones` was killed: their logs end with what came before. */
  killed(zones: readonly number[]): void {
    for (const zone of zones) this.killedAfter.add(`${zone}:${this.loggedThrough([zone])}`);
  }

  /** The newest tick every zone in `zones` has logged. */
  loggedThrough(zones: readonly number[]): number {
    let through = Number.POSITIVE_INFINITY;
    for (const zone of zones) {
      let newest = -1;
      for (const tick of this.stepped.get(zone) ?? []) if (tick > newest) newest = tick;
      through = Math.min(through, newest);
    }
    return through;
  }

  /** Checks every entity's ownership from its first tick up to `lastTick`. */
  audit(lastTick: number): OwnerAudit {
    const problems = [...this.problems];
    const report = (problem: string) => {
      if (problems.length < MAX_PROBLEMS) problems.push(problem);
    };
    let entities = 0;
    let gapsExplained = 0;
    for (const [worldId, ticks] of this.owners) {
      let first = Number.POSITIVE_INFINITY;
      for (const tick of ticks.keys()) if (tick < first) first = tick;
      if (first > lastTick) continue;
      for (let tick = first; tick <= lastTick; tick++) {
        if (ticks.has(tick)) continue;
        let end = tick;
        while (end < lastTick && !ticks.has(end + 1)) end++;
        if (end === lastTick) {
          report(`entity ${worldId} owned by no zone from tick ${tick} to the end (${lastTick})`);
          break;
        }
        const next = ticks.get(end + 1)!;
        const before = ticks.get(tick - 1)!;
        const steppedThen = this.stepped.get(next);
        let steppedInGap = false;
        for (let t = tick; t <= end && !steppedInGap; t++) steppedInGap = steppedThen?.has(t) === true;
        if (!steppedInGap || this.killedAfter.has(`${before}:${tick - 1}`)) gapsExplained++;
        else
          report(
            `entity ${worldId} owned by no zone at ticks ${tick}-${end}, by zone ${before} before, ${next} after`,
          );
        tick = end;
      }
      if (ticks.has(lastTick)) entities++;
    }
    return { problems, entities, gapsExplained, lateArrivals: this.lateArrivals };
  }

  private own(worldId: number, tick: number, zone: number): void {
    const ticks = this.owners.get(worldId) ?? new Map<number, number>();
    this.owners.set(worldId, ticks);
    const other = ticks.get(tick);
    if (other !== undefined && other !== zone && this.problems.length < MAX_PROBLEMS)
      this.problems.push(`tick ${tick}: entity ${worldId} owned by zones ${other} and ${zone}`);
    ticks.set(tick, zone);
  }
}
