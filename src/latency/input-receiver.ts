import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import { checkIndex } from '../channels/check-index.js';
import type { CustomChannelConfig } from '../channels/config.js';
import type { ScratchList } from '../channels/scratch-list.js';
import { checkPositive } from '../replication/check-argument.js';
import { type Codec, compile } from '../schema/codec.js';
import type { Schema } from '../schema/schema.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { InputBuffer, type InputBufferStats, NOT_NEW } from './input-buffer.js';
import { checkInputSchema, InputCopier } from './input-copier.js';
import {
  feedbackBits,
  MAX_INPUTS_PER_PACKET,
  MAX_TARGET,
  MAX_TICK,
  readCount,
  readTick,
  readView,
  viewTickOf,
  withinReach,
  writeFeedback,
} from './input-wire.js';

export interface InputReceiverOptions<T> {
  /** The input's schema (the clients' InputSender lists the same). */
  schema: Schema<T>;
  /** The server's ticks per second (the flood limit's time base). */
  tickRate: number;
  /** Client indices are in [0, maxClients) (default 256, as MessageServer's). */
  maxClients?: number;
  /** The buffer depth time dilation aims at, ticks (default 2, at most 15): the least, when it adapts. */
  bufferTicks?: number;
  /**
   * The most the target may grow to (default 8; bufferTicks: fixed). A tick whose input has not
   * arrived raises the client's target by one; 5 s without one, each with a tick to spare, lower
   * it by one. Ignored over the first 2 s of a client's inputs (its clock is being placed).
   */
  maxBufferTicks?: number;
  /**
   * Input ticks accepted ahead of the consumption cursor (default 32); older than the cursor they
   * are late. A client wholly beyond the window by more than it has its cursor moved (a resync).
   */
  windowTicks?: number;
  /** New inputs a client may send per second (default 2 × tickRate); the rest are dropped. */
  maxInputsPerSecond?: number;
  /**
   * The game's check of an input: true, or why it is refused. A refused input is replaced by the
   * previous one and reported through onRefusal.
   */
  validate?: (input: T, client: number) => true | string;
  onRefusal?: (client: number, reason: string, tick: number) => void;
  /**
   * @internal Whether `take` reports the input it consumed as applied at the tick it was given
   * (default true). A zone gateway reports at its stamps instead (`report`): a state it stamps
   * may come from an earlier zone tick than the stamp.
   */
  reportAtTake?: boolean;
  /** The report entry's place in the packet (default 2). */
  priority?: number;
}

/**
 * The server side of the input channel: one input buffer per connection (put `channel` in
 * MessageServer's channels at the index of the clients' InputSender.channel). Each server tick,
 * `take(client, serverTick)` consumes the client's next input; every packet then tells the
 * client which input tick was applied at which server tick, and how deep its buffer is (time
 * dilation). Hostile entries are refused with a reason and change nothing.
 */
export class InputReceiver<T> {
  readonly channel: CustomChannelConfig;
  readonly maxClients: number;
  readonly bufferTicks: number;
  readonly maxBufferTicks: number;
  readonly windowTicks: number;
  readonly maxInputsPerSecond: number;
  /** @internal */
  readonly codec: Codec<T>;
  /** @internal */
  readonly copier: InputCopier<T>;
  /** @internal: the inputs of the packet being read (one packet at a time). */
  readonly scratch: (T | undefined)[] = new Array(MAX_INPUTS_PER_PACKET);
  /** @internal: per input of the packet, the index of the scratch value it equals. */
  readonly source = new Int16Array(MAX_INPUTS_PER_PACKET);
  /** @internal */
  readonly views = new Float64Array(MAX_INPUTS_PER_PACKET);
  /** @internal: the newest server tick a take was given (0 before any): input ticks are judged by it. */
  serverTick = 0;
  private readonly endpoints: (InputEndpoint<T> | null)[];
  private readonly tokensPerTake: number;
  private readonly warmupTakes: number;
  private readonly quietTakes: number;
  private readonly options: InputReceiverOptions<T>;

