/**
 * The client side of a game (browser-safe): connects, predicts its own entity with the game's step,
 * interpolates the others, and gives the view to draw. Call `update(input)` once a frame.
 *
 *   const client = await GameClient.connect(tag, 'http://localhost:8080');
 *   client.on('tagged', (e) => console.log(e.tagger, 'tagged', e.target));
 *   setInterval(() => { client.update(readKeys()); draw(client.me, client.entities); }, 1000 / 60);
 */
import type { ChannelConfig } from '../channels/config.js';
import { Block } from '../channels/message.js';
import { MessageClient } from '../channels/message-endpoints.js';
import { ClientState, describeClientState } from '../connection/client.js';
import type { InputSender } from '../latency/input-sender.js';
import { LatencyClient } from '../latency/latency-client.js';
import { PredictedWorld, type PredictedWorldStats } from '../latency/predicted-world.js';
import { Predictor } from '../latency/predictor.js';
import { ReplayPlayer } from '../latency/replay-player.js';
import { ClientMirror } from '../replication/client-mirror.js';
import type { ReceivedEvent } from '../replication/event.js';
import { type Codec, compile } from '../schema/codec.js';
import { SchemaValueError } from '../schema/interpret.js';
import type { DatagramTransport } from '../transport/transport.js';
import {
  type GameClientOptions,
  type GameClientToken,
  type Opened,
  openConnection,
} from './client-connect.js';
import { type GameDefinition, type GameWiring, wiringOf } from './define-game.js';
import { EntityView, type ShownEntity } from './entity-view.js';
import type { ClientStateOf, EventOf, InputOf, MessageOf } from './game-types.js';
import { KillcamInbox } from './killcam-inbox.js';
import { fieldOf, schemaError } from './schema-error.js';
import { SpawnPredictor } from './spawn-predictor.js';
import { MAX_CAMERA_COORDINATE, type SpectatorRequestSender } from './spectator-channels.js';
import { spectatorChannels } from './spectator-client.js';

/** connecting: the handshake (or a reconnection) is under way · connected · disconnected: over (see statusReason). */
export type GameClientStatus = 'connecting' | 'connected' | 'disconnected';

/** The layers under a GameClient, for what the game API does not cover. */
export interface GameClientExpert<S, I> {
  readonly messages: MessageClient;
  readonly mirror: ClientMirror;
  readonly inputs: InputSender<I>;
  readonly latency: LatencyClient<S, I>;
  readonly predictor: Predictor<S, I>;
  /** The entities predicted besides the player's (its spawns, neighbours near it); null: the game has none. */
  readonly predicted: PredictedWorld | null;
  readonly transport: DatagramTransport;
}

/** What `GameClient.stats()` reports. */
export interface GameClientStats {
  status: GameClientStatus;
  /** Seconds, smoothed (0 before the first sample). */
  rtt: number;
  /** Percent of packets lost. */
  packetLoss: number;
  /** The server tick shown for the others (NaN until known). */
  renderTick: number;
  /** Predicted states the server's state corrected. */
  mispredictions: number;
  /** The game's events received (whether a handler took them or not). */
  events: number;
  /** Times the connection was made again after a drop (rooms). */
  reconnections: number;
  /** The spawns and neighbours predicted (null: the game predicts none besides the player's entity). */
  predicted: Readonly<PredictedWorldStats> | null;
  /** Kill-cam clips the server sent that were refused (a corrupt or hostile clip, ReplayError). */
  killcamsRefused: number;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers of heterogeneous events; and any game by default
type Handler = (value: any) => void;

/** The game's message channel: after the ghost section (0) and the inputs (1). */
const MESSAGE_CHANNEL = 2;

/** How long a dropped room client keeps asking for its seat back (a room holds it 20 s by default). */
const RESEAT_SECONDS = 20;

/**
 * A player's connection to a game: `GameClient.connect(game, url)`, then `update(input)` once a
 * frame; `me` (predicted) and `entities` (interpolated) are what to draw. Its type names the game:
 * `GameClient<typeof tag>` (what `connect` infers).
 */
export class GameClient<G extends GameDefinition = GameDefinition> {
  /** The layers under this client (escape hatch for experts). */
  readonly expert: GameClientExpert<ClientStateOf<G>, InputOf<G>>;
  private readonly wiring: GameWiring;
  private readonly codec: Codec<InputOf<G>>;
  private readonly view: EntityView;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pending: ReceivedEvent[] = [];
  private readonly killcams = new KillcamInbox((clip) => this.openReplay(clip));
  private input: InputOf<G> | undefined = undefined;
  private readonly spawning: SpawnPredictor | null;
  private readonly produce = (tick: number): InputOf<G> =>
    (this.spawning === null ? this.input : this.spawning.produce(tick, this.input)) as InputOf<G>;
  private reason: string | null = null;
  private closed = false;
  private reconnecting = false;
  private eventCount = 0;
  private reconnections = 0;
  private readonly watch: SpectatorRequestSender;
  /** The clock `update` reads, seconds (a test on a simulated link sets its own). */
  private clock: () => number = now;

