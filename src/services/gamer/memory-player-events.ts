/** Player events within one process: the embedded default (one backend, nothing installed). */
import type { GamerEvent, PlayerEvents, Unsubscribe } from './player-events.js';

export class MemoryPlayerEvents implements PlayerEvents {
  private readonly listeners = new Map<string, Set<(event: GamerEvent) => void>>();

  async publish(accountId: string, event: GamerEvent): Promise<void> {
    const set = this.listeners.get(accountId);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        // one stream's failure is its own: the others still get the event
      }
    }
  }

  async publishMany(accountIds: readonly string[], event: GamerEvent): Promise<void> {
    for (const accountId of accountIds) await this.publish(accountId, event);
  }

  subscribe(accountId: string, listener: (event: GamerEvent) => void): Unsubscribe {
    let set = this.listeners.get(accountId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(accountId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(accountId);
      if (current === undefined) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(accountId);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
