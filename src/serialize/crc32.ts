/**
 * Eight 256-entry tables for slice-by-8, in one array: table k (at k * 256) advances a byte that
 * sits k bytes before the end of an 8-byte block, so a block costs eight lookups and no shifts
 * between bytes. Built once at load (8 KiB).
 */
const TABLE = (() => {
  const t = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) {
      const prev = t[(k - 1) * 256 + i];
      t[k * 256 + i] = (prev >>> 8) ^ t[prev & 0xff];
    }
  }
  return t;
})();

/**
 * CRC-32 (IEEE 802.3, as zlib and PNG compute it) of `data[start, end)`, unsigned. `previous` is
 * the CRC of the bytes before, so `crc32(b, 0, b.length, crc32(a))` is the CRC of `a` then `b`.
 */
export function crc32(data: Uint8Array, start = 0, end = data.length, previous = 0): number {
  if (
    !(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= data.length)
  ) {
    throw new RangeError(`crc32: range [${start}, ${end}) is not within the ${data.length}-byte input`);
  }
  const t = TABLE;
  let crc = ~previous;
  let i = start;
  // Bytes are gathered one at a time so the input's offset and the host's byte order don't matter.
  for (const blockEnd = end - 7; i < blockEnd; i += 8) {
    const a = crc ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24));
    const b = data[i + 4] | (data[i + 5] << 8) | (data[i + 6] << 16) | (data[i + 7] << 24);
    crc =
      t[1792 + (a & 0xff)] ^
      t[1536 + ((a >>> 8) & 0xff)] ^
      t[1280 + ((a >>> 16) & 0xff)] ^
      t[1024 + (a >>> 24)] ^
      t[768 + (b & 0xff)] ^
      t[512 + ((b >>> 8) & 0xff)] ^
      t[256 + ((b >>> 16) & 0xff)] ^
      t[b >>> 24];
  }
  for (; i < end; i++) crc = t[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
