/**
 * A flood of tokenless WebSocket peers must not slow a connected client (issue 23, item 5): the
 * standard the UDP transport is held to, a real client's RTT p99 under the flood at most 1.5 × its
 * p99 without it, measured in one test on real sockets on loopback. 50 flooders, each from its own
 * 127.0.0.x address (so the per-address bound does not stop them), send 100-byte binary frames as
 * fast as their sockets take them, from a child process; quiet and flood phases alternate so that
 * the machine's other load falls on both alike.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { defineMessage, MessageClient, MessageFactory, MessageServer } from '../../src/channels/index.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { t } from '../../src/schema/schema.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client.js';
import { WebSocketServerTransport } from '../../src/transport/websocket-server.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/netcode-harness.js';
import { tokenFor, until, webSocketFrom } from '../support/websocket-loopback.js';

const Ping = defineMessage('ping', t.object({ n: t.uint32() }));
const factory = new MessageFactory([Ping]);
// Reliable: a ping lost to a full queue is resent, late, so loss shows in the RTT as it does in a game.
const channels = [{ kind: 'reliable-ordered' as const }];
const FLOODERS = 50;
const FRAME_BYTES = 100;
/** A 60 Hz game loop for both ends. */
const TICK_MS = 16;
const ROUNDS = 8;
const PHASE_SECONDS = 1.5;
/** The start of each phase is not measured: the flood starting or draining away. */
const SETTLE_SECONDS = 0.4;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

describe('WebSocket server transport under a flood without tokens', () => {
  it('50 tokenless peers flooding 100-byte frames: a connected client RTT p99 stays within 1.5 × its p99 without the flood', async () => {
    const transport = await WebSocketServerTransport.open();
    const server = new MessageServer({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      publicAddresses: [transport.localAddress],
      transports: [transport],
      aead: nodeAead,
      factory,
      channels,
      maxClients: 4,
    });
    const socket = new WebSocketClientTransport({
      url: `ws://${transport.localAddress}/`,
      serverAddress: transport.localAddress,
      WebSocket: webSocketFrom('127.0.0.2') as never,
    });
    const client = new MessageClient({ transport: socket, aead: nodeAead, factory, channels });
    const flooder = fork(
      fileURLToPath(new URL('../support/ws-flooder.js', import.meta.url)),
      [`ws://${transport.localAddress}/`, String(FLOODERS), '3', String(FRAME_BYTES)],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    const ready = new Promise<void>((resolve) => flooder.on('message', (m) => m === 'ready' && resolve()));
    const start = performance.now();
    const now = () => (performance.now() - start) / 1000;
    const sentAt = new Map<number, number>();
    let next = 0;
    let measuring: number[] | null = null;
    const tick = () => {
      const at = now();
      server.update(at);
      for (let i = 0; i < 4; i++) {
        if (!server.server.isConnected(i)) continue;
        for (let m = server.receive(i, 0); m !== null; m = server.receive(i, 0))
          if (m.is(Ping)) server.send(i, 0, Ping, m.value);
      }
      client.update(at);
      for (let m = client.receive(0); m !== null; m = client.receive(0)) {
        if (!m.is(Ping)) continue;
        const sent = sentAt.get(m.value.n);
        sentAt.delete(m.value.n);
        if (sent !== undefined) measuring?.push(performance.now() - sent);
      }
      if (client.connected) {
        sentAt.set(next, performance.now());
        client.send(0, Ping, { n: next++ });
        if (sentAt.size > 1000) sentAt.delete(sentAt.keys().next().value as number);
      }
    };
    const runFor = async (seconds: number) => {
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) {
        tick();
        await sleep(TICK_MS);
      }
    };
    const clean: number[] = [];
    /** The server process's CPU milliseconds in each measured phase, for the log. */
    const phases: string[] = [];
    const cpuMs = { quiet: 0, flood: 0 };
    const flood: number[] = [];
    try {
      client.connect(tokenFor(transport.localAddress, 1n), now());
      assert.ok(await until(() => client.connected, 5, tick), 'the real client connects');
      const gotReady = await Promise.race([ready.then(() => true), sleep(10_000).then(() => false)]);
      assert.ok(gotReady, 'every flooder opened');
      await runFor(1);
      const overRateBefore = transport.stats.overRate;
      for (let round = 0; round < ROUNDS; round++) {
        for (const [phase, samples] of [
          ['quiet', clean],
          ['flood', flood],
        ] as const) {
          flooder.send(phase);
          measuring = null;
          await runFor(SETTLE_SECONDS);
          measuring = samples;
          const cpu = process.cpuUsage();
          await runFor(PHASE_SECONDS - SETTLE_SECONDS);
          const used = process.cpuUsage(cpu);
          const ms = (used.user + used.system) / 1000;
          phases.push(`${phase} ${ms.toFixed(0)}`);
          cpuMs[phase] += ms;
        }
      }
      measuring = null;
      const p99Clean = percentile(clean, 0.99);
      const p99Flood = percentile(flood, 0.99);
      console.log(
        `RTT p50/p99 without flood ${percentile(clean, 0.5).toFixed(1)}/${p99Clean.toFixed(1)} ms (${clean.length} samples), ` +
          `under the flood ${percentile(flood, 0.5).toFixed(1)}/${p99Flood.toFixed(1)} ms (${flood.length} samples); ` +
          `ratio ${(p99Flood / p99Clean).toFixed(2)}; flood frames dropped over rate ${transport.stats.overRate - overRateBefore}, ` +
          `queue drops ${transport.stats.dropped}, peers refused ${transport.stats.peersRefused}; ` +
          `server CPU ms by phase: ${phases.join(', ')}`,
      );
      assert.ok(
        p99Flood <= 1.5 * p99Clean,
        `p99 under the flood ${p99Flood.toFixed(1)} ms > 1.5 × ${p99Clean.toFixed(1)} ms`,
      );
      assert.ok(clean.length > 300 && flood.length > 300, 'enough samples');
      // Process CPU time, which other load on the machine hardly moves: what the flood costs the server.
      assert.ok(
        cpuMs.flood <= 2 * cpuMs.quiet,
        `server CPU ${cpuMs.flood.toFixed(0)} ms under the flood > 2 × ${cpuMs.quiet.toFixed(0)} ms without`,
      );
      assert.ok(transport.stats.overRate > overRateBefore, 'the flood reached the server');
    } finally {
      const stopped = new Promise<void>((resolve) => flooder.once('exit', () => resolve()));
      flooder.send('stop');
      await Promise.race([stopped, sleep(3000)]);
      flooder.kill();
      socket.close();
      transport.close();
    }
  });
});
