/**
 * The bit writer and reader move whole 32-bit words through Uint32Array views, which use the
 * host's byte order. The wire is little-endian; every JavaScript engine in use is too. Refuse
 * loudly on anything else instead of producing wrong bytes.
 */
export function assertLittleEndianHost(): void {
  if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
    throw new Error('ghostwire: big-endian hosts are not supported (the bit stream is little-endian)');
  }
}
