/** The messages bench's workload, shared with its child process (bench/message-peer.ts), and its table printer. */

import type { MessageChannelConfig } from '../../src/channels/config.js';
import { defineMessage, MessageFactory } from '../../src/channels/message.js';
import { t } from '../../src/schema/schema.js';
import type { SuiteContext } from '../harness.js';

// --- shared with the child process (bench/message-peer.ts) ---------------------------------------

/** 32 bytes serialized: eight uint32, no type bits (one type). */
export const Bench32 = defineMessage('bench32', t.tuple(t.uint32(), 8));
export const benchFactory = new MessageFactory([Bench32]);
export const QUEUE_SIZE = 8192;
export const RESEND_INTERVAL = 0.1;
export const benchChannels: MessageChannelConfig[] = [
  {
    kind: 'reliable-ordered',
    sendQueueSize: QUEUE_SIZE,
    receiveQueueSize: QUEUE_SIZE,
    resendInterval: RESEND_INTERVAL,
  },
];
/** A send queue kept nearly full: QUEUE_SIZE less room for messages delivered but not yet acked. */
export const FULL_FILL = QUEUE_SIZE - 192;
export const PROTOCOL_ID = 0x6768_6f73_7477_6972n;
export type Words = [number, number, number, number, number, number, number, number];

/** Fills `value` with message number `n` (word 0) and words derived from it. */
export function fillWords(value: Words, n: number): Words {
  value[0] = n >>> 0;
  for (let i = 1; i < 8; i++) value[i] = (n ^ Math.imul(i, 0x9e3779b1)) >>> 0;
  return value;
}

/** True when `value` is exactly what fillWords(n) writes. */
export function wordsMatch(value: readonly number[], n: number): boolean {
  if (value.length !== 8 || value[0] !== n >>> 0) return false;
  for (let i = 1; i < 8; i++) if (value[i] !== (n ^ Math.imul(i, 0x9e3779b1)) >>> 0) return false;
  return true;
}

/** Prints a plain table: the first column left-aligned, the others right-aligned. */
export function printRows(ctx: SuiteContext, headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  ctx.note(line(headers));
  ctx.note(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) ctx.note(line(r));
}
