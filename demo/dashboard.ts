/**
 * The dashboard page's script (bundled by demo/stats-routes.ts): the server's per-second samples
 * (GET /stats for the past, then /stats/stream live) plotted with uPlot, one chart per figure and
 * one line per client (bots and pages), the rules' tick time in its own chart, and a table of the
 * clients with their newest figures. `window.dashboard` reports what is drawn, for tests.
 */
import uPlot from 'uplot';
import { mountInspector } from './inspector-panel.js';
import type { ClientSample, StatsSample } from './stats.js';

type Figure = 'rtt' | 'loss' | 'kbpsUp' | 'kbpsDown' | 'relevant' | 'corrections';

const FIGURES: { key: Figure; title: string }[] = [
  { key: 'rtt', title: 'RTT (ms)' },
  { key: 'loss', title: 'Packet loss (%)' },
  { key: 'kbpsUp', title: 'Bandwidth up, client → server (kbit/s)' },
  { key: 'kbpsDown', title: 'Bandwidth down, server → client (kbit/s)' },
  { key: 'relevant', title: 'Entities replicated to it' },
  { key: 'corrections', title: 'Corrections (ticks without an input, per s)' },
];
const KEEP = 120;
const COLOURS = ['#4fd1c5', '#f6ad55', '#90cdf4', '#f687b3', '#9ae6b4', '#fbd38d', '#b794f4', '#feb2b2'];

export interface DashboardStatus {
  /** Samples received, charts drawn, and the points the charts plot now (every series, not null). */
  samples: number;
  charts: number;
  points: number;
  clients: string[];
  errors: string[];
}

declare global {
  interface Window {
    dashboard: DashboardStatus;
  }
}

const status: DashboardStatus = { samples: 0, charts: 0, points: 0, clients: [], errors: [] };
window.dashboard = status;
window.addEventListener('error', (event) => status.errors.push(String(event.message)));

/** The columns plotted: times, then per client name its figures (null while it was not there). */
const times: number[] = [];
const tickMs: number[] = [];
const tickMsMax: number[] = [];
const columns = new Map<string, Record<Figure, (number | null)[]>>();
let newest: StatsSample | null = null;
let charts: uPlot[] = [];
let plotted = '';

function add(sample: StatsSample): void {
  if (times.length > 0 && sample.t <= times[times.length - 1]) return; // already had it
  newest = sample;
  times.push(sample.t);
  tickMs.push(sample.tickMs);
  tickMsMax.push(sample.tickMsMax);
  const seen = new Set<string>();
  for (const client of sample.clients) {
    seen.add(client.name);
    let column = columns.get(client.name);
    if (column === undefined) {
      column = {} as Record<Figure, (number | null)[]>;
      for (const { key } of FIGURES) column[key] = new Array(times.length - 1).fill(null);
      columns.set(client.name, column);
    }
    for (const { key } of FIGURES) column[key].push(client[key]);
  }
  for (const [name, column] of columns) {
    if (!seen.has(name)) for (const { key } of FIGURES) column[key].push(null);
  }
  if (times.length > KEEP) {
    times.shift();
    tickMs.shift();
    tickMsMax.shift();
    for (const column of columns.values()) for (const { key } of FIGURES) column[key].shift();
  }
  // A client with nothing left in the window is forgotten.
  for (const [name, column] of columns) if (column.rtt.every((v) => v === null)) columns.delete(name);
  status.samples++;
}

function draw(): void {
  const names = [...columns.keys()].sort(byKindThenNumber);
  const key = names.join(',');
  const width = Math.min(560, document.body.clientWidth - 32);
  if (key !== plotted || charts.length === 0) {
    // The clients changed (or none yet, the first sample): the charts are made anew with a series each.
    for (const chart of charts) chart.destroy();
    charts = [];
    const host = document.getElementById('charts')!;
    host.textContent = '';
    for (const { title } of FIGURES) charts.push(chart(host, title, names, width));
    charts.push(chart(host, "The rules' tick time (ms per tick: mean, worst)", ['mean', 'worst'], width));
    plotted = key;
  }
  FIGURES.forEach(({ key }, i) => {
    charts[i].setData([times, ...names.map((name) => columns.get(name)![key])] as uPlot.AlignedData);
  });
  charts[FIGURES.length].setData([times, tickMs, tickMsMax]);
  status.charts = charts.length;
  let points = 2 * times.length; // the tick chart's two series
  for (const column of columns.values()) {
    for (const { key } of FIGURES) for (const v of column[key]) if (v !== null) points++;
  }
  status.points = points;
  status.clients = names;
  table(names);
}

function chart(host: HTMLElement, title: string, names: string[], width: number): uPlot {
  const div = document.createElement('div');
  div.className = 'chart';
  host.appendChild(div);
  return new uPlot(
    {
      title,
      width,
      height: 180,
      series: [
        {},
        ...names.map((label, i) => ({
          label,
          stroke: COLOURS[i % COLOURS.length],
          width: 1.5,
          spanGaps: false,
        })),
      ],
      axes: [
        { stroke: '#8a94b8', grid: { stroke: '#1c2440' } },
        { stroke: '#8a94b8', grid: { stroke: '#1c2440' }, size: 50 },
      ],
      scales: { y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max)] } },
    },
    [times, ...names.map(() => [])] as uPlot.AlignedData,
    div,
  );
}

function table(names: string[]): void {
  const body = document.getElementById('clients')!;
  const byName = new Map<string, ClientSample>((newest?.clients ?? []).map((c) => [c.name, c]));
  const rows = names.map((name) => {
    const c = byName.get(name);
    if (c === undefined) return `<tr><td>${name}</td><td colspan="7">gone</td></tr>`;
    return `<tr><td>${name}</td><td>${c.index}</td><td>${c.rtt.toFixed(0)}</td><td>${c.loss.toFixed(1)}</td><td>${c.kbpsUp.toFixed(0)}</td><td>${c.kbpsDown.toFixed(0)}</td><td>${c.relevant}</td><td>${c.corrections}</td></tr>`;
  });
  body.innerHTML = rows.join('');
  const tick = document.getElementById('tick')!;
  tick.textContent =
    newest === null
      ? ''
      : `server: ${newest.ticks} ticks last second, ${newest.tickMs} ms per tick in the rules`;
}

function byKindThenNumber(a: string, b: string): number {
  const [ka, na] = a.split(' ');
  const [kb, nb] = b.split(' ');
  return ka === kb ? Number(na) - Number(nb) : ka < kb ? -1 : 1;
}

async function main(): Promise<void> {
  const past = (await (await fetch('stats')).json()) as { samples: StatsSample[] };
  for (const sample of past.samples) add(sample);
  draw();
  const events = new EventSource('stats/stream');
  events.addEventListener('sample', (event) => {
    add(JSON.parse((event as MessageEvent<string>).data) as StatsSample);
    draw();
  });
}

main().catch((error: unknown) => {
  status.errors.push(String((error as Error)?.stack ?? error));
  console.error(error);
});

// The tabs: the charts, and the network inspector (streams only while shown).
const inspector = mountInspector(document.getElementById('inspector-tab')!);
const showTab = (inspecting: boolean) => {
  document.getElementById('charts-tab')!.hidden = inspecting;
  document.getElementById('inspector-tab')!.hidden = !inspecting;
  if (inspecting) inspector.open();
  else inspector.close();
};
document.getElementById('tab-charts')!.addEventListener('click', () => showTab(false));
document.getElementById('tab-inspector')!.addEventListener('click', () => showTab(true));
