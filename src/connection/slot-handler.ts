import type { ReliableHandler } from '../packet/reliable-endpoint.js';
import type { ServerOptions } from './server.js';

/**
 * What a server client's ReliableEndpoint calls: one small object per client (its index and the
 * server's callbacks) instead of four closures.
 */
export class SlotHandler implements ReliableHandler<unknown> {
  constructor(
    private readonly index: number,
    private readonly sendPayload: (index: number, data: Uint8Array, length: number) => void,
    private readonly options: ServerOptions,
  ) {}

  transmit(_sequence: number, data: Uint8Array, length: number): void {
    this.sendPayload(this.index, data, length);
  }

  process(_sequence: number, data: Uint8Array, offset: number, length: number): boolean {
    return this.options.onPacket?.(this.index, data, offset, length) !== false;
  }

  onAcked(sequence: number, record: unknown): void {
    this.options.onAcked?.(this.index, sequence, record);
  }

  onLost(sequence: number, record: unknown): void {
    this.options.onLost?.(this.index, sequence, record);
  }
}
