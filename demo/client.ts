/**
 * The demo page's script (bundled by demo/client-bundle.ts): connects over WebRTC, or WebSocket on
 * the page's own port when WebRTC does not open within 3 s (`?transport=webrtc|websocket|auto`,
 * default auto), fetches a connect token for that transport, and plays the arena. The player's avatar is predicted by
 * an ArenaBot's LatencyClient (the same one the server's bots use) steered by the keys (arrows or
 * WASD, space zaps the orb shown nearest); `?bot=1` lets it steer itself round a circle instead.
 * Orbs and other avatars are interpolated at the render tick. `window.ghostwire` holds the page's
 * status for tests and the curious.
 */
import {
  connectTransport,
  type Ghost,
  GhostSampler,
  MessageClient,
  NetworkSimulator,
  type TransportChoice,
  toAddress,
  type WebRtcClientTransport,
  type WebSocketClientTransport,
} from '../src/browser.js';
import { Avatar, type AvatarValue, avatarLerp, CAPACITY } from '../tools/live-arena.js';
import { ArenaBot, type Steer } from '../tools/live-bot.js';
import { drawScene, type Scene } from './draw.js';
import { installNetworkPanel, type LinkControl } from './network-panel.js';
import { factory, RTC_OFFER_PATH, type ServersAnswer, type TokenAnswer, WEBSOCKET_PATH } from './protocol.js';

/** What the page reports about itself (read by test/demo/demo-chromium.test.ts). */
export interface PageStatus {
  /** The transport's state. */
  socket: 'connecting' | 'open' | 'failed' | 'closed' | 'none';
  /** What `?transport=` asked for, and what the page runs over (null while connecting). */
  transportChoice: TransportChoice;
  transport: 'webrtc' | 'websocket' | null;
  /** Why auto did not use WebRTC (null when it did, or when forced). */
  fallbackReason: string | null;
  /** Milliseconds connectTransport took (a failed WebRTC attempt included). */
  transportConnectMs: number;
  /** Milliseconds from the page's start until the transport was open, and until the netcode handshake completed. */
  transportOpenMs: number;
  handshakeMs: number;
  /** The netcode handshake completed and the connection stands. */
  connected: boolean;
  /** It completed at least once. */
  handshakeDone: boolean;
  avatar: number;
  botMode: boolean;
  /** Datagrams received, replication sections applied, ghosts mirrored now and at most. */
  datagramsReceived: number;
  sections: number;
  ghosts: number;
  ghostsMax: number;
  /** The newest input tick pushed to the input channel (-1: none yet). */
  newestInputTick: number;
  mispredictions: number;
  framesDrawn: number;
  errors: string[];
}

declare global {
  interface Window {
    ghostwire: PageStatus & LinkControl;
  }
}

const params = new URLSearchParams(location.search);
const asked = params.get('transport');
const status: PageStatus = {
  socket: 'none',
  transportChoice: asked === 'webrtc' || asked === 'websocket' ? asked : 'auto',
  transport: null,
  fallbackReason: null,
  transportConnectMs: Number.NaN,
  transportOpenMs: Number.NaN,
  handshakeMs: Number.NaN,
  connected: false,
  handshakeDone: false,
  avatar: -1,
  botMode: params.get('bot') === '1',
  datagramsReceived: 0,
  sections: 0,
  ghosts: 0,
  ghostsMax: 0,
  newestInputTick: -1,
  mispredictions: 0,
  framesDrawn: 0,
  errors: [],
};
window.ghostwire = status as PageStatus & LinkControl;
window.addEventListener('error', (event) => status.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => status.errors.push(String(event.reason)));

/** Keys held now; a zap waits for the next input once space is pressed. */
const held = new Set<string>();
let zapAsked = false;
const KEYS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
  KeyA: [-1, 0],
  KeyD: [1, 0],
  KeyW: [0, -1],
  KeyS: [0, 1],
};
window.addEventListener('keydown', (event) => {
  if (event.code === 'Space') zapAsked = true;
  else if (!(event.code in KEYS)) return;
  held.add(event.code);
  event.preventDefault();
});
window.addEventListener('keyup', (event) => held.delete(event.code));
window.addEventListener('blur', () => held.clear());

/** The keys' step: half a metre a tick each way held (the most a Walk input carries). */
const keySteer: Steer = () => {
  let dx = 0;
  let dy = 0;
  for (const code of held) {
    const d = KEYS[code];
    if (d === undefined) continue;
    dx += d[0];
    dy += d[1];
  }
  const zap = zapAsked;
  zapAsked = false;
  return { dx: 0.5 * Math.sign(dx), dy: 0.5 * Math.sign(dy), zap };
};

