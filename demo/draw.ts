/**
 * The demo page's picture: the arena around the player's avatar on a canvas (orbs and other
 * avatars as interpolated at the render tick, the player's avatar as predicted), and the text
 * overlay with the link's and the latency layer's figures; in the zoned demo, the zones' borders
 * (faint lines) and numbers under everything else.
 */
import { ARENA } from './game.js';
import { type DemoZoneGrid, zoneBorders } from './zone-grid.js';

/** Metres shown across the canvas: most of the arena. */
const VIEW_METRES = 48;

export interface Scene {
  /** The player's avatar as shown (predicted), or null before it is known. */
  me: { x: number; y: number; score: number } | null;
  /** Orb places. */
  orbs: { x: number; y: number }[];
  /** Places of the orbs just zapped (each respawns elsewhere: the ring shows where it went). */
  flashes: { x: number; y: number }[];
  /** Other avatars: places and entity ids. */
  others: { x: number; y: number; id: number }[];
  /** A spectator's camera: the view centres there (null: on the player). */
  camera?: { x: number; y: number } | null;
  /** Bolts: places, and whether predicted (this page's own, ahead of the server). */
  bolts: { x: number; y: number; predicted: boolean }[];
  /** Lines of the overlay. */
  overlay: string[];
  /** The zone grid (GET /zones), null in the unzoned demo: nothing drawn then. */
  zones: DemoZoneGrid | null;
}

/**
 * Draws one frame; the canvas keeps its size, the view centres on the player (else the arena).
 * Returns the zone border lines drawn (what the page reports, for tests).
 */
export function drawScene(context: CanvasRenderingContext2D, scene: Scene): number {
  const { width, height } = context.canvas;
  const scale = Math.min(width, height) / VIEW_METRES;
  const cx = scene.camera?.x ?? scene.me?.x ?? ARENA / 2;
  const cy = scene.camera?.y ?? scene.me?.y ?? ARENA / 2;
  const px = (x: number) => width / 2 + (x - cx) * scale;
  const py = (y: number) => height / 2 + (y - cy) * scale;

  context.fillStyle = '#0b1020';
  context.fillRect(0, 0, width, height);
  // The arena's edge.
  context.strokeStyle = '#2a3558';
  context.lineWidth = 2;
  context.strokeRect(px(0), py(0), ARENA * scale, ARENA * scale);
  const borders = scene.zones === null ? 0 : drawZones(context, scene.zones, px, py);

  context.fillStyle = '#6fd3ff';
  for (const orb of scene.orbs) {
    context.beginPath();
    context.arc(px(orb.x), py(orb.y), 0.5 * scale, 0, 2 * Math.PI);
    context.fill();
  }
  context.strokeStyle = '#ffe66d';
  context.lineWidth = 2;
  for (const orb of scene.flashes) {
    context.beginPath();
    context.arc(px(orb.x), py(orb.y), 1.2 * scale, 0, 2 * Math.PI);
    context.stroke();
  }
  for (const bolt of scene.bolts) {
    context.fillStyle = bolt.predicted ? '#ff6b81' : '#f8f8f8';
    context.beginPath();
    context.arc(px(bolt.x), py(bolt.y), 0.2 * scale, 0, 2 * Math.PI);
    context.fill();
  }
  for (const other of scene.others) disc(context, px(other.x), py(other.y), scale, '#ff9f43', `${other.id}`);
  if (scene.me !== null) disc(context, px(scene.me.x), py(scene.me.y), scale, '#7bed9f', 'you');

  context.font = '13px monospace';
  context.textBaseline = 'top';
  context.fillStyle = 'rgba(0, 0, 0, 0.55)';
  context.fillRect(8, 8, 250, 18 * scene.overlay.length + 8);
  context.fillStyle = '#e8ecf8';
  for (const [i, line] of scene.overlay.entries()) context.fillText(line, 14, 13 + 18 * i);
  return borders;
}

/** The borders between zones as faint dashed lines, and each zone's number at its centre. */
function drawZones(
  context: CanvasRenderingContext2D,
  grid: DemoZoneGrid,
  px: (x: number) => number,
  py: (y: number) => number,
): number {
  const lines = zoneBorders(grid);
  context.strokeStyle = 'rgba(160, 180, 255, 0.35)';
  context.lineWidth = 1;
  context.setLineDash([6, 6]);
  context.beginPath();
  for (const [x1, y1, x2, y2] of lines) {
    context.moveTo(px(x1), py(y1));
    context.lineTo(px(x2), py(y2));
  }
  context.stroke();
  context.setLineDash([]);
  const { minX, minY, maxX, maxY } = grid.bounds;
  const width = (maxX - minX) / grid.columns;
  const height = (maxY - minY) / grid.rows;
  context.font = '28px monospace';
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  context.fillStyle = 'rgba(160, 180, 255, 0.18)';
  // Zones are numbered row by row from (minX, minY), as ZoneMap numbers them.
  for (let zone = 0; zone < grid.columns * grid.rows; zone++) {
    const x = minX + ((zone % grid.columns) + 0.5) * width;
    const y = minY + (Math.floor(zone / grid.columns) + 0.5) * height;
    context.fillText(`zone ${zone}`, px(x), py(y));
  }
  context.textAlign = 'start';
  return lines.length;
}

function disc(
  context: CanvasRenderingContext2D,
  x: number,
  y: number,
  scale: number,
  colour: string,
  label: string,
) {
  context.fillStyle = colour;
  context.beginPath();
  context.arc(x, y, 0.8 * scale, 0, 2 * Math.PI);
  context.fill();
  context.font = '11px monospace';
  context.textBaseline = 'bottom';
  context.fillText(label, x + 1.4 * scale, y - 1.4 * scale);
}
