import type { Address } from '../transport/address.js';
import { DatagramQueue, TransportCounters } from '../transport/transport.js';

/**
 * What Server.receiveHandshakes leaves for the next update: per transport, the datagrams from
 * connected clients it took off the transport, in arrival order; and the budget all the calls
 * between two updates share, so a flood between updates costs no more than one at an update.
 */
export class DeferredDatagrams {
  private queues: DatagramQueue[] | null = null;
  private readonly counters = new TransportCounters();
  /** Datagrams the calls between two updates may still take. */
  budget = 0;

  /** Made at the first receiveHandshakes: room for two updates' worth per transport; a fuller queue drops, counted. */
  prepare(transports: number, maxPerUpdate: number): void {
    this.queues ??= Array.from(
      { length: transports },
      () => new DatagramQueue(2 * maxPerUpdate, this.counters),
    );
  }

  push(transport: number, from: Address, data: Uint8Array): void {
    this.queues?.[transport].push(from, data);
  }

  /** Hands `transport`'s kept datagrams to `handler`, oldest first. */
  drain(transport: number, handler: (from: Address, data: Uint8Array) => void): void {
    const queue = this.queues?.[transport];
    if (queue !== undefined) queue.drain(handler, queue.capacity, 'Server.update');
  }

  clear(): void {
    if (this.queues !== null) for (const queue of this.queues) queue.clear();
  }

  /** Datagrams that found their queue full. */
  get dropped(): number {
    return this.counters.dropped;
  }
}
