/**
 * The demo page's script (bundled by demo/client-bundle.ts): joins the GameServer that serves the
 * page over WebRTC, or WebSocket when WebRTC does not open within 3 s (`?transport=webrtc|websocket|auto`,
 * default auto), through a simulated link the network panel controls, and plays: the keys (arrows or
 * WASD) steer the player's avatar, predicted; space (or a click) zaps the orb shown nearest and
 * launches a bolt, shown at once (a predicted spawn); `?bot=1` lets the page
 * steer itself as the server's bots do; `?spectate` watches without an avatar (demo/spectator.ts).
 * `window.ghostwire` holds the page's status for tests and the curious.
 */
import type { GameJoinAnswer } from '../src/game/game-join.js';
import { GameClient } from '../src/index.js';
import {
  connectTransport,
  NetworkSimulator,
  type TransportChoice,
  toAddress,
} from '../src/transport/index.js';
import { drawScene, type Scene } from './draw.js';
import { type ArenaInput, arena } from './game.js';
import { installGamerPanel, signInToDemo } from './gamer-panel.js';
import { installNetworkPanel, type LinkControl } from './network-panel.js';
import { installReplayView } from './replay-view.js';
import { SpectatorCamera } from './spectator.js';
import { aim, botInput, nearest } from './steer.js';
import { type DemoZoneGrid, readZoneGrid } from './zone-grid.js';

declare global {
  interface Window {
    ghostwire: PageStatus & LinkControl;
  }
}

const params = new URLSearchParams(location.search);
const asked = params.get('transport');
const spectate = params.has('spectate');
let spectator: SpectatorCamera | null = null;
/** What the page reports about itself (read by test/demo/demo-chromium.test.ts). */
const status = {
  /** The transport's state, what `?transport=` asked for, and what the page runs over (null while connecting). */
  socket: 'none' as 'connecting' | 'open' | 'failed' | 'closed' | 'none',
  transportChoice: (asked === 'webrtc' || asked === 'websocket' ? asked : 'auto') as TransportChoice,
  transport: null as 'webrtc' | 'websocket' | null,
  /** Why auto did not use WebRTC (null when it did, or when forced). */
  fallbackReason: null as string | null,
  /** Milliseconds connectTransport took; from the page's start until the transport was open, and connected. */
  transportConnectMs: Number.NaN,
  transportOpenMs: Number.NaN,
  handshakeMs: Number.NaN,
  connected: false,
  /** Its avatar's entity id (-1 until the server said which is its own). */
  avatar: -1,
  botMode: params.get('bot') === '1',
  /** Whether the page watches as a spectator (`?spectate`), and the avatar it follows (-1: free camera). */
  spectating: spectate,
  following: -1,
  /** Datagrams received, replication sections applied, ghosts mirrored now and at most. */
  datagramsReceived: 0,
  sections: 0,
  ghosts: 0,
  ghostsMax: 0,
  /** The newest input tick sent (-1: none yet). */
  newestInputTick: -1,
  mispredictions: 0,
  /** The account the page signed in as (null: a guest of the game, or a spectator). */
  accountId: null as string | null,
  /** `zapped` events received (anyone's hits). */
  zapsSeen: 0,
  /** Of those, the ones whose `orb` named an orb this page shows, and whose `by` named its own avatar. */
  zapsNamed: 0,
  zapsMine: 0,
  /** Ones whose `orb` named an entity of this page that is not an orb (a wrong reference: never). */
  zapsMisnamed: 0,
  /** Bolts this page predicted (its own zaps), and of those the server matched and refused. */
  boltsPredicted: 0,
  boltsMatched: 0,
  boltsRefused: 0,
  framesDrawn: 0,
  /** The zone grid from GET /zones (null: the unzoned demo), and the border lines the last frame drew. */
  zones: null as { columns: number; rows: number } | null,
  zoneBorders: 0,
  errors: [] as string[],
};
export type PageStatus = typeof status;
window.ghostwire = status as PageStatus & LinkControl;
window.addEventListener('error', (event) => status.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => status.errors.push(String(event.reason)));

