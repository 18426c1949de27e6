/**
 * A zone thread: a worker_threads Worker that runs one or more zones of a world with ZoneRunner.
 * The supervisor (zone-supervisor.ts) starts it with the world's description in `workerData`;
 * it imports the game's rules module itself (functions do not cross threads), reaches the store
 * and feed through ports to the main thread (embedded) or its own Redis connections, and reports
 * its zones' load to the supervisor every second. Node-only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HandoffLatency } from './handoff-latency.js';
import { PortZoneFeed } from './port-zone-feed.js';
import { PortZoneStore } from './port-zone-store.js';
import type { ZoneFeed } from './zone-feed.js';
import { ZoneMap } from './zone-map.js';
import { loadZoneRules } from './zone-rules-module.js';
import { ZoneRunner } from './zone-runner.js';
import type { ZoneStore } from './zone-store.js';
import type {
  ZoneThreadCommand,
  ZoneThreadData,
  ZoneThreadMessage,
  ZoneThreadReport,
} from './zone-thread-protocol.js';
import { zoneCodecs } from './zone-wire.js';

const data = workerData as ZoneThreadData;
const port = parentPort;
if (port === null) throw new Error('zone-worker.js runs as a worker thread (the zone supervisor starts it)');

async function engine(): Promise<{ store: ZoneStore; feed: ZoneFeed; close: () => Promise<void> }> {
  if (data.engine.kind === 'embedded') {
    const store = new PortZoneStore(data.engine.storePort);
    const feed = new PortZoneFeed(data.engine.feedPort);
    return { store, feed, close: async () => void (await Promise.all([store.close(), feed.close()])) };
  }
  const { RedisZoneStore } = await import('./redis-zone-store.js');
  const { RedisZoneFeed } = await import('./redis-zone-feed.js');
  const { url, keyPrefix } = data.engine;
  const store = await RedisZoneStore.connect({ url, ...(keyPrefix === undefined ? {} : { keyPrefix }) });
  const feed = await RedisZoneFeed.connect({ url });
  return { store, feed, close: async () => void (await Promise.all([store.close(), feed.close()])) };
}

const { store, feed, close } = await engine();
const map = new ZoneMap(data.map);
const makeRules = await loadZoneRules(data.rulesUrl, data.rulesExport);
const runners = new Map<number, ZoneRunner>();
const tickMs = new Map<number, number[]>();
const latencies = new Map<number, HandoffLatency>();

function report(): void {
  const zones: ZoneThreadReport['zones'] = [];
  for (const [zone, runner] of runners) {
    const stats = runner.stats();
    zones.push({
      zone,
      stats,
      tickMs: tickMs.get(zone)?.splice(0) ?? [],
      handoffLatency: latencies.get(zone)!.counts(),
      nearBorder: data.borderRadius === undefined ? null : runner.zone.entitiesNearBorder(data.borderRadius),
    });
  }
  port!.postMessage({ kind: 'report', zones } satisfies ZoneThreadReport);
}

async function startZone(zone: number, force: boolean): Promise<void> {
  const rules = makeRules({ zone, zones: map.zoneCount });
  const latency = new HandoffLatency();
  latencies.set(zone, latency);
  const tickMsOfWorld = 1000 / rules.game.tickRate;
  const runner: ZoneRunner | null = await ZoneRunner.start({
    zone,
    processId: `${data.processId}/zone-${zone}`,
    rules,
    map,
    handoff: data.handoff,
    store,
    feed,
    codecs: zoneCodecs(rules.game),
    originMs: data.originMs,
    force,
    ...data.runner,
    onTickMs: (ms) => {
      const list = tickMs.get(zone) ?? [];
      if (list.length < 4096) list.push(ms);
      tickMs.set(zone, list);
      // The runner calls this right after each step: the entities handed here it just stepped first.
      const server = runners.get(zone)?.zone;
      if (server === undefined || server.steppedArrivals.length === 0) return;
      const now = Date.now();
      for (const decided of server.steppedArrivals)
        latency.record(server.tick - decided, now - (data.originMs + decided * tickMsOfWorld));
    },
    onFenced: () => {
      runners.delete(zone);
      port!.postMessage({ kind: 'fenced', zone } satisfies ZoneThreadMessage);
    },
  });
  if (runner === null) {
    port!.postMessage({ kind: 'refused', zone } satisfies ZoneThreadMessage);
    return;
  }
  runners.set(zone, runner);
  port!.postMessage({ kind: 'started', zone, epoch: runner.stats().epoch } satisfies ZoneThreadMessage);
}

const reporting = setInterval(report, data.reportMs ?? 1000);
port.on('message', (message: ZoneThreadCommand) => {
  void (async () => {
    if (message.kind === 'stop') {
      // A planned stop: each zone writes a last snapshot and gives its lease up, for another to take at once.
      clearInterval(reporting);
      for (const runner of runners.values()) {
        await runner.stop();
        await runner.snapshot().catch(() => false);
        await runner.release();
      }
      runners.clear();
      await close();
      port!.postMessage({ kind: 'stopped' } satisfies ZoneThreadMessage);
      port!.close();
    } else if (message.kind === 'start') {
      if (!runners.has(message.zone)) await startZone(message.zone, false);
    } else if (message.kind === 'release') {
      const runner = runners.get(message.zone);
      if (runner !== undefined) {
        await runner.stop();
        await runner.snapshot().catch(() => false);
        await runner.release();
        runners.delete(message.zone);
      }
      port!.postMessage({ kind: 'released', zone: message.zone } satisfies ZoneThreadMessage);
    }
  })().catch((error) =>
    port!.postMessage({ kind: 'error', message: String(error) } satisfies ZoneThreadMessage),
  );
});

for (const zone of data.zones) await startZone(zone, data.force);
