/**
 * The dashboard's Inspector tab (page side; the server side is demo/inspector-routes.ts): a
 * client list; for the chosen client, its newest packet: bits by category (a stacked bar), the
 * link (RTT, loss, flow mode), a table of the entities considered (verdict, priority, distance,
 * bits), what waited and why; a click on a row shows who holds that entity. The stream is open
 * only while the tab is shown and a client chosen: closing the tab closes it, and the server then
 * stops tracing. `window.inspector` reports what is drawn, for tests.
 */
import type { GamePacketTrace } from '../src/node.js';

export interface InspectorStatus {
  /** The client streamed now, or -1 (tab closed or none chosen). */
  client: number;
  packets: number;
  /** Table rows drawn for the newest packet, and how many show bits > 0. */
  rows: number;
  rowsWithBits: number;
  /** The holders shown after a click, as text. */
  holders: string;
}

declare global {
  interface Window {
    inspector: InspectorStatus;
  }
}

const CATEGORIES = ['head', 'destroys', 'creates', 'updates', 'events'] as const;
const COLOURS = ['#718096', '#f687b3', '#9ae6b4', '#90cdf4', '#fbd38d'];

/** Builds the panel into `root`; returns open/close for the tab. */
export function mountInspector(root: HTMLElement): { open(): void; close(): void } {
  const status: InspectorStatus = { client: -1, packets: 0, rows: 0, rowsWithBits: 0, holders: '' };
  window.inspector = status;
  root.innerHTML = `
    <p>Per packet of one client, as the server chose it: what was sent and why, and its bits.
       The server traces only while this tab streams a client.</p>
    <p>Client: <span id="insp-clients"></span></p>
    <p id="insp-link"></p>
    <div id="insp-bar" style="display:flex;height:18px;width:600px;background:#0b1020"></div>
    <p id="insp-bits"></p>
    <p id="insp-who"></p>
    <table><thead><tr><th>entity</th><th>type</th><th>verdict</th><th>priority</th><th>distance</th>
      <th>bits</th><th>waited</th></tr></thead><tbody id="insp-rows"></tbody></table>`;
  const $ = (id: string) => root.querySelector<HTMLElement>(`#${id}`)!;
  let source: EventSource | null = null;

  const stop = () => {
    source?.close();
    source = null;
    status.client = -1;
  };
  const choose = (client: number) => {
    stop();
    status.client = client;
    source = new EventSource(`inspect/stream?client=${client}`);
    source.addEventListener('packet', (event) => draw(JSON.parse((event as MessageEvent).data)));
  };
  const draw = (p: GamePacketTrace) => {
    status.packets++;
    const flow = p.flow === null ? 'fixed rate' : `${p.flow.mode} ${Math.round(p.flow.kbps)} kbit/s`;
    $('insp-link').textContent =
      `tick ${p.tick} · RTT ${Math.round(p.rttMs)} ms · loss ${(p.packetLoss * 100).toFixed(1)} % · ${flow} · room ${p.roomBits} bits (${p.budgetLimited ? 'set by the bandwidth budget' : 'set by the packet'})`;
    const categories = CATEGORIES.map((c) => `${c} ${p.bits[c]}`).join(' · ');
    $('insp-bits').textContent = `${categories} · total ${p.bits.total} bits`;
    const bar = $('insp-bar');
    bar.replaceChildren(
      ...CATEGORIES.map((c, i) => {
        const part = document.createElement('div');
        part.style.width = `${(100 * p.bits[c]) / Math.max(1, p.bits.total)}%`;
        part.style.background = COLOURS[i];
        part.title = `${c}: ${p.bits[c]} bits`;
        return part;
      }),
    );
    const rows = p.entities.map((e) => {
      const row = document.createElement('tr');
      for (const text of [
        e.id,
        e.type,
        e.verdict,
        e.priority.toFixed(2),
        e.distance.toFixed(1),
        e.bits,
        e.waited ?? '',
      ]) {
        const cell = document.createElement('td');
        cell.textContent = String(text);
        row.append(cell);
      }
      row.style.cursor = 'pointer';
      row.addEventListener('click', () => void who(e.id));
      return row;
    });
    $('insp-rows').replaceChildren(...rows);
    status.rows = rows.length;
    status.rowsWithBits = p.entities.filter((e) => e.bits > 0).length;
  };
  const who = async (id: number) => {
    const answer = (await (await fetch(`inspect/who?entity=${id}`)).json()) as {
      holders: { client: number; state: string }[];
    };
    status.holders = answer.holders.map((h) => `client ${h.client} (${h.state})`).join(', ');
    $('insp-who').textContent = `entity ${id} is held by: ${status.holders || 'nobody'}`;
  };
  const listClients = async () => {
    const clients = (await (await fetch('inspect/clients')).json()) as { index: number; avatar: number }[];
    $('insp-clients').replaceChildren(
      ...clients.map((c) => {
        const button = document.createElement('button');
        button.textContent = `#${c.index} (avatar ${c.avatar})`;
        button.dataset.client = String(c.index);
        button.addEventListener('click', () => choose(c.index));
        return button;
      }),
    );
  };
  return { open: () => void listClients(), close: stop };
}