/** Keys held now; a zap is asked for a few frames once space is pressed (the server takes one a tick at most). */
const held = new Set<string>();
let zapUntil = 0;
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
  if (event.code === 'KeyF') spectator?.followNext();
  if (event.code === 'Space') zapUntil = performance.now() + 150;
  else if (!(event.code in KEYS)) return;
  held.add(event.code);
  event.preventDefault();
});
// A click zaps too (and launches a bolt), like space.
window.addEventListener('pointerdown', (event) => {
  if (event.target instanceof HTMLCanvasElement) zapUntil = performance.now() + 150;
});
window.addEventListener('keyup', (event) => held.delete(event.code));
window.addEventListener('blur', () => held.clear());

function keyInput(me: { x: number; y: number }, orbs: { x: number; y: number }[]): ArenaInput {
  let dx = 0;
  let dy = 0;
  for (const code of held) {
    dx += KEYS[code]?.[0] ?? 0;
    dy += KEYS[code]?.[1] ?? 0;
  }
  const zap = performance.now() < zapUntil;
  return { dx: Math.sign(dx), dy: Math.sign(dy), ...aim(zap ? nearest(me, orbs) : null) };
}

/** The zone grid the server serves (the zoned demo), or null: the plain demo answers null. */
async function fetchZoneGrid(): Promise<DemoZoneGrid | null> {
  const answer = await fetch(new URL('/zones', location.href));
  return answer.ok ? readZoneGrid(await answer.json().catch(() => null)) : null;
}

