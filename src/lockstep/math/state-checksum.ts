import { crc32 } from '../../serialize/crc32.js';

/**
 * The checksum peers exchange for a turn or frame: CRC-32 of the game state's bytes (serialize
 * the state with a schema or by hand; equal states must give equal bytes). CRC-32 finds every
 * burst of differing bits up to 32 long and any other difference with probability 1 - 2^-32.
 */
export function stateChecksum(bytes: Uint8Array): number {
  return crc32(bytes) >>> 0;
}
