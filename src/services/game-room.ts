/**
 * A game's rules (game.rules(...)) as a room type: each room runs its own GameSimulation on the
 * room's ticks, replicated to its own clients, with the seat kept through a dropped connection
 * (the player and its entity wait `reconnectWindowMs` for its return). startLocalFleet takes them
 * as `games: { tag: rules }`; GameClient joins with `{ room: 'tag' }` or `{ pool }`. With
 * `spectators`, a room also hosts spectators (game-room-spectators.ts), who join through the
 * backend with `{ room: roomId, spectate: true }` or `{ pool, spectate: true }`.
 */
import type { ChannelConfig } from '../channels/config.js';
import type { AnyMessageType, MessageFactory } from '../channels/message.js';
import { wiringOf } from '../game/define-game.js';
import type { PlayerHandle } from '../game/game-handles.js';
import type { GameRules } from '../game/game-rules.js';
import { GameSimulation } from '../game/game-simulation.js';
import { interestOf } from '../game/relevancy.js';
import type { SpectatorStats } from '../game/spectator-seats.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { parseAddress } from '../transport/address.js';
import { type GameRoomOptions, GameRoomSpectators } from './game-room-spectators.js';
import { Room, type RoomClient, type RoomDefaults, type RoomMessage, type RoomType } from './room.js';
import { type RoomChannelSlot, roomChannel } from './room-channels.js';

/** The channels of a process that hosts game rooms, in the order GameClient lists its own. */
export function gameRoomChannels(): (ChannelConfig | RoomChannelSlot)[] {
  return [
    roomChannel('replication', { priority: 1 }),
    roomChannel('inputs', { priority: 2 }),
    { kind: 'reliable-ordered' },
    // A spectator's follow / camera requests (GameClient's channel 3; a player's never writes).
    roomChannel('spectate', { priority: 0 }),
  ];
}

/** What a game room counts of its spectators (`spectatorStats(room)`); null for a room of another kind. */
export function spectatorStats(room: Room): SpectatorStats | null {
  const spectators = (room as { spectators?: unknown }).spectators;
  return spectators instanceof GameRoomSpectators ? spectators.stats() : null;
}

/** A room type running `rules`; its tick rate is the game's. */
export function gameRoom(rules: GameRules, options: GameRoomOptions = {}): RoomType {
  const where = 'gameRoom';
  if (typeof rules !== 'object' || rules === null || typeof rules.hooks !== 'object')
    throw new TypeError(`${where}: rules must be what game.rules(...) returned`);
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${where}: options must be { spectators?, relevancy? }`);
  const game = rules.game;
  const names = wiringOf(where, game).messageNames;
  const interest = interestOf(where, options.relevancy); // checked here: a bad one fails at once
  return class GameRoom extends Room {
    simulation: GameSimulation | null = null;
    spectators: GameRoomSpectators | null = null;
    private readonly players = new Map<RoomClient, PlayerHandle>();

    override onCreate(): void {
      this.tickRate = game.tickRate;
      const simulation = new GameSimulation(rules, {
        maxPlayers: this.slots,
        replicate: (replicate) => {
          const replication = new ReplicationServer({ ...replicate, maxClients: this.slots, ...interest });
          this.replications.push(replication); // stamped after each onTick
          return replication;
        },
      });
      const spectators = new GameRoomSpectators(where, game, options, this.slots, simulation.replication);
      this.bindChannel('replication', spectators.replicationChannel());
      this.bindChannel('inputs', spectators.inputsChannel(simulation.inputs.channel));
      this.bindChannel('spectate', spectators.controlChannel());
      this.simulation = simulation;
      this.spectators = spectators;
    }

    override onSpectatorJoin(index: number): boolean | string {
      const address = this.host?.messages.server.clientAddress(index) ?? '';
      return (
        this.spectators?.join(index, parseAddress(address)?.host ?? address) ?? 'the room is not created'
      );
    }

    override onSpectatorLeave(index: number): void {
      this.spectators?.leave(index);
    }

    override onJoin(client: RoomClient): void {
      const simulation = this.simulation;
      if (simulation !== null) this.players.set(client, simulation.join(client.index, client.userId));
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
      this.spectators?.beforeTick();
      const simulation = this.simulation;
      if (simulation === null) return;
      simulation.simulate();
      if (options.relevancy !== undefined) followPlayers(simulation);
    }
  };
}

/** Each player's interest view follows its entity (O(players) a tick), as on a GameServer. */
function followPlayers(simulation: GameSimulation): void {
  for (const player of simulation.players) {
    const entity = player.entity;
    if (player.index < 0 || entity === null || !entity.alive) continue;
    const view = simulation.replication.view(player.index);
    if (view !== null && view.follow !== entity.id) view.follow = entity.id;
  }
}

/**
 * A game of a fleet: its rules alone, or with the room settings of its type and its game-room
 * options (spectators, relevancy).
 */
export type FleetGame =
  | GameRules
  | ({ rules: GameRules; defaults?: Partial<Omit<RoomDefaults, 'tickRate'>> } & GameRoomOptions);

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
      type: 'rules' in entry ? gameRoom(rules, { ...entry }) : gameRoom(rules),
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
