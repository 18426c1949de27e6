/**
 * A game server's spectators (Node or browser-safe plumbing for GameHost): which connection
 * slots hold spectators, their own bounded pool of seats, and the channels their connections get
 * in place of a player's. A spectator has no player, no entity and no inputs: its one request is
 * what it watches (follow an entity, or a free camera), which moves its interest view.
 * @internal
 */
import type { CustomChannelConfig } from '../channels/config.js';
import type { ReplicationServer } from '../replication/replication-server.js';
import { type ReadRequest, RefusingChannel, SpectatorRequestReceiver } from './spectator-channels.js';

/** The spectators a GameServer takes: `GameServerOptions.spectators`. */
export interface SpectatorOptions {
  /** Spectators at once at most (their own seats: a player never takes one, nor they a player's). */
  max: number;
  /** Spectators one client address may hold at once (default: min(4, max)). */
  maxPerAddress?: number;
  /** Follow / camera requests a spectator may make per second (default 10); more are refused and counted. */
  requestsPerSecond?: number;
  /**
   * Seconds spectators see the world late (default 0: live; at most 3600), for competitive play:
   * the server holds the world's changes and serves spectators a delayed world.
   */
  delaySeconds?: number;
  /** The most bytes of held changes (default 64 MiB); over it the oldest are applied early (the delay shrinks). */
  delayMaxBytes?: number;
}

/** What the server counts of its spectators. */
export interface SpectatorStats {
  /** Spectators connected now. */
  spectators: number;
  /** Spectator connections refused: every spectator seat was taken. */
  spectatorsOverMax: number;
  /** Packets refused because they carried inputs from a spectator's connection. */
  spectatorInputsRefused: number;
  /** Game messages (and commands) from spectators, dropped unread. */
  spectatorMessagesRefused: number;
  /** Follow / camera requests refused: over the rate, an id or a camera out of the world, or from a player. */
  spectatorRequestsRefused: number;
}

/** Client ids of spectator tokens start here (players' count up from 1). */
export const SPECTATOR_CLIENT_ID_BASE = 1n << 62n;

export class SpectatorSeats {
  readonly max: number;
  readonly maxPerAddress: number;
  readonly requestsPerSecond: number;
  readonly delaySeconds: number;
  readonly delayMaxBytes: number;
  private readonly spectating: Uint8Array;
  private readonly list: number[] = [];
  readonly counts: SpectatorStats = {
    spectators: 0,
    spectatorsOverMax: 0,
    spectatorInputsRefused: 0,
    spectatorMessagesRefused: 0,
    spectatorRequestsRefused: 0,
  };

  /** Connection slots in all: the players' and the spectators'. */
  readonly slots: number;

  constructor(where: string, options: SpectatorOptions | undefined, players: number) {
    if (options !== undefined && (typeof options !== 'object' || options === null))
      throw new TypeError(`${where}: spectators must be { max, maxPerAddress?, requestsPerSecond? }`);
    const max = options?.max ?? 0;
    if (!Number.isInteger(max) || max < 0 || max > 4096)
      throw new RangeError(`${where}: spectators.max must be an integer in [0, 4096], got ${max}`);
    this.max = max;
    const perAddress = options?.maxPerAddress ?? Math.max(1, Math.min(4, max));
    if (!Number.isInteger(perAddress) || perAddress < 1 || perAddress > 4096)
      throw new RangeError(
        `${where}: spectators.maxPerAddress must be an integer in [1, 4096], got ${perAddress}`,
      );
    this.maxPerAddress = perAddress;
    const rate = options?.requestsPerSecond ?? 10;
    if (!(Number.isFinite(rate) && rate >= 1 && rate <= 1000))
      throw new RangeError(`${where}: spectators.requestsPerSecond must be in [1, 1000], got ${rate}`);
    this.requestsPerSecond = rate;
    const delay = options?.delaySeconds ?? 0;
    if (!(Number.isFinite(delay) && delay >= 0 && delay <= 3600))
      throw new RangeError(`${where}: spectators.delaySeconds must be in [0, 3600], got ${delay}`);
    this.delaySeconds = delay;
    const bytes = options?.delayMaxBytes ?? 64 * 1024 * 1024;
    if (!(Number.isInteger(bytes) && bytes >= 1024 && bytes <= 2 ** 32))
      throw new RangeError(
        `${where}: spectators.delayMaxBytes must be an integer in [1024, 2^32], got ${bytes}`,
      );
    this.delayMaxBytes = bytes;
    this.slots = players + max;
    this.spectating = new Uint8Array(this.slots);
  }

  /** Whether a token's client id is a spectator's. */
  static isSpectator(clientId: bigint): boolean {
    return clientId >= SPECTATOR_CLIENT_ID_BASE;
  }

  /** Whether slot `index` holds a spectator. */
  watches(index: number): boolean {
    return this.spectating[index] === 1;
  }

  /** The slots of the spectators now. */
  get indices(): readonly number[] {
    return this.list;
  }

  /** A spectator's connection took slot `index`: false when every seat is taken (then disconnect it). */
  join(index: number): boolean {
    if (this.list.length >= this.max) {
      this.counts.spectatorsOverMax++;
      return false;
    }
    this.spectating[index] = 1;
    this.list.push(index);
    this.counts.spectators = this.list.length;
    return true;
  }

  /** The spectator in slot `index` left; false when it held no spectator. */
  leave(index: number): boolean {
    if (this.spectating[index] !== 1) return false;
    this.spectating[index] = 0;
    this.list.splice(this.list.indexOf(index), 1);
    this.counts.spectators = this.list.length;
    return true;
  }

  /**
   * The inputs channel as GameHost serves it: the game's for players, a refusing one for a
   * spectator (`isSpectator(index)` is read at the connection's creation, when its token is known).
   */
  inputsChannel(inputs: CustomChannelConfig, isSpectator: (index: number) => boolean): CustomChannelConfig {
    return {
      ...inputs,
      create: (index) =>
        isSpectator(index)
          ? new RefusingChannel(() => this.counts.spectatorInputsRefused++, 'a spectator sends no inputs')
          : inputs.create(index),
    };
  }

  /** The control channel: a spectator's follow / camera requests move its interest view; a player's are refused. */
  controlChannel(
    replication: ReplicationServer,
    isSpectator: (index: number) => boolean,
    now: () => number,
  ): CustomChannelConfig {
    const refused = () => this.counts.spectatorRequestsRefused++;
    return {
      kind: 'custom',
      priority: 0,
      create: (index) =>
        isSpectator(index)
          ? new SpectatorRequestReceiver(
              replication.world.capacity,
              this.requestsPerSecond,
              now,
              (request) => watch(replication, index, request),
              refused,
            )
          : new RefusingChannel(refused, 'a player sends no spectator requests'),
    };
  }
}

/** Moves a spectator's interest view: following an entity, or centred on its camera. */
function watch(replication: ReplicationServer, index: number, request: ReadRequest): boolean {
  const view = replication.view(index);
  if (view === null) return false;
  if (request.follow >= 0) view.follow = request.follow;
  else {
    view.follow = -1;
    view.setCenter(request.x, request.y);
  }
  return true;
}
