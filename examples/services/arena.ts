// What the services examples' servers and clients share: the protocol id, the message, the entity
// type and the room (one authoritative world per room, an avatar per seated player).
import { defineEntity, type Entity, ServerWorld } from 'ghostwire/replication';
import { defineMessage, MessageFactory } from 'ghostwire/channels';
import { t } from 'ghostwire';
import { Room, type RoomClient } from 'ghostwire/services';

export const PROTOCOL_ID = 0x6172_656e_61n;
export const Avatar = defineEntity('avatar', t.object({ name: t.string(32), score: t.uint16() }));
export const types = [Avatar];
/** Client → room: add to my score. */
export const Score = defineMessage('score', t.object({ add: t.int(1, 10) }));
export const factory = new MessageFactory([Score]);

// #region docs
export class Arena extends Room<typeof Score> {
  readonly world = new ServerWorld({ types, capacity: 64 });
  private readonly avatars = new Map<string, Entity<{ name: string; score: number }>>();

  override onCreate(): void {
    this.replicate({ world: this.world }); // each client mirrors this world (the default channel)
  }

  override onJoin(client: RoomClient, options: Readonly<Record<string, unknown>>): void {
    // Who the backend's verifier said this is (the guest verifier: { name }), else the join options.
    const given = client.auth.name ?? options.name;
    const name = typeof given === 'string' ? given.slice(0, 32) : client.userId.slice(0, 32);
    this.avatars.set(client.seatId, this.world.create(Avatar, { name, score: 0 }));
  }

  override onMessage(client: RoomClient, message: { value: unknown }): void {
    const avatar = this.avatars.get(client.seatId);
    if (avatar === undefined) return;
    const value = this.world.get(avatar);
    const add = (message.value as { add: number }).add;
    this.world.set(avatar, { ...value, score: Math.min(65535, value.score + add) });
  }

  override onLeave(client: RoomClient): void {
    const avatar = this.avatars.get(client.seatId);
    if (avatar !== undefined) this.world.destroy(avatar);
    this.avatars.delete(client.seatId);
  }
}
// #endregion
