/**
 * The server side of commands: the server never trusts a client's state. A received command
 * reaches its handler only when it decoded (the channel refuses a packet that does not), its
 * client is within its rate (a token bucket per client), it is a command with a handler, the
 * entity it names is alive with that generation and owned by the client, and the game's
 * validator accepts it. Anything else is refused, counted by reason, and changes nothing.
 */
import type { ReceivedMessage } from '../channels/message.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { checkNonNegative } from './check-argument.js';
import { type AnyCommandType, type CommandMessage, type CommandType, isCommandType } from './command.js';
import type { AnyEntityType, EntityValue } from './entity-type.js';
import type { Entity, ServerWorld } from './server-world.js';

/** Why a command was refused. */
export type CommandRefusal = 'invalid' | 'unowned' | 'missing-entity' | 'over-rate' | 'rejected-by-validator';

/** What `dispatch` did with a message: delivered, refused (why), or not a command at all. */
export type CommandOutcome = 'delivered' | CommandRefusal | 'not-a-command';

export interface CommandStats {
  delivered: number;
  invalid: number;
  unowned: number;
  missingEntity: number;
  overRate: number;
  rejectedByValidator: number;
}

/** The entity a command of type E acts on: its server handle, or undefined for a global command. */
export type CommandEntity<E> = E extends AnyEntityType ? Entity<EntityValue<E>> : undefined;

export interface CommandHandler<T, E extends AnyEntityType | undefined> {
  /** Accepts (true) or refuses (false, or a reason) a command that passed every other check. */
  validate?(clientIndex: number, command: T, entity: CommandEntity<E>): boolean | string;
  /** Acts on an accepted command (the only place a command may change the world). */
  run(clientIndex: number, command: T, entity: CommandEntity<E>): void;
}

export interface CommandRouterOptions {
  world: ServerWorld;
  /** Client indices are in [0, maxClients) (default 256, as MessageServer's). */
  maxClients?: number;
  /** Commands per second each client may send on average (default 60). */
  ratePerSecond?: number;
  /** The most commands a client may send at once (default 10). */
  burst?: number;
  /** Called for every refused command (to log, or to kick a client that keeps trying). */
  onRefused?(clientIndex: number, reason: CommandRefusal, detail: string): void;
}

/** A burst of at least one command (a smaller bucket could never pass one). */
function checkBurst(where: string, burst: number): number {
  if (burst >= 1 && burst - burst === 0) return burst;
  throw new RangeError(`${where}: burst must be a finite number >= 1, got ${burst}`);
}

interface Route {
  // biome-ignore lint/suspicious/noExplicitAny: handlers of heterogeneous command types
  handler: CommandHandler<any, any>;
  target: AnyEntityType | undefined;
}

/**
 * Routes received commands to handlers: `router.on(Move, { validate, run })`, then per client
 * and command channel `for (let m; (m = server.receive(c, ch)); ) router.dispatch(c, m, now)`.
 * Other messages on the channel come back as 'not-a-command' for the game to handle.
 */
export class CommandRouter {
  readonly world: ServerWorld;
  readonly maxClients: number;
  private readonly counters: CommandStats = {
    delivered: 0,
    invalid: 0,
    unowned: 0,
    missingEntity: 0,
    overRate: 0,
    rejectedByValidator: 0,
  };
  private readonly routes = new Map<AnyCommandType, Route>();
  private readonly tokens: Float64Array;
  private readonly filled: Float64Array;
  private rate: number;
  private burstSize: number;
  private last = NO_TIME_YET;
  private readonly onRefused?: (clientIndex: number, reason: CommandRefusal, detail: string) => void;

