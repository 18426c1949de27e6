/**
 * CRC-32 throughput on a 1200-byte packet and a 64 KB block: ghostwire's crc32, the `crc-32`
 * package, and node:zlib's crc32 where the running Node has it (>= 20.15). All must agree.
 */
import * as zlib from 'node:zlib';
import CRC32 from 'crc-32';
import { crc32 } from '../../src/serialize/crc32.js';
import { check, measure, type SuiteContext, type Task } from '../harness.js';

const SIZES = [1200, 64 * 1024];

type Crc = (data: Uint8Array) => number;

export function runCrc32(ctx: SuiteContext): void {
  const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  const contestants: { name: string; crc: Crc }[] = [
    { name: 'ghostwire crc32', crc: (data) => crc32(data) },
    { name: 'crc-32 CRC32.buf', crc: (data) => CRC32.buf(data) >>> 0 },
  ];
  if (typeof zlibCrc32 === 'function')
    contestants.push({ name: 'node:zlib crc32', crc: (data) => zlibCrc32(data) });
  else ctx.note(`node:zlib crc32 is not in Node ${process.version} (added in 20.15): skipped`);

  // Agreement, untimed: the standard check value, chaining, sub-ranges, and every contestant on the inputs.
  const ascii = new TextEncoder().encode('123456789');
  for (const c of contestants)
    check(c.crc(ascii) === 0xcbf43926, `${c.name}: CRC of "123456789" is not cbf43926`);
  let seed = 0x2545f491;
  const random = (length: number) => {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      bytes[i] = seed & 0xff;
    }
    return bytes;
  };
  const inputs = SIZES.map(random);
  for (const data of inputs) {
    const expected = contestants[0].crc(data);
    for (const c of contestants) {
      check(
        c.crc(data) === expected,
        `${c.name}: CRC of ${data.length} bytes disagrees with ${contestants[0].name}`,
      );
    }
    for (const cut of [0, 1, 7, 8, 9, 600, data.length - 1, data.length]) {
      check(
        crc32(data, cut, data.length, crc32(data, 0, cut)) === expected,
        `ghostwire crc32: chaining at ${cut} of ${data.length} bytes disagrees`,
      );
      const end = Math.max(cut, 3);
      check(
        crc32(data, 3, end) === CRC32.buf(data.subarray(3, end)) >>> 0,
        `ghostwire crc32: range [3, ${cut}) disagrees with crc-32`,
      );
    }
  }

  inputs.forEach((data) => {
    const expected = contestants[0].crc(data);
    const tasks: Task[] = contestants.map((c) => ({
      name: c.name,
      units: data.length,
      run(n) {
        let bad = 0;
        for (let i = 0; i < n; i++) if (c.crc(data) !== expected) bad++;
        return bad;
      },
      verify(_n, result) {
        check(result === 0, `${c.name}: ${result} CRCs of ${data.length} bytes were wrong during timing`);
      },
    }));
    ctx.table({
      title: `CRC-32 of a ${data.length.toLocaleString('en-US')}-byte buffer`,
      unit: 'byte',
      baseline: contestants[0].name,
      results: measure(tasks, ctx.options),
      show: 'MB/s',
    });
  });
}
