/** The messages bench, part 3: latency of reliable messages under loss. */

import type { ChannelConfig } from '../../src/channels/config.js';
import type { NetworkSimulator } from '../../src/transport/network-simulator.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { expectNext, netcodePair } from './pair.js';
import { Bench32, benchChannels, fillWords, printRows, RESEND_INTERVAL } from './shared.js';

// --- 3. latency under loss ------------------------------------------------------------------------

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const LATENCY_MS = 50;
const LOSS_PERCENT = 5;
const HZ = 60;
const PER_TICK = 4;

/** One simulated run: latencies (ms, sorted) of every message, and the simulator's counters. */
function latencyRun(resendInterval: number, resendCopies: number, seconds: number) {
  const channels: ChannelConfig[] = [{ ...benchChannels[0], resendInterval, resendCopies }];
  const p = netcodePair({ simulate: { latency: LATENCY_MS, loss: LOSS_PERCENT, seed: 0x5eed }, channels });
  const index = p.clientIndex;
  const base = Math.round(p.now * HZ) + 1;
  const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
  const sentAt: number[] = [];
  const latencies: number[] = [];
  let expected = 0;
  const ticks = seconds * HZ;
  // Send for `seconds`, then let the last ones arrive.
  for (let k = 0; k < ticks + 5 * HZ && expected < ticks * PER_TICK; k++) {
    const tick = base + k;
    const now = tick / HZ;
    if (k < ticks) {
      for (let i = 0; i < PER_TICK; i++) {
        sentAt.push(now);
        p.client.send(0, Bench32, fillWords(value, sentAt.length - 1));
      }
    }
    p.now = now;
    p.client.update(now); // releases what the simulator holds, then sends this tick's packet
    p.server.update(now);
    for (let m = p.server.receive(index, 0); m !== null; m = p.server.receive(index, 0)) {
      latencies.push((now - sentAt[expected]) * 1000);
      expected = expectNext(m, expected, 'latency');
    }
  }
  check(expected === sentAt.length, `messages: latency: ${expected} of ${sentAt.length} delivered`);
  return {
    sorted: latencies.sort((a, b) => a - b),
    link: (p.link as NetworkSimulator).stats(),
    sends: (sentAt.length + p.client.stats().messages.messagesResent) / sentAt.length,
  };
}

export function runLatency(ctx: SuiteContext): void {
  const seconds = ctx.options.quick ? 60 : 300;
  const tickMs = 1000 / HZ;
  const ideal = LATENCY_MS + tickMs;
  const bound = LATENCY_MS + RESEND_INTERVAL * 1000 + tickMs;
  ctx.note('');
  ctx.note(
    `Reliable delivery latency: MessageClient -> MessageServer in memory through a NetworkSimulator, ${LATENCY_MS} ms one-way latency and ${LOSS_PERCENT}% loss`,
  );
  ctx.note(
    `each way (acks too), simulated time, ${HZ} Hz ticks (client update, then server update), ${PER_TICK} messages per tick for ${seconds} s, same seed per row;`,
  );
  ctx.note(
    'latency = receive tick time - send tick time (queued just before the client update that sends it).',
  );
  ctx.note(
    `ideal = one-way latency + one tick = ${ideal.toFixed(1)} ms; issue bound = latency + resend interval (${RESEND_INTERVAL * 1000} ms) + one tick = ${bound.toFixed(1)} ms.`,
  );
  const rows: string[][] = [];
  const policies = [
    {
      name: `resendInterval ${RESEND_INTERVAL * 1000} ms, resendCopies 2 (default)`,
      interval: RESEND_INTERVAL,
      copies: 2,
    },
    {
      name: `resendInterval ${RESEND_INTERVAL * 1000} ms, resendCopies 1 (reference)`,
      interval: RESEND_INTERVAL,
      copies: 1,
    },
    { name: 'resendInterval 0 (every packet)', interval: 0, copies: 1 },
  ];
  for (const policy of policies) {
    const { sorted, link, sends } = latencyRun(policy.interval, policy.copies, seconds);
    const within = (limit: number) => sorted.filter((v) => v <= limit + 1e-6).length / sorted.length;
    const p99 = percentile(sorted, 99);
    rows.push([
      policy.name,
      fmt(sorted.length),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 90).toFixed(1),
      p99.toFixed(1),
      percentile(sorted, 99.9).toFixed(1),
      sorted[sorted.length - 1].toFixed(1),
      `${(within(ideal) * 100).toFixed(1)}%`,
      `${(within(bound) * 100).toFixed(2)}%`,
      p99 <= bound + 1e-6 ? 'yes' : 'NO',
      sends.toFixed(2),
      `${link.outgoing.lost}/${link.outgoing.offered}, ${link.incoming.lost}/${link.incoming.offered}`,
    ]);
    ctx.record(`latency resend ${policy.interval} copies ${policy.copies}`, {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99,
      p999: percentile(sorted, 99.9),
      max: sorted[sorted.length - 1],
      ideal,
      bound,
      withinIdeal: within(ideal),
      withinBound: within(bound),
      messages: sorted.length,
      sendsPerMessage: sends,
    });
  }
  printRows(
    ctx,
    [
      'channel',
      'messages',
      'p50 ms',
      'p90',
      'p99',
      'p99.9',
      'max',
      '<= ideal',
      '<= bound',
      'p99 in bound',
      'sends / message',
      'datagrams lost c->s, s->c',
    ],
    rows,
  );
  ctx.note(
    '  resendInterval 0: an unacked message rides again in every packet (room permitting); at 4 messages per tick the packets have room.',
  );
}
