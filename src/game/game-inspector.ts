import type { MessageServer } from '../channels/message-endpoints.js';
import type { GhostHolder, InspectedPacket, InspectOptions } from '../replication/replication-inspector.js';
import type { ReplicationServer } from '../replication/replication-server.js';

/** A watched client's packet (GameInspector.watch): the replication trace and its link. */
export interface GamePacketTrace extends InspectedPacket {
  /** The link's round trip as the server's connection measures it (ms). */
  readonly rttMs: number;
  /** The link's packet loss (0..1). */
  readonly packetLoss: number;
}

/**
 * A game server's network inspector (GameServer.inspector()): per packet of a watched client,
 * which entities were sent and why (verdict, priority, distance), their bits, what waited and
 * why, with the link's RTT and loss; per entity, which clients hold it. It reveals every client's
 * data: serve it only behind the server's `http` hook with your own authentication, never to
 * players, and attach it only while someone looks (a watcher costs the server work per packet
 * of that client; none costs nothing).
 */
export class GameInspector {
  /** @internal Made by GameServer.inspector(). */
  constructor(
    private readonly replication: ReplicationServer,
    private readonly messages: MessageServer,
  ) {}

  /** Watchers attached now, over all clients. */
  get watcherCount(): number {
    return this.replication.inspect().watcherCount;
  }

  /**
   * Calls `onPacket` with each packet's trace for the client in slot `clientIndex` (a player's
   * `index`) until the returned function is called; `{ fields: true }` adds per-field bits.
   */
  watch(
    clientIndex: number,
    onPacket: (packet: GamePacketTrace) => void,
    options: InspectOptions = {},
  ): () => void {
    if (typeof onPacket !== 'function')
      throw new TypeError('GameInspector.watch: onPacket must be a function');
    return this.replication.inspect().watch(
      clientIndex,
      (packet) => {
        const link = this.messages.stats(clientIndex);
        onPacket({ ...packet, rttMs: link.rttMs, packetLoss: link.packetLoss });
      },
      options,
    );
  }

  /** The clients holding (or being sent) the entity's ghost. */
  whoSees(entityId: number): GhostHolder[] {
    return this.replication.inspect().whoSees(entityId);
  }
}
