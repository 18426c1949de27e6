/**
 * A kill-cam as the server sends it to one client, in a block on the game's reliable-ordered
 * channel: "GWKC" (u32 LE), the entity to follow (i32 LE, -1 for none), the view delay in ticks
 * (f32 LE: how far behind its own entity the killer saw the others, its interpolation delay), then
 * a .gwr clip (docs/replay-format.md). The clip is read as hostile (ReplayFile), like any file.
 */

export const KILLCAM_MAGIC = 0x434b5747; // "GWKC"
export const KILLCAM_HEAD_BYTES = 12;
/** A view delay past this many ticks is refused (a live client's is a few). */
export const MAX_VIEW_DELAY_TICKS = 255;

export function encodeKillcam(follow: number, clip: Uint8Array, viewDelayTicks = 0): Uint8Array {
  const out = new Uint8Array(KILLCAM_HEAD_BYTES + clip.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, KILLCAM_MAGIC, true);
  view.setInt32(4, follow, true);
  view.setFloat32(8, viewDelayTicks, true);
  out.set(clip, KILLCAM_HEAD_BYTES);
  return out;
}

/** The followed id, the view delay (unchecked: see MAX_VIEW_DELAY_TICKS) and the clip; null when the block is not a kill-cam. */
export function decodeKillcam(
  block: Uint8Array,
): { follow: number; viewDelayTicks: number; clip: Uint8Array } | null {
  if (block.length < KILLCAM_HEAD_BYTES) return null;
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  if (view.getUint32(0, true) !== KILLCAM_MAGIC) return null;
  return {
    follow: view.getInt32(4, true),
    viewDelayTicks: view.getFloat32(8, true),
    clip: block.subarray(KILLCAM_HEAD_BYTES),
  };
}
