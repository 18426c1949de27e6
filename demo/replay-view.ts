/**
 * "Replay the last minute" on the demo page: fetches GET /replay.gwr, opens it in a ReplayPlayer
 * apart from the live game (GameClient.openReplay: a second mirror), and shows it in place of the
 * live arena with pause, speed and a seek slider. While it plays, the live game goes on under it.
 */
import type { GameClient } from '../src/index.js';
import type { ReplayPlayer } from '../src/latency/index.js';
import type { Scene } from './draw.js';

/** What the page reports about the replay (read by the Chromium test). */
export interface ReplayStatus {
  state: 'idle' | 'loading' | 'playing' | 'paused' | 'failed';
  bytes: number;
  startTick: number;
  endTick: number;
  renderTick: number;
  entities: number;
  error: string | null;
}

export interface ReplayView {
  readonly status: ReplayStatus;
  /** The replay's scene for this frame (its clock moved on), or null when none is shown. */
  scene(nowMs: number): Scene | null;
}

const SPEEDS = [0.5, 1, 2, 4];

// biome-ignore lint/suspicious/noExplicitAny: the demo game's client
export function installReplayView(client: GameClient<any>, root: HTMLElement): ReplayView {
  const status: ReplayStatus = {
    state: 'idle',
    bytes: 0,
    startTick: 0,
    endTick: 0,
    renderTick: 0,
    entities: 0,
    error: null,
  };
  let replay: ReplayPlayer | null = null;
  let lastMs = Number.NaN;
  let follow = -1;

  const bar = document.createElement('div');
  bar.id = 'replay-bar';
  bar.style.cssText = 'display:flex;gap:8px;align-items:center';
  const open = button('Replay the last minute', 'replay-open');
  const toggle = button('Pause', 'replay-toggle');
  const close = button('Back to live', 'replay-close');
  const speed = document.createElement('select');
  speed.id = 'replay-speed';
  for (const s of SPEEDS) speed.add(new Option(`${s}×`, String(s), s === 1, s === 1));
  const seek = document.createElement('input');
  seek.type = 'range';
  seek.id = 'replay-seek';
  seek.step = 'any';
  seek.style.width = '240px';
  const controls = [toggle, speed, seek, close];
  for (const c of controls) c.hidden = true;
  bar.append(open, ...controls);
  root.append(bar);

  open.onclick = async () => {
    status.state = 'loading';
    try {
      const response = await fetch(new URL('/replay.gwr', location.href));
      if (!response.ok) throw new Error(`GET /replay.gwr: ${response.status} ${await response.text()}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      replay = client.openReplay(bytes);
      follow = client.me?.id ?? -1;
      if (follow >= 0) replay.follow(follow);
      replay.play(Number(speed.value));
      Object.assign(status, {
        bytes: bytes.length,
        startTick: replay.startTick,
        endTick: replay.endTick,
        error: null,
      });
      seek.min = String(replay.startTick);
      seek.max = String(replay.endTick);
      for (const c of controls) c.hidden = false;
      lastMs = Number.NaN;
    } catch (error) {
      status.state = 'failed';
      status.error = String((error as Error).message ?? error);
    }
  };
  toggle.onclick = () => {
    if (replay === null) return;
    if (replay.playing) replay.pause();
    else replay.play(Number(speed.value));
  };
  speed.onchange = () => {
    if (replay?.playing) replay.play(Number(speed.value));
  };
  seek.oninput = () => replay?.seek(Number(seek.value));
  close.onclick = () => {
    replay = null;
    status.state = 'idle';
    for (const c of controls) c.hidden = true;
  };

  return {
    status,
    scene(nowMs) {
      if (replay === null) return null;
      const seconds = Number.isNaN(lastMs) ? 0 : Math.min(0.25, (nowMs - lastMs) / 1000);
      lastMs = nowMs;
      replay.advance(seconds);
      toggle.textContent = replay.playing ? 'Pause' : 'Play';
      if (document.activeElement !== seek) seek.value = String(replay.renderTick);
      const orbs: Scene['orbs'] = [];
      const others: Scene['others'] = [];
      const bolts: Scene['bolts'] = [];
      let me: Scene['me'] = null;
      for (const ghost of replay.mirror.ghosts()) {
        const state = replay.sample(ghost.id) as { x: number; y: number; score?: number } | null;
        if (state === null) continue;
        if (ghost.type.name === 'orb') orbs.push({ x: state.x, y: state.y });
        else if (ghost.type.name === 'bolt') bolts.push({ x: state.x, y: state.y, predicted: false });
        else if (ghost.id === follow) me = { x: state.x, y: state.y, score: state.score ?? 0 };
        else others.push({ x: state.x, y: state.y, id: ghost.id });
      }
      Object.assign(status, {
        state: replay.playing ? 'playing' : 'paused',
        renderTick: replay.renderTick,
        entities: replay.mirror.size,
      });
      const seconds_ = (replay.renderTick - replay.startTick) / replay.tickRate;
      const total = (replay.endTick - replay.startTick) / replay.tickRate;
      return {
        me,
        orbs,
        flashes: [],
        others,
        bolts,
        overlay: [
          `REPLAY · ${seconds_.toFixed(1)} / ${total.toFixed(1)} s · ${replay.playing ? `${replay.speed}×` : 'paused'}`,
          `tick ${replay.renderTick.toFixed(1)}  ghosts ${replay.mirror.size}  file ${(status.bytes / 1024).toFixed(1)} KiB`,
        ],
        zones: null,
      };
    },
  };
}

function button(text: string, id: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = text;
  b.id = id;
  return b;
}
