/**
 * A game's rules (game.rules(...)) as a room type: each room runs its own GameSimulation on the
 * room's ticks, replicated to its own clients, with the seat kept through a dropped connection
 * (the player and its entity wait `reconnectWindowMs` for its return). startLocalFleet takes them
 * as `games: { tag: rules }`; GameClient joins with `{ room: 'tag' }` or `{ pool }`.
 */
import type { ChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageFactory } from '../channels/message.js';
import { wiringOf } from '../game/define-game.js';
import type { PlayerHandle } from '../game/game-handles.js';
import type { GameRules } from '../game/game-rules.js';
import { GameSimulation } from '../game/game-simulation.js';
import { Room, type RoomClient, type RoomDefaults, type RoomMessage, type RoomType } from './room.js';
import { type RoomChannelSlot, roomChannel } from './room-channels.js';

/** The channels of a process that hosts game rooms, in the order GameClient lists its own. */
export function gameRoomChannels(): (ChannelConfig | RoomChannelSlot)[] {
  return [
    roomChannel('replication', { priority: 1 }),
    roomChannel('inputs', { priority: 2 }),
    { kind: 'reliable-ordered' },
  ];
}

/** A room type running `rules`; its tick rate is the game's. */
export function gameRoom(rules: GameRules): RoomType {
  if (typeof rules !== 'object' || rules === null || typeof rules.hooks !== 'object')
    throw new TypeError('gameRoom: rules must be what game.rules(...) returned');
  const game = rules.game;
  const names = wiringOf('gameRoom', game).messageNames;
  return class GameRoom extends Room {
    simulation: GameSimulation | null = null;
    private readonly players = new Map<RoomClient, PlayerHandle>();

    override onCreate(): void {
      this.tickRate = game.tickRate;
      const simulation = new GameSimulation(rules, {
        maxPlayers: this.slots,
        replicate: (options) => this.replicate(options),
      });
      this.bindChannel('inputs', simulation.inputs.channel);
      this.simulation = simulation;
    }

    override onJoin(client: RoomClient): void {
      const simulation = this.simulation;
      if (simulation !== null) this.players.set(client, simulation.join(client.index));
    }

    override onDrop(client: RoomClient): void {
      const player = this.players.get(client);
      if (player !== undefined) this.simulation?.drop(player);
    }

    override onReconnect(client: RoomClient): void {
      const player = this.players.get(client);
      if (player !== undefined) this.simulation?.move(player, client.index);
    }

    override onLeave(client: RoomClient): void {
      const player = this.players.get(client);
      this.players.delete(client);
      if (player !== undefined) this.simulation?.leave(player);
    }

    override onMessage(client: RoomClient, message: RoomMessage<AnyMessageType>): void {
      const player = this.players.get(client);
      const name = names.get(message.type);
      if (player !== undefined && name !== undefined) this.simulation?.deliver(player, name, message.value);
    }

    override onTick(): void {
      this.simulation?.simulate();
    }
  };
}

/** A game of a fleet: its rules alone, or with the room settings of its type. */
export type FleetGame = GameRules | { rules: GameRules; defaults?: Partial<Omit<RoomDefaults, 'tickRate'>> };

/**
 * What startLocalFleet needs for `games`: each as a room type, the games' protocol id, message
 * factory and channels. The games of one fleet share its protocol id, so they must be one game
 * (several room types of it are fine: `{ duel: rules, ffa: { rules, defaults: { maxClients: 8 } } }`).
 */
export function fleetGames(games: Record<string, FleetGame>): {
  rooms: Record<string, { type: RoomType; defaults?: Partial<RoomDefaults> }>;
  protocolId: bigint;
  factory: MessageFactory<AnyMessageType>;
  channels: (ChannelConfig | RoomChannelSlot)[];
} {
  const entries = Object.entries(games);
  if (entries.length === 0) throw new RangeError('startLocalFleet: games names no game');
  const rooms: Record<string, { type: RoomType; defaults?: Partial<RoomDefaults> }> = {};
  let first: GameRules | null = null;
  for (const [name, entry] of entries) {
    const rules = 'rules' in entry ? entry.rules : entry;
    if (first !== null && rules.game !== first.game)
      throw new RangeError(
        `startLocalFleet: games.${name} is another game than ${first.game.name}: one game per fleet`,
      );
    first ??= rules;
    rooms[name] = {
      type: gameRoom(rules),
      defaults: { ...('rules' in entry ? entry.defaults : {}), tickRate: rules.game.tickRate },
    };
  }
  const game = (first as GameRules).game;
  return {
    rooms,
    protocolId: game.protocolId,
    factory: wiringOf('startLocalFleet', game).factory,
    channels: gameRoomChannels(),
  };
}