  constructor(options: InputReceiverOptions<T>) {
    this.options = options;
    this.codec = compile(options.schema);
    checkInputSchema('InputReceiver', this.codec);
    this.copier = new InputCopier(this.codec);
    const tickRate = checkPositive('InputReceiver', 'tickRate', options.tickRate);
    this.maxClients = integer('maxClients', options.maxClients ?? 256, 1, 65536);
    this.bufferTicks = integer('bufferTicks', options.bufferTicks ?? 2, 0, MAX_TARGET);
    this.maxBufferTicks = integer(
      'maxBufferTicks',
      options.maxBufferTicks ?? Math.max(8, this.bufferTicks),
      this.bufferTicks,
      MAX_TARGET,
    );
    this.windowTicks = integer('windowTicks', options.windowTicks ?? 32, this.bufferTicks + 1, 1024);
    this.maxInputsPerSecond = checkPositive(
      'InputReceiver',
      'maxInputsPerSecond',
      options.maxInputsPerSecond ?? 2 * tickRate,
    );
    this.tokensPerTake = this.maxInputsPerSecond / tickRate;
    this.warmupTakes = Math.ceil(2 * tickRate);
    this.quietTakes = Math.ceil(5 * tickRate);
    this.endpoints = new Array(this.maxClients).fill(null);
    this.channel = {
      kind: 'custom',
      priority: options.priority ?? 2,
      create: (client) => {
        checkIndex('InputReceiver', 'clientIndex', client, this.maxClients);
        const buffer = new InputBuffer<T>(
          this.windowTicks,
          this.tokensPerTake,
          this.bufferTicks,
          this.maxBufferTicks,
          this.warmupTakes,
          this.quietTakes,
        );
        buffer.reportAtTake = options.reportAtTake ?? true;
        const endpoint = new InputEndpoint(this, client, buffer);
        this.endpoints[client] = endpoint;
        return endpoint;
      },
    };
  }

  /**
   * The client's input for `serverTick` (the tick the state is about to be stamped with): the
   * input of its next input tick, or the last one repeated when that has not arrived (starved).
   * Null before its first input, while the first waits for `bufferTicks` more to arrive (at most
   * `bufferTicks` takes: the client's lead is the buffer), or when it is not connected. The value
   * is the receiver's own, valid until the next take for this client.
   */
  take(client: number, serverTick: number): T | null {
    const endpoint = this.endpoints[checkIndex('InputReceiver.take', 'client', client, this.maxClients)];
    if (!Number.isInteger(serverTick) || serverTick < 0 || serverTick > MAX_TICK)
      throw new RangeError(
        `InputReceiver.take: serverTick must be an integer in [0, ${MAX_TICK}], got ${serverTick}`,
      );
    if (serverTick > this.serverTick) this.serverTick = serverTick;
    return endpoint === null ? null : endpoint.buffer.take(serverTick);
  }

  /**
   * @internal Tells the client that the state stamped `serverTick` is the one after its input
   * `inputTick` (only with `reportAtTake: false`). Server ticks only move forward: an older one
   * than the last reported is ignored.
   */
  report(client: number, serverTick: number, inputTick: number): void {
    checkReportTick('serverTick', serverTick);
    checkReportTick('inputTick', inputTick);
    const buffer = this.endpoint('report', client)?.buffer;
    if (buffer === undefined || serverTick <= buffer.feedbackServerTick) return;
    buffer.feedbackServerTick = serverTick;
    buffer.feedbackInputTick = inputTick;
  }

  /** The input tick the client's last take consumed (-1 before any or when not connected). */
  lastInputTick(client: number): number {
    return this.endpoint('lastInputTick', client)?.buffer.lastInputTick ?? -1;
  }

  /** The render tick the client showed remote entities at for that input (NaN if unknown). */
  viewTick(client: number): number {
    return this.endpoint('viewTick', client)?.buffer.viewTick ?? Number.NaN;
  }

  /** The client's buffer counters (null when it is not connected). */
  stats(client: number): Readonly<InputBufferStats> | null {
    return this.endpoint('stats', client)?.buffer.stats ?? null;
  }