async function main(): Promise<void> {
  const servers = (await (await fetch('servers')).json()) as ServersAnswer;
  const url = new URL(WEBSOCKET_PATH, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  status.socket = 'connecting';
  const connected = await connectTransport({
    choice: status.transportChoice,
    webrtc:
      servers.webrtc === null
        ? undefined
        : {
            signalingUrl: new URL(RTC_OFFER_PATH, location.href).href,
            serverAddress: toAddress(servers.webrtc),
          },
    websocket: { url: url.href, serverAddress: toAddress(servers.websocket) },
  });
  const transport = connected.transport;
  status.transport = connected.kind;
  status.fallbackReason = connected.fallbackReason;
  status.transportConnectMs = connected.connectSeconds * 1000;
  status.transportOpenMs = performance.now();
  if (connected.fallbackReason !== null)
    console.info(`ghostwire: over WebSocket (${connected.fallbackReason})`);
  const response = await fetch(`token?transport=${connected.kind}`);
  if (!response.ok) throw new Error(`no token: ${response.status} ${await response.text()}`);
  const answer = (await response.json()) as TokenAnswer;
  status.avatar = answer.avatar;
  const token = Uint8Array.from(atob(answer.token), (c) => c.charCodeAt(0));
  const bot: ArenaBot = new ArenaBot(
    answer.avatar,
    () => client.client.endpoint?.rttSample ?? 0,
    status.botMode ? undefined : keySteer,
  );
  // The network panel's sliders act on this simulated link around the real one (demo/network-panel.ts).
  const link = new NetworkSimulator(transport, { seed: (Math.random() * 2 ** 32) >>> 0 });
  installNetworkPanel(link, () => (client.connected ? client.stats() : null), status);
  const client: MessageClient = new MessageClient({
    transport: link,
    factory,
    channels: [bot.mirror.channel, bot.sender.channel],
  });
  const seconds = () => performance.now() / 1000;
  client.connect(token, seconds());
  const game = new Game(bot, client, transport);
  // The network and the game step on a timer (a hidden tab's frames stop, its timers only slow);
  // drawing follows the display.
  setInterval(() => game.step(seconds()), 1000 / 60);
  const canvas = document.getElementById('arena') as HTMLCanvasElement;
  const context = canvas.getContext('2d')!;
  const draw = () => {
    drawScene(context, game.scene());
    status.framesDrawn++;
    requestAnimationFrame(draw);
  };
  requestAnimationFrame(draw);
}

/** One page's game: steps the connection and the prediction, and makes the scene to draw. */
class Game {
  private readonly samplers: (GhostSampler<AvatarValue> | null)[] = new Array(CAPACITY).fill(null);
  private readonly others: Scene['others'] = [];

  constructor(
    private readonly bot: ArenaBot,
    private readonly client: MessageClient,
    private readonly transport: WebRtcClientTransport | WebSocketClientTransport,
  ) {}

  step(now: number): void {
    try {
      this.client.update(now);
      status.socket = this.transport.state;
      status.connected = this.client.connected;
      if (!this.client.connected) return;
      if (!status.handshakeDone) status.handshakeMs = performance.now();
      status.handshakeDone = true;
      this.bot.frame(now, Number.NaN); // the server's true tick is not known here: no sync error kept
      status.datagramsReceived = this.transport.stats.received;
      status.sections = this.bot.mirror.sectionsApplied;
      status.ghosts = this.bot.mirror.size;
      status.ghostsMax = Math.max(status.ghostsMax, status.ghosts);
      status.newestInputTick = this.bot.sender.newestTick;
      status.mispredictions = this.bot.predictor.stats.mispredictions;
    } catch (error) {
      status.errors.push(String((error as Error)?.stack ?? error));
      throw error;
    }
  }

  scene(): Scene {
    const bot = this.bot;
    const me = bot.shown();
    const mine = bot.avatar();
    const others = this.others;
    others.length = 0;
    const renderTick = bot.latency.renderTick;
    if (!Number.isNaN(renderTick)) {
      for (let id = 0; id < CAPACITY; id++) {
        const ghost = bot.mirror.ghost(id) as Ghost<AvatarValue> | null;
        const history = bot.mirror.history(id);
        if (ghost === null || ghost.type !== Avatar || history === null || ghost === mine) continue;
        let sampler = this.samplers[id];
        if (sampler === null) {
          sampler = new GhostSampler(avatarLerp);
          this.samplers[id] = sampler;
        }
        const shown = sampler.sample(history, renderTick);
        if (shown !== null) others.push({ x: shown.x, y: shown.y, bot: ghost.value.bot });
      }
    }
    const stats = this.client.stats();
    const link = this.client.connected
      ? `RTT ${stats.rtt.toFixed(0)} ms  loss ${stats.packetLoss.toFixed(1)}%`
      : `connecting… (${this.transport.state})`;
    return {
      me: me === null ? null : { x: me.x, y: me.y, score: mine?.value.score ?? 0 },
      orbPlaces: bot.orbPlaces,
      orbs: bot.orbsShown,
      others,
      overlay: [
        `ghostwire demo · ${status.transport === 'webrtc' ? 'WebRTC' : 'WebSocket'}${status.botMode ? ' · bot' : ''}`,
        link,
        `delay ${((bot.latency.delay.ticks / 60) * 1000).toFixed(0)} ms  (render tick ${renderTick.toFixed(1)})`,
        `mispredictions ${bot.predictor.stats.mispredictions}`,
        `ghosts ${bot.mirror.size}  score ${mine?.value.score ?? 0}`,
      ],
    };
  }
}

main().catch((error: unknown) => {
  status.errors.push(String((error as Error)?.stack ?? error));
  console.error(error);
});
