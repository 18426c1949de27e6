import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import type { CustomChannelConfig } from '../channels/config.js';
import type { ScratchList } from '../channels/scratch-list.js';
import { checkFinite } from '../replication/check-argument.js';
import { type Codec, compile } from '../schema/codec.js';
import type { Schema } from '../schema/schema.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { checkInputSchema, InputCopier } from './input-copier.js';
import {
  countBits,
  type Feedback,
  holdView,
  MAX_INPUTS_PER_PACKET,
  MAX_TICK,
  MAX_VIEW_OFFSET,
  quantizeView,
  readFeedback,
  tickBits,
  viewBits,
  writeCount,
  writeTick,
  writeView,
} from './input-wire.js';
import { LeadControl } from './lead-control.js';

export interface InputSenderOptions<T> {
  /** The input's schema (the server's InputReceiver lists the same). */
  schema: Schema<T>;
  /** The entry's place in the packet (default 2: before the ghost section). */
  priority?: number;
  /**
   * Unacknowledged inputs resent in every packet (default 128, at most 272); past it the oldest
   * stop being resent and are counted in `stats.droppedUnacked` (a dead link never throws).
   */
  maxUnacked?: number;
  /**
   * Input ticks a time-dilation correction is given to take effect beyond the rate change itself
   * (default 30: ClockSync's default correctionSeconds, 0.5 s, at 60 Hz).
   */
  settleTicks?: number;
}

export interface InputSenderStats {
  inputsPushed: number;
  /** Packets that carried inputs, and the bits and whole bytes of their entries. */
  packets: number;
  inputBits: number;
  inputBytes: number;
  /** Inputs that fell out of the resend window unacknowledged (maxUnacked). */
  droppedUnacked: number;
  /** Server reports received. */
  feedbacks: number;
  /** Time-dilation corrections made. */
  corrections: number;
  /** Times the server moved its input cursor (input tick − server tick changed: a resync). */
  cursorMoves: number;
}

const PAIRS = 64;
/** Report ticks InputSender remembers (see reportTick). */
const REPORT_RING = 16;

/**
 * The client side of the input channel: `push` the input of each predicted tick; every packet
 * carries every input the server is not known to hold (packet acks), so a lost packet costs
 * nothing while the next arrives. Put `channel` in MessageClient's channels at the index of the
 * server's InputReceiver.channel. The server's reports give `appliedInputTick` (for
 * reconciliation), `bufferDepth` and `leadAdjustTicks` (add it to the ClockSync lead).
 */
export class InputSender<T> implements CustomChannel {
  readonly channel: CustomChannelConfig;
  readonly maxUnacked: number;
  private readonly counters: InputSenderStats = zeroStats();
  private readonly codec: Codec<T>;
  private readonly copier: InputCopier<T>;
  private readonly mask: number;
  /** Per slot the input as the server will decode it (filled in place once made). */
  private readonly values: (T | undefined)[];
  private readonly same: Uint8Array;
  private readonly bits: Int32Array;
  private readonly views: Int32Array;
  private newest = -1;
  /** The first tick pushed on this connection (-1 before any). */
  private first = -1;
  private ackedTick = -1;
  /** The oldest tick still resent (older unacked ones were dropped). */
  private sendFrom = 0;
  private planFrom = 0;
  private planTo = -1;
  private planBits = 0;
  private readonly pairServer = new Float64Array(PAIRS).fill(-1);
  private readonly pairInput = new Float64Array(PAIRS);
  private feedbackTick = -1;
  /** The server ticks of the last REPORT_RING newest reports, by their number; and how many were. */
  private readonly reportTicks = new Float64Array(REPORT_RING);
  private reports = 0;
  private depth = 0;
  /** The newest report's input tick − server tick (NaN before any); corrections before the last restart. */
  private offset = Number.NaN;
  private correctionsBefore = 0;
  private readonly feedback: Feedback = { serverTick: 0, inputTick: 0, depth: 0, target: 0 };
  private readonly control: LeadControl;

  constructor(options: InputSenderOptions<T>) {
    this.codec = compile(options.schema);
    checkInputSchema('InputSender', this.codec);
    this.copier = new InputCopier(this.codec);
    const maxUnacked = options.maxUnacked ?? 128;
    if (!Number.isInteger(maxUnacked) || maxUnacked < 1 || maxUnacked > MAX_INPUTS_PER_PACKET)
      throw new RangeError(
        `InputSender: maxUnacked must be an integer in [1, ${MAX_INPUTS_PER_PACKET}], got ${maxUnacked}`,
      );
    const settle = options.settleTicks ?? 30;
    if (!Number.isInteger(settle) || settle < 0 || settle > 600)
      throw new RangeError(`InputSender: settleTicks must be an integer in [0, 600], got ${settle}`);
    this.maxUnacked = maxUnacked;
    let capacity = 1;
    while (capacity < maxUnacked + 1) capacity *= 2;
    this.mask = capacity - 1;
    this.values = new Array(capacity);
    this.same = new Uint8Array(capacity);
    this.bits = new Int32Array(capacity);
    this.views = new Int32Array(capacity);
    this.control = new LeadControl(settle, 64);
    this.channel = { kind: 'custom', priority: options.priority ?? 2, create: () => this.reset() };
  }