  private endpoint(where: string, client: number): InputEndpoint<T> | null {
    return this.endpoints[checkIndex(`InputReceiver.${where}`, 'client', client, this.maxClients)];
  }

  /** @internal: the game's verdict on an input (a throwing validator counts as a refusal). */
  check(input: T, client: number, tick: number): boolean {
    const validate = this.options.validate;
    if (validate === undefined) return true;
    let verdict: true | string;
    try {
      verdict = validate(input, client);
    } catch (error) {
      verdict = `validator threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (verdict === true) return true;
    this.options.onRefusal?.(client, typeof verdict === 'string' ? verdict : 'refused', tick);
    return false;
  }

  /** @internal */
  closed(endpoint: InputEndpoint<T>): void {
    if (this.endpoints[endpoint.client] === endpoint) this.endpoints[endpoint.client] = null;
  }
}

/** A tick given to report (called per player per stamp: no allocation on the way). */
function checkReportTick(name: string, tick: number): void {
  if (!Number.isInteger(tick) || tick < 0 || tick > MAX_TICK)
    throw new RangeError(`InputReceiver.report: ${name} must be an integer in [0, ${MAX_TICK}], got ${tick}`);
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`InputReceiver: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

/** One connection's input channel on the server. */
class InputEndpoint<T> implements CustomChannel {
  /** The newest input tick read (relative ticks are read against it; -1 before any). */
  private reference = -1;
  private first = 0;
  private count = 0;
  /** The newest server tick the client is known to have received a report of. */
  private ackedServerTick = -1;
  private writtenServerTick = -1;

  constructor(
    private readonly receiver: InputReceiver<T>,
    readonly client: number,
    readonly buffer: InputBuffer<T>,
  ) {}

  select(_now: number, _budgetBits: number): number {
    const b = this.buffer;
    if (b.feedbackServerTick < 0 || b.feedbackServerTick === this.writtenServerTick) return 0;
    return feedbackBits(b.feedbackServerTick, this.ackedServerTick, b.feedbackInputTick);
  }

  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    const b = this.buffer;
    writeFeedback(
      ws,
      b.feedbackServerTick,
      this.ackedServerTick,
      b.feedbackInputTick,
      b.stats.depth,
      b.stats.target,
    );
    this.writtenServerTick = b.feedbackServerTick;
    record.push(b.feedbackServerTick);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k < end; k++) if (record[k] > this.ackedServerTick) this.ackedServerTick = record[k];
  }

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    const r = this.receiver;
    const last = readTick(rs, this.reference);
    const count = readCount(rs);
    if (!rs.ok) return false;
    if (count > last + 1) {
      rs.fail('inputs before tick 0');
      return false;
    }
    // Both ends of the run, so every tick of it is within reach (docs/latency.md, "Tick rules").
    if (!withinReach(last, r.serverTick) || !withinReach(last - count + 1, r.serverTick)) {
      rs.fail('input tick far from the server tick');
      return false;
    }
    const scratch = r.scratch;
    let view = -1;
    let source = 0;
    for (let i = 0; i < count; i++) {
      if (i === 0 || !rs.bool(false)) {
        source = i;
        const value = r.codec.read(rs, scratch[i]);
        if (value === null) return false;
        scratch[i] = value;
      }
      r.source[i] = source;
      view = readView(rs, view);
      if (view < 0) return false;
      r.views[i] = view;
    }
    if (!rs.ok) return false;
    this.first = last - count + 1;
    this.count = count;
    staged.push(this);
    return true;
  }

  apply(): void {
    const r = this.receiver;
    const b = this.buffer;
    const first = this.first;
    const last = first + this.count - 1;
    if (last > this.reference) this.reference = last;
    b.beginPacket(first, last);
    for (let i = 0; i < this.count; i++) {
      const tick = first + i;
      const slot = b.admit(tick);
      if (slot === NOT_NEW) continue;
      const value = r.copier.copy(r.scratch[r.source[i]] as T, b.target(slot));
      b.values[slot] = value;
      b.fill(slot, tick, viewTickOf(tick, r.views[i]), !r.check(value, this.client, tick));
    }
  }

  close(): void {
    this.receiver.closed(this);
  }
}
