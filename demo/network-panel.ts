/**
 * The page's network panel: sliders for the simulated latency, jitter and loss of the page's own
 * link, applied live to both directions of the NetworkSimulator that wraps its transport (so a
 * round trip sees twice the latency, and each way loses `loss` percent), with what the page's
 * connection measures beside them. `window.ghostwire.setLink({...})` sets them as the sliders do
 * (tests use it); `window.ghostwire.link` holds the values in force.
 */
import type { NetworkSimulator } from '../src/browser.js';

export interface LinkSettings {
  /** One-way milliseconds added each way (0–500). */
  latency: number;
  /** ± milliseconds on that (0–100). */
  jitter: number;
  /** Percent lost each way (0–50). */
  loss: number;
}

export interface LinkControl {
  link: LinkSettings;
  setLink(settings: Partial<LinkSettings>): LinkSettings;
  /** The page's connection's own figures, refreshed twice a second. */
  measured: { rtt: number; loss: number };
}

const RANGES: Record<keyof LinkSettings, { max: number; step: number; unit: string; label: string }> = {
  latency: { max: 500, step: 5, unit: 'ms', label: 'latency' },
  jitter: { max: 100, step: 1, unit: 'ms', label: 'jitter' },
  loss: { max: 50, step: 1, unit: '%', label: 'loss' },
};

/** Builds the panel into `#network-panel` (made when absent) and puts setLink on `target`. */
export function installNetworkPanel(
  link: NetworkSimulator,
  measure: () => { rttMs: number; packetLoss: number } | null,
  target: object,
): LinkControl {
  const control = target as LinkControl;
  control.link = { latency: 0, jitter: 0, loss: 0 };
  control.measured = { rtt: 0, loss: 0 };
  let host = document.getElementById('network-panel');
  if (host === null) {
    host = document.createElement('div');
    host.id = 'network-panel';
    document.body.appendChild(host);
  }
  host.textContent = '';
  const title = document.createElement('strong');
  title.textContent = 'Your link (simulated, both directions)';
  host.appendChild(title);
  const sliders = new Map<keyof LinkSettings, { input: HTMLInputElement; shown: HTMLElement }>();
  for (const key of Object.keys(RANGES) as (keyof LinkSettings)[]) {
    const range = RANGES[key];
    const row = document.createElement('label');
    const name = document.createElement('span');
    name.textContent = range.label;
    const input = document.createElement('input');
    input.type = 'range';
    input.min = '0';
    input.max = String(range.max);
    input.step = String(range.step);
    input.value = '0';
    input.dataset.link = key;
    const shown = document.createElement('output');
    input.addEventListener('input', () => control.setLink({ [key]: Number(input.value) }));
    row.append(name, input, shown);
    host.appendChild(row);
    sliders.set(key, { input, shown });
  }
  const readout = document.createElement('div');
  readout.className = 'measured';
  host.appendChild(readout);

  control.setLink = (settings) => {
    const next = { ...control.link };
    for (const key of Object.keys(RANGES) as (keyof LinkSettings)[]) {
      const value = settings[key];
      if (value === undefined) continue;
      if (typeof value !== 'number' || !(value >= 0 && value <= RANGES[key].max)) {
        throw new RangeError(`setLink: ${key} must be in [0, ${RANGES[key].max}], got ${value}`);
      }
      next[key] = value;
    }
    const conditions = { latencyMs: next.latency, jitterMs: next.jitter, loss: next.loss };
    link.setConditions('outgoing', conditions);
    link.setConditions('incoming', conditions);
    control.link = next;
    for (const [key, { input, shown }] of sliders) {
      input.value = String(next[key]);
      shown.textContent = `${next[key]} ${RANGES[key].unit}`;
    }
    return next;
  };
  control.setLink({});

  setInterval(() => {
    const figures = measure();
    if (figures === null) return;
    control.measured = { rtt: figures.rttMs, loss: figures.packetLoss };
    readout.textContent = `measured: RTT ${figures.rttMs.toFixed(0)} ms, loss ${figures.packetLoss.toFixed(1)}%`;
  }, 500);
  return control;
}
