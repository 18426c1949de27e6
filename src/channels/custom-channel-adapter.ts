import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { Channel, CustomChannel, PacketRecord } from './channel.js';
import type { ResolvedChannelConfig } from './config.js';
import type { ReceivedMessage } from './message.js';
import type { ScratchList } from './scratch-list.js';

/** A custom channel's entry seen as a Channel by the connection: it has no messages. */
export class CustomChannelAdapter implements Channel {
  readonly sendQueueDepth = 0;
  readonly receiveQueueDepth = 0;
  readonly dropped = 0;
  readonly resent = 0;

  /** `inner` null: a connection built only to check the configuration (it never packs). */
  constructor(
    readonly config: ResolvedChannelConfig,
    readonly inner: CustomChannel | null,
  ) {}

  send(): number {
    throw new RangeError('a custom channel has no messages: send through the layer that owns it');
  }

  receive(): ReceivedMessage | null {
    throw new RangeError('a custom channel has no messages: read through the layer that owns it');
  }

  select(now: number, budgetBits: number): number {
    return this.inner === null ? 0 : this.inner.select(now, budgetBits);
  }

  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void {
    this.inner?.writeSelected(ws, now, record);
  }

  read(rs: ReadStream, _factory: unknown, staged: ScratchList<unknown>): boolean {
    if (this.inner === null) return false;
    return this.inner.read(rs, staged);
  }

  apply(staged: ScratchList<unknown>): void {
    this.inner?.apply(staged);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    this.inner?.acked(record, start, end);
  }

  close(): void {
    this.inner?.close?.();
  }

  /** Whether the inner channel wants the link's figures (see CustomChannel.link). */
  get observesLink(): boolean {
    return this.inner?.link !== undefined;
  }

  link(rttMs: number, packetLoss: number, now: number): void {
    this.inner?.link?.(rttMs, packetLoss, now);
  }
}