  /** What the sender has counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<InputSenderStats> {
    return this.counters;
  }

  /** The newest tick pushed (-1 before any). */
  get newestTick(): number {
    return this.newest;
  }

  /** The first tick pushed on this connection (-1 before any): the server's cursor starts there. */
  get firstTick(): number {
    return this.first;
  }

  /** The newest tick the server is known to hold (a packet carrying it was acked; -1 before). */
  get acknowledgedTick(): number {
    return this.ackedTick;
  }

  /** The server tick of the newest report (-1 before any on this connection). */
  get reportedTick(): number {
    return this.feedbackTick;
  }

  /**
   * Reports applied that were the newest yet (never reset): with `reportTick`, each one's server
   * tick. The server reports every tick it takes an input, so these time the server's packets
   * even when the ghost section is idle (LatencyClient's clock sync and interpolation delay).
   */
  get reportsApplied(): number {
    return this.reports;
  }

  /** The server tick of report number `index`, one of the last 16 (`reportsApplied` − 16 ≤ index < `reportsApplied`). */
  reportTick(index: number): number {
    if (!Number.isInteger(index) || index < this.reports - REPORT_RING || index >= this.reports || index < 0)
      throw new RangeError(
        `InputSender.reportTick: index must be one of the last ${REPORT_RING} reports applied, got ${index}`,
      );
    return this.reportTicks[index % REPORT_RING];
  }

  /** The server's newest reported buffer depth, ticks (negative: inputs arrive late). */
  get bufferDepth(): number {
    return this.depth;
  }

  /** Time dilation: add this to the lead given to ClockSync.update. */
  get leadAdjustTicks(): number {
    return this.control.lead;
  }

  /** Inputs waiting for an ack (what the next packet carries). */
  get unacked(): number {
    return this.newest < 0 ? 0 : this.newest - Math.max(this.ackedTick + 1, this.sendFrom) + 1;
  }

  /**
   * The input tick the server had applied last at `serverTick` (from its reports; the last 64
   * server ticks reported are kept), or -1 when unknown.
   */
  appliedInputTick(serverTick: number): number {
    checkFinite('InputSender.appliedInputTick', 'serverTick', serverTick);
    const slot = serverTick & (PAIRS - 1);
    return this.pairServer[slot] === serverTick ? this.pairInput[slot] : -1;
  }

  /**
   * Records the input of predicted tick `tick` (an integer after newestTick) and the render tick
   * the remote entities were shown at (for lag compensation; within 255 ticks before `tick`; it
   * reaches the server within 1/128 tick: a slow drift is sent only every 2/256 tick of it).
   * Skipped ticks repeat the previous input. A value outside the schema throws here. Returns the
   * input as the server will see it (quantized): predict with it to match the server exactly. It
   * is the sender's copy, valid until `maxUnacked` more ticks are pushed.
   */
  push(tick: number, input: T, viewTick = Number.NaN): T {
    if (!Number.isInteger(tick) || tick <= this.newest || tick > MAX_TICK)
      throw new RangeError(
        `InputSender.push: tick must be an integer in (${this.newest}, ${MAX_TICK}], got ${tick}`,
      );
    if (!Number.isNaN(viewTick) && !(tick - viewTick >= 0 && tick - viewTick <= MAX_VIEW_OFFSET))
      throw new RangeError(
        `InputSender.push: viewTick must be within ${MAX_VIEW_OFFSET} ticks at or before tick ${tick}, got ${viewTick}`,
      );
    const sameAsBefore = this.copier.encode(input); // throws on a value outside the schema
    const mask = this.mask;
    if (this.newest >= 0 && tick > this.newest + 1) {
      // The gap repeats the previous input and view offset (only the ticks still resent).
      const previous = this.newest & mask;
      const view = this.views[previous];
      for (let t = Math.max(this.newest + 1, tick - this.maxUnacked); t < tick; t++) {
        const slot = t & mask;
        this.values[slot] = this.copier.previousInto(this.values[slot]);
        this.same[slot] = 1;
        this.bits[slot] = this.bits[previous];
        this.views[slot] = view;
      }
    }
    const slot = tick & mask;
    this.values[slot] = this.copier.currentInto(this.values[slot]);
    this.same[slot] = this.newest >= 0 && sameAsBefore ? 1 : 0;
    this.bits[slot] = this.codec.measure(this.values[slot] as T);
    const previousView = this.newest >= 0 ? this.views[(tick - 1) & mask] : -1;
    this.views[slot] = holdView(quantizeView(tick, viewTick), previousView);
    if (this.newest < 0) this.sendFrom = this.first = tick;
    this.newest = tick;
    this.counters.inputsPushed++;
    const from = Math.max(this.ackedTick + 1, this.sendFrom);
    if (tick - from + 1 > this.maxUnacked) {
      const next = tick - this.maxUnacked + 1;
      this.counters.droppedUnacked += next - from;
      this.sendFrom = next;
    }
    return this.values[slot] as T;
  }