  constructor(options: CommandRouterOptions) {
    this.world = options.world;
    const maxClients = options.maxClients ?? 256;
    if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 65536)
      throw new RangeError(`CommandRouter: maxClients must be an integer in [1, 65536], got ${maxClients}`);
    this.maxClients = maxClients;
    this.rate = checkNonNegative('CommandRouter', 'ratePerSecond', options.ratePerSecond ?? 60);
    this.burstSize = checkBurst('CommandRouter', options.burst ?? 10);
    this.tokens = new Float64Array(maxClients).fill(this.burstSize);
    this.filled = new Float64Array(maxClients).fill(Number.NaN);
    this.onRefused = options.onRefused;
  }

  /** What the router has counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<CommandStats> {
    return this.counters;
  }

  get ratePerSecond(): number {
    return this.rate;
  }

  get burst(): number {
    return this.burstSize;
  }

  /** Changes every client's rate limit (see take for how buckets carry over). */
  setRate(ratePerSecond: number, burst: number): void {
    this.rate = checkNonNegative('CommandRouter.setRate', 'ratePerSecond', ratePerSecond);
    this.burstSize = checkBurst('CommandRouter.setRate', burst);
    // A bucket not used yet starts full at the new burst; a used one keeps its tokens, capped.
    for (let i = 0; i < this.maxClients; i++)
      this.tokens[i] = Number.isNaN(this.filled[i]) ? burst : Math.min(this.tokens[i], burst);
  }

  /** Sets the handler of a command type (one per type; a second `on` replaces it). */
  on<T, N extends string, E extends AnyEntityType | undefined>(
    command: CommandType<T, N, E>,
    handler: CommandHandler<T, E>,
  ): this {
    if (!isCommandType(command))
      throw new TypeError('CommandRouter.on: command must be made by defineCommand');
    if (handler === null || typeof handler !== 'object' || typeof handler.run !== 'function')
      throw new TypeError(`CommandRouter.on(${command.name}): handler needs a run function`);
    if (handler.validate !== undefined && typeof handler.validate !== 'function')
      throw new TypeError(`CommandRouter.on(${command.name}): validate must be a function`);
    if (command.target !== undefined && !this.world.types.includes(command.target))
      throw new RangeError(
        `CommandRouter.on(${command.name}): its target type ${command.target.name} is not in the world's types`,
      );
    this.routes.set(command as AnyCommandType, { handler, target: command.target });
    return this;
  }

  /** Forgets a client (its connection ended): ends its ownerships and refills its bucket. */
  removeClient(clientIndex: number): void {
    if (!Number.isInteger(clientIndex) || clientIndex < 0 || clientIndex >= this.maxClients)
      throw new RangeError(`CommandRouter.removeClient: clientIndex must be in [0, ${this.maxClients - 1}]`);
    this.world.disown(clientIndex);
    this.tokens[clientIndex] = this.burstSize;
    this.filled[clientIndex] = Number.NaN;
  }

  /**
   * Checks one received message from a client and runs its handler if every check passes; `now`
   * is the time given to MessageServer.update (seconds, never going back). Never throws for
   * what a client sent (a handler or validator that throws is the game's bug and propagates).
   */
  dispatch(clientIndex: number, message: ReceivedMessage, now: number): CommandOutcome {
    if (!Number.isInteger(clientIndex) || clientIndex < 0 || clientIndex >= this.maxClients)
      throw new RangeError(`CommandRouter.dispatch: clientIndex must be in [0, ${this.maxClients - 1}]`);
    this.last = checkTime('CommandRouter.dispatch', now, this.last);
    const type = message?.type;
    if (!isCommandType(type)) return 'not-a-command';
    if (!this.take(clientIndex, now)) return this.refuse(clientIndex, 'over-rate', type.name);
    const route = this.routes.get(type);
    if (route === undefined) return this.refuse(clientIndex, 'invalid', `${type.name} has no handler`);
    const { value, target } = message.value as CommandMessage<unknown>;
    let entity: Entity<unknown> | undefined;
    if (route.target !== undefined) {
      const world = this.world;
      if (target === null || target.id >= world.capacity)
        return this.refuse(clientIndex, 'invalid', `${type.name} names no entity of this world`);
      const live = world.entity(target.id);
      if (live === null || live.generation !== target.generation || live.type !== route.target)
        return this.refuse(
          clientIndex,
          'missing-entity',
          `${type.name}: no ${route.target.name} ${target.id} (generation ${target.generation})`,
        );
      if (!world.ownsId(clientIndex, target.id))
        return this.refuse(clientIndex, 'unowned', `${type.name}: ${route.target.name} ${target.id}`);
      entity = live;
    }
    const verdict = route.handler.validate?.(clientIndex, value, entity) ?? true;
    if (verdict !== true)
      return this.refuse(
        clientIndex,
        'rejected-by-validator',
        typeof verdict === 'string' ? verdict : `${type.name} refused by its validator`,
      );
    this.counters.delivered++;
    route.handler.run(clientIndex, value, entity);
    return 'delivered';
  }

  /** Takes one token from a client's bucket, refilled for the time since its last command. */
  private take(clientIndex: number, now: number): boolean {
    const since = this.filled[clientIndex];
    let tokens = this.tokens[clientIndex];
    if (!Number.isNaN(since)) tokens = Math.min(this.burstSize, tokens + (now - since) * this.rate);
    this.filled[clientIndex] = now;
    if (tokens < 1) {
      this.tokens[clientIndex] = tokens;
      return false;
    }
    this.tokens[clientIndex] = tokens - 1;
    return true;
  }

  private refuse(clientIndex: number, reason: CommandRefusal, detail: string): CommandRefusal {
    const stats = this.counters;
    if (reason === 'invalid') stats.invalid++;
    else if (reason === 'unowned') stats.unowned++;
    else if (reason === 'missing-entity') stats.missingEntity++;
    else if (reason === 'over-rate') stats.overRate++;
    else stats.rejectedByValidator++;
    this.onRefused?.(clientIndex, reason, detail);
    return reason;
  }
}
