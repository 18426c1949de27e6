/**
 * Datagram loss, the load tester's one definition, for the progress line and the summary alike:
 * 1 − received / sent, both directions together (bots → servers and servers → bots), from every
 * socket's own counts taken at one instant. The summary takes it over the whole run once every
 * count is final; each progress line takes it from the start to the latest instant every process
 * has reported (`loss so far`), so the lines converge on the summary. A datagram still in flight
 * at that instant (in a kernel or user-space receive queue of a busy process) counts as lost until
 * it arrives: early lines of a run on a starved machine read high.
 *
 * Why the instant matters: each room process and each bot process reads its socket counters once
 * a second, at its own phase. Summing the latest reports mixed counts up to a second apart, and
 * differencing them per second read as `loss 31.96%` beside a run total of 0.29%. Here every
 * report carries when it was counted, and each source's cumulative counts are interpolated to a
 * common instant: the latest every source has reported past.
 */

interface Snapshot {
  at: number;
  sent: number;
  received: number;
}

export interface DatagramCounts {
  sent: number;
  received: number;
}

/** Snapshots kept per source: enough to bracket the common instant, which lags by about a report. */
const KEPT = 8;

/** Percent of `sent` not received (0 when nothing was sent; never below 0). */
export const lossPercent = (sent: number, received: number): number =>
  sent === 0 ? 0 : Math.max(0, 100 * (1 - received / sent));

export class AlignedDatagramCounts {
  private readonly sources = new Map<string, Snapshot[]>();
  private origin = Number.POSITIVE_INFINITY;

  /**
   * Starts counting at `origin` (seconds), when every source's counts are zero (the runner: as the
   * bots start, before any game datagram). A report from before it only makes its source known:
   * the common instant then waits for that source's first report after the origin.
   */
  begin(origin: number): void {
    this.origin = origin;
    for (const source of this.sources.keys())
      this.sources.set(source, [{ at: origin, sent: 0, received: 0 }]);
  }

  /** Makes a source known before its first report (the common instant waits for that report). */
  expect(source: string): void {
    if (!this.sources.has(source)) this.sources.set(source, [{ at: this.origin, sent: 0, received: 0 }]);
  }

  /**
   * A source's cumulative counts as of `at` (seconds since the epoch, when the source read its
   * counters: every report carries it). Between the origin and its first report a source's counts
   * are interpolated from zero.
   */
  record(source: string, at: number, sent: number, received: number): void {
    if (!Number.isFinite(at)) return;
    this.expect(source);
    const list = this.sources.get(source) as Snapshot[];
    // Before the origin: a source known from then on, whose counts hold back the common instant.
    if (at < this.origin) return;
    const last = list.at(-1);
    if (last !== undefined && at < last.at) at = last.at; // reports arrive in order; clocks do not go back
    list.push({ at, sent, received });
    if (list.length > KEPT) list.shift();
  }

  /**
   * The latest instant every source has counts for: the oldest of their last reports, leaving out
   * sources silent for more than `staleAfter` seconds before `now` (stopped: their last counts
   * stand). `now` when there are no live sources.
   */
  commonInstant(now: number, staleAfter = 3): number {
    let instant = now;
    for (const list of this.sources.values()) {
      const last = list[list.length - 1].at;
      if (now - last <= staleAfter) instant = Math.min(instant, last);
    }
    return instant;
  }

  /** The counts of every source at `instant`, each interpolated between its reports around it. */
  countsAt(instant: number): DatagramCounts {
    let sent = 0;
    let received = 0;
    for (const list of this.sources.values()) {
      const after = list.findIndex((s) => s.at >= instant);
      if (after === -1) {
        // Past its last report: its last counts.
        sent += list[list.length - 1].sent;
        received += list[list.length - 1].received;
      } else if (after > 0) {
        const a = list[after - 1];
        const b = list[after];
        const f = b.at === a.at ? 1 : (instant - a.at) / (b.at - a.at);
        sent += a.sent + f * (b.sent - a.sent);
        received += a.received + f * (b.received - a.received);
      } else if (list[0].at === instant) {
        sent += list[0].sent;
        received += list[0].received;
      }
      // Before the oldest kept report: before the origin, when nothing was counted.
    }
    return { sent, received };
  }
}