  /**
   * The input pushed for `tick` as the server decodes it (skipped ticks: the repeat), while it is
   * among the last `maxUnacked` ticks pushed; undefined otherwise. A predictor that starts late
   * replays these. The sender's copy: do not modify it.
   */
  inputAt(tick: number): T | undefined {
    if (!Number.isInteger(tick) || this.first < 0 || tick < this.first) return undefined;
    if (tick > this.newest || tick <= this.newest - this.maxUnacked) return undefined;
    return this.values[tick & this.mask];
  }

  /** Forgets everything (a new connection). */
  reset(): this {
    this.newest = this.ackedTick = this.first = -1;
    this.sendFrom = 0;
    this.planTo = -1;
    this.pairServer.fill(-1);
    this.feedbackTick = -1;
    this.depth = 0;
    this.offset = Number.NaN;
    this.correctionsBefore = 0;
    this.control.reset();
    this.copier.forget();
    Object.assign(this.counters, zeroStats());
    return this;
  }

  // CustomChannel: the inputs out, the server's reports in.
  select(_now: number, budgetBits: number): number {
    this.planTo = -1;
    if (this.newest < 0) return 0;
    const from = Math.max(this.ackedTick + 1, this.sendFrom);
    if (from > this.newest) return 0;
    const mask = this.mask;
    const last = Math.min(this.newest, from + MAX_INPUTS_PER_PACKET - 1);
    // Oldest first: the server needs them in order; what does not fit goes in the next packet.
    let total = 0;
    let view = -1;
    let to = from - 1;
    for (let t = from; t <= last; t++) {
      const slot = t & mask;
      const q = this.views[slot];
      const value = t === from ? this.bits[slot] : this.same[slot] === 1 ? 1 : 1 + this.bits[slot];
      const bits = value + viewBits(q, view);
      const head = tickBits(t, this.ackedTick) + countBits(t - from + 1);
      if (head + total + bits > budgetBits) break;
      total += bits;
      view = q;
      to = t;
    }
    if (to < from) return 0;
    this.planFrom = from;
    this.planTo = to;
    this.planBits = tickBits(to, this.ackedTick) + countBits(to - from + 1) + total;
    return this.planBits;
  }

  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    const from = this.planFrom;
    const to = this.planTo;
    if (to < from) return;
    const start = ws.bitsProcessed;
    writeTick(ws, to, this.ackedTick);
    writeCount(ws, to - from + 1);
    const mask = this.mask;
    let view = -1;
    for (let t = from; t <= to; t++) {
      const slot = t & mask;
      if (t === from || !ws.bool(this.same[slot] === 1)) this.codec.write(ws, this.values[slot] as T);
      const q = this.views[slot];
      writeView(ws, q, view);
      view = q;
    }
    record.push(to);
    this.planTo = -1;
    const bits = ws.bitsProcessed - start;
    this.counters.packets++;
    this.counters.inputBits += bits;
    this.counters.inputBytes = Math.ceil(this.counters.inputBits / 8);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k < end; k++) if (record[k] > this.ackedTick) this.ackedTick = record[k];
  }

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    if (!readFeedback(rs, this.feedbackTick, this.feedback)) return false;
    staged.push(this.feedback);
    return true;
  }

  apply(): void {
    const f = this.feedback;
    const slot = f.serverTick & (PAIRS - 1);
    this.pairServer[slot] = f.serverTick;
    this.pairInput[slot] = f.inputTick;
    this.counters.feedbacks++;
    // A reordered (older) report still gives its pair, but not the depth.
    if (f.serverTick <= this.feedbackTick) return;
    this.feedbackTick = f.serverTick;
    this.reportTicks[this.reports % REPORT_RING] = f.serverTick;
    this.reports++;
    this.depth = f.depth;
    // The server consumes one input tick per server tick, so input tick − server tick stays put
    // until it moves its cursor (a resync): then the reports before say nothing about the new
    // place, and time dilation starts over from there.
    const offset = f.inputTick - f.serverTick;
    if (!Number.isNaN(this.offset) && offset !== this.offset) {
      this.correctionsBefore += this.control.corrections;
      this.control.reset();
      this.counters.cursorMoves++;
    }
    this.offset = offset;
    this.control.report(f.inputTick, f.depth, f.target, this.newest);
    this.counters.corrections = this.correctionsBefore + this.control.corrections;
  }
}

function zeroStats(): InputSenderStats {
  return {
    inputsPushed: 0,
    packets: 0,
    inputBits: 0,
    inputBytes: 0,
    droppedUnacked: 0,
    feedbacks: 0,
    corrections: 0,
    cursorMoves: 0,
  };
}