async function main(): Promise<void> {
  const zones = await fetchZoneGrid();
  status.zones = zones === null ? null : { columns: zones.columns, rows: zones.rows };
  // A player signs in first, so the server counts its zaps for its account; a spectator does not,
  // nor a page of the zoned demo (it has no gamer services).
  const account = spectate || zones !== null ? null : await signInToDemo(status);
  const join = (await (
    await fetch(new URL(spectate ? '/ghostwire/join?spectate' : '/ghostwire/join', location.href), {
      headers: account === null ? {} : { authorization: `Bearer ${account.session}` },
    })
  ).json()) as GameJoinAnswer;
  const websocket = new URL(join.websocket ?? '/', location.href);
  websocket.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  status.socket = 'connecting';
  const opened = await connectTransport({
    choice: status.transportChoice,
    webrtc:
      join.webrtc === null
        ? undefined
        : {
            signalingUrl: new URL(join.webrtc, location.href).href,
            serverAddress: toAddress(join.serverAddress),
          },
    websocket: { url: websocket.href, serverAddress: join.serverAddress },
  });
  Object.assign(status, { transport: opened.kind, fallbackReason: opened.fallbackReason });
  status.transportConnectMs = opened.connectSeconds * 1000;
  status.transportOpenMs = performance.now();
  // The network panel's sliders act on this simulated link around the real one (demo/network-panel.ts).
  const link = new NetworkSimulator(opened.transport, { seed: (Math.random() * 2 ** 32) >>> 0 });
  const token = Uint8Array.from(atob(join.token), (c) => c.charCodeAt(0));
  const client = await GameClient.connect(arena, { token, transport: link }, { spectate });
  if (spectate) spectator = new SpectatorCamera(client);
  status.handshakeMs = performance.now();
  installNetworkPanel(
    link,
    () => ({ rttMs: client.rtt * 1000, packetLoss: client.stats().packetLoss }),
    status,
  );
  const replayView = installReplayView(client, document.querySelector('main')!);
  Object.assign(window, { ghostwireReplay: replayView.status });
  if (account !== null)
    Object.assign(window, { ghostwireGamer: installGamerPanel(account, document.querySelector('main')!) });
  /** Zapped orbs, by entity id: when their ring stops being drawn. */
  const flashing = new Map<number, number>();
  client.on('zapped', ({ by, orb }) => {
    status.zapsSeen++;
    // The ids are this client's entity ids: found among its entities, or not shown here (or none, -1).
    const named = client.entities.find((e) => e.id === orb);
    if (named?.type === 'orb') {
      status.zapsNamed++;
      flashing.set(orb, performance.now() + 600);
    } else if (named !== undefined) status.zapsMisnamed++;
    if (by !== -1 && by === client.me?.id) status.zapsMine++;
  });
  const started = performance.now();
  const orbs: { x: number; y: number }[] = [];
  const flashes: Scene['flashes'] = [];
  const others: Scene['others'] = [];
  const bolts: Scene['bolts'] = [];
  // The game steps on a timer (a hidden tab's frames stop, its timers only slow); drawing follows the display.
  setInterval(() => {
    orbs.length = others.length = flashes.length = bolts.length = 0;
    const now = performance.now();
    for (const [id, until] of flashing) if (until < now) flashing.delete(id);
    for (const e of client.entities)
      if (e.type === 'orb') {
        orbs.push(e.state);
        if (flashing.has(e.id)) flashes.push(e.state);
      } else if (e.type === 'bolt') bolts.push({ x: e.state.x, y: e.state.y, predicted: e.predicted });
      else others.push({ x: e.state.x, y: e.state.y, id: e.id });
    const me = client.me?.state ?? { x: 0, y: 0 };
    if (spectator !== null) {
      const { dx, dy } = keyInput(me, orbs);
      spectator.frame(dx, dy);
      client.update();
      status.following = spectator.following;
    } else
      client.update(
        status.botMode ? botInput(7, (performance.now() - started) / 1000, me, orbs) : keyInput(me, orbs),
      );
    const { mirror, inputs } = client.expert;
    Object.assign(status, {
      socket: opened.transport.state,
      connected: client.status === 'connected',
      avatar: client.me?.id ?? -1,
      datagramsReceived: opened.transport.stats().received,
      sections: mirror.sectionsApplied,
      ghosts: mirror.size,
      ghostsMax: Math.max(status.ghostsMax, mirror.size),
      newestInputTick: inputs.newestTick,
      mispredictions: client.stats().mispredictions,
      boltsPredicted: client.stats().predicted?.spawnsPredicted ?? 0,
      boltsMatched: client.stats().predicted?.spawnsMatched ?? 0,
      boltsRefused: client.stats().predicted?.spawnsRefused ?? 0,
    });
  }, 1000 / 60);
  const context = (document.getElementById('arena') as HTMLCanvasElement).getContext('2d')!;
  const draw = () => {
    const me = client.me?.state ?? null;
    const stats = client.stats();
    const scene: Scene = replayView.scene(performance.now()) ?? {
      me,
      orbs,
      flashes,
      others,
      camera: spectator === null ? null : { x: spectator.x, y: spectator.y },
      bolts,
      overlay: [
        `ghostwire demo · ${opened.kind === 'webrtc' ? 'WebRTC' : 'WebSocket'}${status.botMode ? ' · bot' : ''}${
          spectator === null
            ? ''
            : ` · spectating ${spectator.following < 0 ? 'free camera (arrows)' : `avatar ${spectator.following}`} · F: follow`
        }`,
        client.status === 'connected'
          ? `RTT ${(stats.rtt * 1000).toFixed(0)} ms  loss ${stats.packetLoss.toFixed(1)}%`
          : `${client.status}… (${opened.transport.state})`,
        `render tick ${stats.renderTick.toFixed(1)}  mispredictions ${stats.mispredictions}`,
        `ghosts ${client.expert.mirror.size}  score ${me?.score ?? 0}`,
        `bolts matched ${stats.predicted?.spawnsMatched ?? 0}  rollbacks ${stats.predicted?.rollbacks ?? 0}`,
      ],
      zones,
    };
    status.zoneBorders = drawScene(context, scene);
    status.framesDrawn++;
    requestAnimationFrame(draw);
  };
  requestAnimationFrame(draw);
}

main().catch((error: unknown) => {
  status.errors.push(String((error as Error)?.stack ?? error));
  console.error(error);
});
