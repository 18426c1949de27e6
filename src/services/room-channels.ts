/**
 * Custom channels a room owns (its ghost section, its input channel) over the one MessageServer of
 * the process. The process lists a slot per name in its channel list; each connection's slot is a
 * RoutedChannel that stays inert until its client joins a room, then passes everything to the
 * channel that room made for that client. A client therefore only ever sees its own room's world.
 */
import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import type { ChannelConfig, CustomChannelConfig } from '../channels/config.js';
import type { ScratchList } from '../channels/scratch-list.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/** A place in the process's channel list for a custom channel each room provides under `name`. */
export interface RoomChannelSlot {
  kind: 'room';
  name: string;
  /** The section's place in the packet (default 1), as CustomChannelConfig's. */
  priority?: number;
  budgetBytes?: number;
}

/** A slot for the room's channel `name` (the ghost section of `Room.replicate` is 'replication'). */
export function roomChannel(
  name: string,
  options: { priority?: number; budgetBytes?: number } = {},
): RoomChannelSlot {
  if (typeof name !== 'string' || name.length === 0)
    throw new RangeError('roomChannel: name must be a non-empty string');
  return { kind: 'room', name, ...options };
}

const ignore = (_error: unknown): void => {};

/**
 * One connection's side of a room channel: inert until attached to the channel its room made.
 * What the room's channel throws (its code, or a layer under it) stops here: the channel is
 * detached and `onFault` told, so one room's fault never leaves the process's MessageServer.update
 * half done for every other client. A fault while writing may leave this client's packet garbled;
 * its room is being disposed and the client disconnected.
 */
export class RoutedChannel implements CustomChannel {
  private inner: CustomChannel | null = null;
  private onFault: (error: unknown) => void = ignore;

  get attached(): boolean {
    return this.inner !== null;
  }

  /** Starts passing this connection's section to `inner` (made by the room's channel for this client). */
  attach(inner: CustomChannel, onFault: (error: unknown) => void): void {
    this.close();
    this.inner = inner;
    this.onFault = onFault;
  }

  select(now: number, budgetBits: number): number {
    if (this.inner === null) return 0;
    try {
      return this.inner.select(now, budgetBits);
    } catch (error) {
      this.fault(error);
      return 0;
    }
  }

  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void {
    try {
      this.inner?.writeSelected(ws, now, record);
    } catch (error) {
      this.fault(error);
    }
  }

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    if (this.inner === null) {
      // Nothing here can parse the entry before the client is in a room: the packet is refused.
      rs.fail('room channel: the client is not in a room yet');
      return false;
    }
    try {
      return this.inner.read(rs, staged);
    } catch (error) {
      this.fault(error);
      rs.fail('room channel: its room failed');
      return false;
    }
  }

  apply(staged: ScratchList<unknown>): void {
    try {
      this.inner?.apply(staged);
    } catch (error) {
      this.fault(error);
    }
  }

  acked(record: PacketRecord, start: number, end: number): void {
    try {
      this.inner?.acked(record, start, end);
    } catch (error) {
      this.fault(error);
    }
  }

  close(): void {
    const inner = this.inner;
    this.inner = null;
    try {
      inner?.close?.();
    } catch (error) {
      this.onFault(error);
    }
  }

  link(rttMs: number, packetLoss: number, now: number): void {
    try {
      this.inner?.link?.(rttMs, packetLoss, now);
    } catch (error) {
      this.fault(error);
    }
  }

  /** Detaches the failed channel (closed if it can be) and tells the room's server, once. */
  private fault(error: unknown): void {
    const { inner, onFault } = this;
    this.inner = null;
    this.onFault = ignore;
    try {
      inner?.close?.();
    } catch {
      // the channel failed already: its room is told once
    }
    onFault(error);
  }
}

/**
 * The process's channel list with each slot made a custom channel whose connections are
 * RoutedChannels, kept per client slot and name in `routes` for the server to attach.
 */
export function routeChannels(
  channels: readonly (ChannelConfig | RoomChannelSlot)[],
  routes: Map<string, (RoutedChannel | null)[]>,
  slots: number,
): ChannelConfig[] {
  return channels.map((channel) => {
    if (channel.kind !== 'room') return channel;
    if (routes.has(channel.name))
      throw new RangeError(`RoomServer: room channel ${channel.name} is listed twice`);
    const perSlot: (RoutedChannel | null)[] = new Array(slots).fill(null);
    routes.set(channel.name, perSlot);
    const config: CustomChannelConfig = {
      kind: 'custom',
      priority: channel.priority ?? 1,
      ...(channel.budgetBytes === undefined ? {} : { budgetBytes: channel.budgetBytes }),
      create: (clientIndex) => {
        const routed = new RoutedChannel();
        perSlot[clientIndex] = routed;
        return routed;
      },
    };
    return config;
  });
}

/**
 * Gives slot `index` its room's channel of each routed name (a player's or a spectator's slot); a
 * channel whose creation or use throws is told to `fail`, naming it.
 */
export function attachRoomChannels(
  routes: ReadonlyMap<string, readonly (RoutedChannel | null)[]>,
  channels: ReadonlyMap<string, CustomChannelConfig>,
  index: number,
  fail: (where: string, error: unknown) => void,
): void {
  for (const [name, perSlot] of routes) {
    const config = channels.get(name);
    const routed = perSlot[index];
    if (config === undefined || routed === null) continue;
    const where = `channel ${name}`;
    try {
      routed.attach(config.create(index), (error) => fail(where, error));
    } catch (error) {
      fail(where, error);
    }
  }
}
