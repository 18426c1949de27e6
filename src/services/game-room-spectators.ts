/**
 * A game room's spectators: the same machinery a GameServer has (src/game/spectator-*.ts) over
 * the room's slots. Its own bounded seats (`spectators.max` per room, beside the players'), a
 * refusing inputs channel and a follow / camera channel for a spectator's connection, and, with
 * `delaySeconds`, a delayed world whose ghost sections spectators are sent instead of the live one's.
 */
import type { CustomChannelConfig } from '../channels/config.js';
import type { GameDefinition } from '../game/define-game.js';
import { wiringOf } from '../game/define-game.js';
import { interestOf, type RelevancyOptions } from '../game/relevancy.js';
import { SpectatorDelay } from '../game/spectator-delay.js';
import { type SpectatorOptions, SpectatorSeats, type SpectatorStats } from '../game/spectator-seats.js';
import type { ReplicationServer } from '../replication/replication-server.js';
import { addressKey } from '../transport/address-key.js';

/** What `gameRoom(rules, options)` and a fleet game's entry take besides the rules. */
export interface GameRoomOptions {
  /**
   * Spectators per room: their own seats, beside the players' (default none). A spectator joins
   * through the backend with `GameClient.connect(game, backendUrl, { room: roomId, spectate: true })`
   * or `{ pool, spectate: true }`; it takes no player seat and counts toward no capacity.
   */
  spectators?: SpectatorOptions;
  /**
   * Relevancy by distance, as GameServer's (default none: every client is sent every entity): each
   * player's view follows its entity, a spectator's its `follow` / `camera`.
   */
  relevancy?: RelevancyOptions;
}

export class GameRoomSpectators {
  readonly seats: SpectatorSeats;
  /** The delayed world spectators are served with `spectators.delaySeconds`, else null. */
  readonly delay: SpectatorDelay | null;
  /** The live world's newest tick the delay has held. */
  private held = 0;
  private readonly started = performance.now();
  /** Spectators per client address (addressKey: an IPv4 address, an IPv6 /64), and each slot's. */
  private readonly perAddress = new Map<string, number>();
  private readonly slotAddress = new Map<number, string>();

  constructor(
    where: string,
    game: GameDefinition,
    options: GameRoomOptions,
    slots: number,
    private readonly live: ReplicationServer,
  ) {
    this.seats = new SpectatorSeats(where, options.spectators, slots);
    const seats = this.seats;
    const wiring = wiringOf(where, game);
    this.delay =
      seats.delaySeconds > 0 && seats.max > 0
        ? new SpectatorDelay(
            live.world,
            wiring.types,
            wiring.events,
            slots,
            Math.round(seats.delaySeconds * game.tickRate),
            seats.delayMaxBytes,
            interestOf(where, options.relevancy).interest,
            { priority: live.channel.priority, budgetBytes: live.channel.budgetBytes },
          )
        : null;
  }

  /** What the room counts of its spectators. */
  stats(): SpectatorStats {
    return { ...this.seats.counts };
  }

  /**
   * A spectator from `host` (its IP address) asks in at `index`: true, or why not (every
   * spectator seat taken, or `maxPerAddress` of them held from its address already).
   */
  join(index: number, host: string): true | string {
    if (this.seats.max === 0) return 'the room takes no spectators';
    const key = addressKey(host);
    const held = this.perAddress.get(key) ?? 0;
    if (held >= this.seats.maxPerAddress) return `spectators from one address (${this.seats.maxPerAddress})`;
    if (!this.seats.join(index)) return `spectators full (${this.seats.max})`;
    this.perAddress.set(key, held + 1);
    this.slotAddress.set(index, key);
    return true;
  }

  leave(index: number): void {
    if (!this.seats.leave(index)) return;
    this.delay?.replication.removeClient(index);
    const key = this.slotAddress.get(index);
    this.slotAddress.delete(index);
    if (key === undefined) return;
    const held = (this.perAddress.get(key) ?? 1) - 1;
    if (held <= 0) this.perAddress.delete(key);
    else this.perAddress.set(key, held);
  }

  /** The ghost section: the live world's for players, the delayed one's for spectators (with a delay). */
  replicationChannel(): CustomChannelConfig {
    const live = this.live.channel;
    const delay = this.delay;
    if (delay === null) return live;
    return {
      ...live,
      create: (index) =>
        this.seats.watches(index) ? delay.replication.channel.create(index) : live.create(index),
    };
  }

  /** The inputs channel: the game's for players, a refusing (and counting) one for spectators. */
  inputsChannel(inputs: CustomChannelConfig): CustomChannelConfig {
    return this.seats.inputsChannel(inputs, (index) => this.seats.watches(index));
  }

  /** The follow / camera channel: a spectator's requests move its view; a player's are refused. */
  controlChannel(): CustomChannelConfig {
    return this.seats.controlChannel(
      this.delay?.replication ?? this.live,
      (index) => this.seats.watches(index),
      () => (performance.now() - this.started) / 1000,
    );
  }

  /**
   * Before the room's tick: the delay holds the live world's last stamped tick (one tick later
   * than a GameServer's, as the room stamps after onTick).
   */
  beforeTick(): void {
    const stamped = this.live.world.serverTick;
    if (this.delay === null || stamped <= this.held) return;
    this.held = stamped;
    this.delay.tick(stamped);
  }
}
