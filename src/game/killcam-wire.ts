/**
 * A kill-cam as the server sends it to one client, in a block on the game's reliable-ordered
 * channel: "GWKC" (u32 LE), the entity to follow (i32 LE, -1 for none), then a .gwr clip
 * (docs/replay-format.md). The clip is read as hostile (ReplayFile), like any file.
 */

export const KILLCAM_MAGIC = 0x434b5747; // "GWKC"
export const KILLCAM_HEAD_BYTES = 8;

export function encodeKillcam(follow: number, clip: Uint8Array): Uint8Array {
  const out = new Uint8Array(KILLCAM_HEAD_BYTES + clip.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, KILLCAM_MAGIC, true);
  view.setInt32(4, follow, true);
  out.set(clip, KILLCAM_HEAD_BYTES);
  return out;
}

/** The followed id and the clip, or null when the block is not a kill-cam. */
export function decodeKillcam(block: Uint8Array): { follow: number; clip: Uint8Array } | null {
  if (block.length < KILLCAM_HEAD_BYTES) return null;
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  if (view.getUint32(0, true) !== KILLCAM_MAGIC) return null;
  return { follow: view.getInt32(4, true), clip: block.subarray(KILLCAM_HEAD_BYTES) };
}