  private constructor(
    /** The game this client plays. */
    readonly game: G,
    private readonly opened: Opened,
    /** Whether this client is a spectator: no player, no entity, no inputs (`follow` / `camera`). */
    readonly spectating: boolean,
  ) {
    const wiring = wiringOf('GameClient', game);
    this.wiring = wiring;
    this.codec = compile(game.input);
    const mirror = new ClientMirror({
      types: wiring.types,
      capacity: game.maxEntities,
      events: wiring.events,
      onCreate: (ghost) => this.view.created(ghost),
      onDestroy: (ghost) => this.view.destroyed(ghost),
      onEvent: (event) => {
        // Which entity is this player's own: taken at once, so the prediction follows it this frame.
        if (event.type === wiring.owner) this.view.own((event.value as { id: number }).id);
        else if (event.type === wiring.prediction.verdict) {
          const verdict = event.value as { tick: number; key: number; id: number };
          this.expert.predicted?.verdict(verdict.tick, verdict.key, verdict.id);
        } else this.pending.push(event);
      },
    });
    // With spawns, each input carries the keys of the spawns predicted with it (the claims); a
    // spectator sends no input (spectator-client.ts).
    const claimed = !spectating && wiring.prediction.wireInput !== null;
    const spectator = spectatorChannels((wiring.prediction.wireInput ?? game.input) as never, spectating);
    const inputs = spectator.inputs as InputSender<InputOf<G>>;
    this.watch = spectator.requests;
    if (spectating) this.input = spectator.noInput as InputOf<G>;
    const channels: ChannelConfig[] = [
      mirror.channel,
      spectator.inputsChannel,
      { kind: 'reliable-ordered' },
      spectator.requestsChannel,
    ];
    const messages = new MessageClient({
      transport: opened.transport,
      factory: wiring.factory,
      channels,
      onStateChange: (state) => this.stateChanged(state),
    });
    const predictor = new Predictor<ClientStateOf<G>, InputOf<G>>({
      // The public fields: private ones (visibility) are shown as received, never predicted.
      schema: wiring.playerType.layout.schema as never,
      inputSchema: (wiring.prediction.wireInput ?? game.input) as never,
      // A step may hand back its input state when nothing moves; the predictor keeps each tick's own.
      simulate: (state, input) => {
        // The step is typed with the server's state; on a client the private fields may be absent.
        const step = game.step as (state: ClientStateOf<G>, input: InputOf<G>) => ClientStateOf<G>;
        const next = step(state, claimed ? (input as unknown as { input: InputOf<G> }).input : input);
        return next === state ? { ...next } : next;
      },
      tickRate: game.tickRate,
    });
    const latency = new LatencyClient<ClientStateOf<G>, InputOf<G>>({
      tickRate: game.tickRate,
      mirror,
      inputs,
      predictor,
      rttSampleMs: () => messages.client.endpoint?.rttSampleMs ?? 0,
    });
    const predicted =
      spectating || wiring.prediction.types.size === 0
        ? null
        : new PredictedWorld({
            mirror,
            inputs: inputs as InputSender<unknown>,
            tickRate: game.tickRate,
            types: wiring.prediction.types,
          });
    this.spawning =
      claimed || predicted !== null
        ? new SpawnPredictor(game, wiring, predictor as never, latency, predicted)
        : null;
    this.view = new EntityView(wiring, mirror, latency, predicted);
    this.expert = { messages, mirror, inputs, latency, predictor, predicted, transport: opened.transport };
  }

  /**
   * Connects to a game: `url` is a GameServer's (http://host:port), or a services backend's with
   * `{ room }` or `{ pool }`; or pass `{ token, transport }` made yourself. Resolves once connected;
   * rejects with the reason when the connection cannot be made within `options.timeout` seconds.
   */
  static async connect<G extends GameDefinition>(
    game: G,
    target: string | GameClientToken,
    options: GameClientOptions = {},
  ): Promise<GameClient<G>> {
    wiringOf('GameClient.connect', game);
    const timeout = options.timeout ?? 10;
    if (!(timeout > 0 && timeout <= 600))
      throw new RangeError(`GameClient.connect: timeout must be in (0, 600] seconds, got ${timeout}`);
    // One deadline for the whole: the join request, the transport, the handshake.
    const deadline = now() + timeout;
    const opened = await openConnection(game, target, options, timeout);
    const client = new GameClient(game, opened, options.spectate === true);
    client.expert.messages.connect(opened.token, now());
    // Until connected the client drives its own handshake; then the caller's update() does.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        client.expert.messages.update(now());
        if (client.status === 'connected') {
          clearInterval(timer);
          resolve();
        } else if (client.status === 'disconnected' || now() > deadline) {
          clearInterval(timer);
          const reason = client.statusReason ?? 'timed out';
          client.close();
          reject(new Error(`GameClient.connect: ${reason}`));
        }
      }, 1000 / 60);
    });
    return client;
  }

  /** Where the connection stands; `statusReason` says why it is disconnected. */
  get status(): GameClientStatus {
    if (this.closed) return 'disconnected';
    if (this.expert.messages.connected) return 'connected';
    const state = this.expert.messages.client.state;
    return state > ClientState.Disconnected || this.reconnecting ? 'connecting' : 'disconnected';
  }

  /** Why the client is disconnected (or reconnecting): 'closed', 'connection timed out'…; null while all is well. */
  get statusReason(): string | null {
    return this.reason;
  }

  /** The round-trip time in seconds, smoothed (0 before the first sample). */
  get rtt(): number {
    return (this.expert.messages.client.endpoint?.rttMs ?? 0) / 1000;
  }

  /**
   * This player's own entity, predicted (shown ahead of the server): null before the server
   * spawned it. A private field (`visibility`) is absent until this client holds it.
   */
  get me(): ShownEntity<G['player'] & string, ClientStateOf<G>> | null {
    return this.view.me as ShownEntity<G['player'] & string, ClientStateOf<G>> | null;
  }

  /**
   * The other entities as shown now (interpolated between the server's states); refreshed by each
   * update. A private field (`visibility`) this client does not hold is absent (no key).
   */
  get entities(): readonly {
    [K in keyof G['entityTypes'] & string]: ShownEntity<K, ClientStateOf<G, K>>;
  }[keyof G['entityTypes'] & string][] {
    return this.view.others as never;
  }

  /** Calls `handler` with each event `name` the server sends (during `update`). Returns a function that stops it. */
  on<K extends keyof G['eventTypes'] & string>(name: K, handler: (value: EventOf<G, K>) => void): () => void {
    if (!Object.hasOwn(this.game.eventTypes as object, name))
      throw new RangeError(`GameClient.on: ${JSON.stringify(name)} is not one of the game's events`);
    if (typeof handler !== 'function') throw new TypeError('GameClient.on: handler must be a function');
    const set = this.handlers.get(name) ?? new Set<Handler>();
    this.handlers.set(name, set);
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * One frame: `input` is this player's input from now on (sent once per tick, and predicted);
   * receives the server's packets, moves the prediction and the others' interpolation, sends,
   * then calls the event handlers. Throws (RangeError naming the field) for an input outside the
   * game's input schema. A spectator calls `update()` with no input (and a player always gives one).
   */
  update(): void;
  update(input: InputOf<G>): void;
  update(input?: InputOf<G>): void {
    if (this.spectating) {
      if (input !== undefined)
        throw new TypeError('GameClient.update: a spectator sends no input: call update()');
    } else {
      if (input === undefined) throw new TypeError("GameClient.update: give this frame's input");
      try {
        this.codec.encode(input);
      } catch (error) {
        throw new RangeError(
          `GameClient.update: input does not fit the game's input schema: ${(error as Error).message}`,
        );
      }
      this.input = input;
    }
    if (this.closed) return;
    const time = this.clock();
    const { messages, latency } = this.expert;
    messages.update(time);
    for (let m = messages.receive(MESSAGE_CHANNEL); m !== null; m = messages.receive(MESSAGE_CHANNEL))
      if (m.is(Block)) this.killcams.receive(m.value);
    if (messages.connected) {
      try {
        latency.frame(time, this.produce);
        this.expert.predicted?.reconcile(latency.clock.position);
      } catch (error) {
        // The prediction quantizes what the game's step returned: say so in the game's words.
        if (!(error instanceof SchemaValueError)) throw error;
        throw new RangeError(
          `GameClient.update: step: the ${this.game.player} state it returned does not fit its schema: ${fieldOf(error)}`,
          { cause: error },
        );
      }
      this.view.refresh();
    }
    this.dispatch();
  }

  /**
   * A spectator follows entity `id` (a player's, usually): the server's relevancy moves with it.
   * Sent until the server has it; the server takes 10 requests a second at most. Throws for a
   * player's client or an id outside the game's entities.
   */
  follow(id: number): void {
    this.checkSpectating('follow');
    if (!(Number.isInteger(id) && id >= 0 && id < this.game.maxEntities))
      throw new RangeError(
        `GameClient.follow: id must be an entity id in [0, ${this.game.maxEntities}), got ${id}`,
      );
    this.watch.set({ follow: id });
  }

  /** A spectator's free camera at (x, y): the server's relevancy is centred there. Throws for a player's client. */
  camera(x: number, y: number): void {
    this.checkSpectating('camera');
    if (!(Math.abs(x) <= MAX_CAMERA_COORDINATE && Math.abs(y) <= MAX_CAMERA_COORDINATE))
      throw new RangeError(`GameClient.camera: x and y must be finite, within ±1e9, got ${x}, ${y}`);
    this.watch.set({ camera: { x, y } });
  }

  private checkSpectating(where: string): void {
    if (!this.spectating)
      throw new Error(
        `GameClient.${where}: only a spectator chooses what it watches (connect with { spectate: true })`,
      );
  }

  /**
   * Sends one of the game's messages to the server (reliable, in order; its rules' onMessage gets
   * it). Throws for a name not in the game's `messages`, a value outside its schema, or while not
   * connected.
   */
  send<K extends keyof G['messageTypes'] & string>(name: K, value: MessageOf<G, K>): void {
    const type = Object.hasOwn(this.game.messageTypes as object, name)
      ? this.game.messageTypes[name]
      : undefined;
    if (type === undefined)
      throw new RangeError(`GameClient.send: ${JSON.stringify(name)} is not one of the game's messages`);
    const where = `GameClient.send('${name}')`;
    if (this.spectating) throw new Error(`${where}: a spectator sends no game messages`);
    if (!this.expert.messages.connected) throw new Error(`${where}: not connected (${this.status})`);
    try {
      this.expert.messages.send(MESSAGE_CHANNEL, type as never, value as never);
    } catch (error) {
      if (error instanceof SchemaValueError) throw schemaError(where, error);
      // Too big for a packet, a full queue: the channel's words, the call named.
      if (error instanceof RangeError) throw new RangeError(`${where}: ${error.message}`, { cause: error });
      throw error;
    }
  }

  /** The connection's figures now. */
  stats(): GameClientStats {
    const link = this.expert.messages.stats();
    return {
      status: this.status,
      rtt: this.rtt,
      packetLoss: link.packetLoss,
      renderTick: this.expert.latency.renderTick,
      mispredictions: this.expert.predictor.stats().mispredictions,
      events: this.eventCount,
      reconnections: this.reconnections,
      predicted: this.expert.predicted === null ? null : { ...this.expert.predicted.stats() },
      killcamsRefused: this.killcams.refused,
    };
  }

  /** Leaves the game (the server is told) and closes the transport. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reason = 'closed';
    try {
      this.expert.messages.disconnect();
    } finally {
      this.expert.transport.close();
    }
  }

  private stateChanged(state: ClientState): void {
    if (state === ClientState.Connected) {
      this.reason = null;
      return;
    }
    if (state > ClientState.Disconnected || this.closed) return;
    this.reason = describeClientState(state);
    // A room seat outlives a dropped connection for a while: ask the backend for a fresh token.
    if (state === ClientState.ConnectionTimedOut && this.opened.reseat !== null && !this.reconnecting)
      void this.reconnect(this.opened.reseat);
  }

  /**
   * Asks for a fresh token for the seat, again every half second while the room has not yet seen
   * the drop (its timeout and ours end about together) for up to RESEAT_SECONDS.
   */
  private async reconnect(reseat: () => Promise<Uint8Array>): Promise<void> {
    this.reconnecting = true;
    const deadline = now() + RESEAT_SECONDS;
    try {
      for (;;) {
        try {
          const token = await reseat();
          if (this.closed) return;
          this.view.reset();
          this.expert.predicted?.clear();
          this.expert.messages.connect(token, now());
          this.reconnections++;
          return;
        } catch (error) {
          const status = (error as { status?: unknown }).status;
          if (this.closed || status !== 409 || now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    } catch (error) {
      this.reason = `reconnection failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.reconnecting = false;
    }
  }

  /**
   * Opens a recording (the bytes of GameServer.record().save, or a kill-cam's) in a ReplayPlayer
   * of its own, apart from the live game: a second mirror. Throws ReplayError when refused.
   */
  openReplay(bytes: Uint8Array): ReplayPlayer<ClientStateOf<G, keyof G['entityTypes']>> {
    return ReplayPlayer.open(bytes, {
      types: this.wiring.types,
      capacity: this.game.maxEntities,
      events: this.wiring.events,
    });
  }

  /**
   * Calls `handler` with each kill-cam the server sends (GameServer.killcam), opened in its own
   * player, paused at its start, and the entity it follows (-1: none); during `update`. The others
   * are shown as the followed player saw them: `replay.viewDelayTicks` behind it (its
   * interpolation delay when the clip was cut). A clip that is refused is dropped (counted in
   * `stats().killcamsRefused`). Returns a function that stops it.
   */
  onKillcam(
    handler: (replay: ReplayPlayer<ClientStateOf<G, keyof G['entityTypes']>>, follow: number) => void,
  ): () => void {
    if (typeof handler !== 'function')
      throw new TypeError('GameClient.onKillcam: handler must be a function');
    // The inbox opens clips with openReplay: its players are this game's.
    return this.killcams.add(handler as (replay: ReplayPlayer, follow: number) => void);
  }

  private dispatch(): void {
    this.killcams.dispatch();
    // Handlers run after the packets are read: a throw from one reaches the caller with the frame done.
    const events = this.pending.splice(0);
    for (const event of events) {
      this.eventCount++;
      const name = this.wiring.eventNames.get(event.type);
      const set = name === undefined ? undefined : this.handlers.get(name);
      if (set !== undefined) for (const handler of set) handler(event.value);
    }
  }
}

function now(): number {
  return performance.now() / 1000;
}
