/**
 * One zone process of a world on Redis, for the convergence test, as a child process with an IPC
 * channel: runs the zones it lists with ZoneRunner in its own thread (standing by for any held
 * elsewhere, and taking it once its lease lapses), and tells its parent, in batches:
 * - `owned`: the world ids each zone owned at every tick it stepped (read just before the step,
 *   so an entity handed off during tick T is the old zone's at T and the new one's from T + 1);
 * - `late`: an entity that entered a zone already past its handoff's tick: the zone owns it from
 *   that tick, though it did not step the ticks it missed;
 * - `started` and `fenced`: a zone taken (its epoch, the tick it resumed after) or lost;
 * - `late-inputs`: each zone's inputs refused as late so far (a killed process's count dies with it
 *   otherwise).
 * Asked (`ask`), it answers with each zone's entities (states through the schema's codec: the
 * quantized states a gateway mirrors), its players' data and its runner's figures. Told (`moving`),
 * it holds the wanderers still or moves them from a world tick on.
 *
 * Not ZonedWorld: its zones run in worker threads, out of reach of a per-tick log of world ids.
 * argv: redis URL, origin ms, zones (comma-separated), lease ms; seed and wanderers from the env
 * (GW_ZONE_TEST_SEED, GW_ZONE_TEST_WANDERERS). Prints "ready" once every zone ran or stood by.
 */
import { wiringOf } from '../../src/game/define-game.js';
import { compile } from '../../src/schema/codec.js';
import { RedisZoneFeed } from '../../src/zones/redis-zone-feed.js';
import { RedisZoneStore } from '../../src/zones/redis-zone-store.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type { EntityRecord } from '../../src/zones/zone-messages.js';
import { ZoneRunner } from '../../src/zones/zone-runner.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import type { AuditAnswer, AuditCommand, AuditEvent, ZoneView } from './zone-audit-protocol.js';
import { SIDE, zoneGame, zoneRules } from './zone-game.js';

const [redis, origin, zoneList, lease] = process.argv.slice(2);
const originMs = Number(origin);
const leaseTtlMs = Number(lease);
const zones = zoneList.split(',').map(Number);
const seed = Number(process.env.GW_ZONE_TEST_SEED ?? 1) >>> 0;
const wanderers = Number(process.env.GW_ZONE_TEST_WANDERERS ?? 40);
const send = (message: AuditEvent | AuditAnswer) => process.send?.(message);

// The map ZonedWorld makes of 2 × 2 (the gateway's): one cell per zone.
const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, 2, 2, 2, 2);
const codecs = zoneCodecs(zoneGame);
const types = wiringOf('zone-audit-machine', zoneGame).types;
const stateCodecs = new Map(types.map((type) => [type.name, compile(type.schema)]));
const quantized = (type: string, state: unknown) => {
  const codec = stateCodecs.get(type)!;
  const read = codec.decode(codec.encode(state));
  if (!read.ok) throw new Error(`${type}: ${read.error}`);
  return read.value;
};

/** From which world tick the wanderers move or stand still: [tick, moving], in the order told. */
const switches: [number, boolean][] = [];
const moving = (tick: number) => {
  let now = true;
  for (const [from, move] of switches) if (tick >= from) now = move;
  return now;
};

const errors: string[] = [];
const events: AuditEvent[] = [];
const store = await RedisZoneStore.connect({ url: redis });
const feed = await RedisZoneFeed.connect({ url: redis, onError: () => {} });
const runners = new Map<number, ZoneRunner>();
const starting = new Set<number>();

async function take(zone: number): Promise<void> {
  if (runners.has(zone) || starting.has(zone)) return;
  starting.add(zone);
  let epoch = -1;
  try {
    const runner = await ZoneRunner.start({
      zone,
      processId: `audit-${process.pid}/zone-${zone}`,
      rules: zoneRules(zone, seed, wanderers, moving),
      map,
      handoff: { margin: 2, minDwellTicks: 9 },
      store,
      feed,
      codecs,
      originMs,
      leaseTtlMs,
      snapshotTicks: 5,
      onError: (error, where) => {
        if (errors.length < 50) errors.push(`zone ${zone}: ${where}: ${error}`);
      },
      onFenced: () => {
        runners.delete(zone);
        events.push({ kind: 'fenced', zone, epoch });
      },
    });
    if (runner === null) return; // held elsewhere: stand by
    epoch = runner.stats().epoch;
    watch(runner, zone, epoch);
    runners.set(zone, runner);
    events.push({ kind: 'started', zone, epoch, tick: runner.zone.tick });
  } catch (error) {
    if (errors.length < 50) errors.push(`zone ${zone}: start: ${error}`);
  } finally {
    starting.delete(zone);
  }
}

/** Logs what the zone owns before each step, and each entity that enters it late. */
function watch(runner: ZoneRunner, zone: number, epoch: number): void {
  const server = runner.zone;
  const simulation = server.simulation;
  const step = server.step.bind(server);
  server.step = () => {
    const ids = simulation.owned.map((handle) => simulation.worldIds[handle.id]);
    events.push({ kind: 'owned', zone, epoch, tick: server.tick + 1, ids });
    return step();
  };
  const arrive = server.arrive.bind(server);
  server.arrive = (record: EntityRecord, fromTick = server.tick + 1) => {
    const entered = arrive(record, fromTick);
    if (entered && fromTick <= server.tick)
      events.push({ kind: 'late', zone, epoch, worldId: record.worldId, fromTick, tick: server.tick });
    return entered;
  };
}

function view(zone: number, runner: ZoneRunner): ZoneView {
  const simulation = runner.zone.simulation;
  return {
    zone,
    epoch: runner.stats().epoch,
    tick: runner.zone.tick,
    entities: simulation.owned.map((handle) => ({
      worldId: simulation.worldIds[handle.id],
      type: handle.type,
      state: quantized(handle.type, handle.state),
    })),
    players: simulation.players.map((player) => {
      const own = player.entity as { id: number } | null;
      return {
        playerId: simulation.playerIdAt(player.index),
        worldId: own === null ? -1 : simulation.worldIds[own.id],
        data: structuredClone(player.data),
      };
    }),
    stats: runner.stats(),
  };
}

process.on('message', (command: AuditCommand) => {
  if (command.kind === 'moving') switches.push([command.fromTick, command.moving]);
  else if (command.kind === 'ask') {
    flush();
    send({
      kind: 'answer',
      id: command.id,
      zones: [...runners].map(([zone, runner]) => view(zone, runner)),
      errors: errors.splice(0),
    });
  }
});

function flush(): void {
  for (const [zone, runner] of runners) {
    const stats = runner.stats();
    events.push({ kind: 'late-inputs', zone, epoch: stats.epoch, count: stats.inputsRefused.late });
  }
  send({ kind: 'events', events: events.splice(0) });
}

for (const zone of zones) await take(zone);
setInterval(flush, 100);
// A standby tries the zones it does not run every half lease: it takes one once its holder's lapsed.
setInterval(() => {
  for (const zone of zones) if (!runners.has(zone)) void take(zone);
}, leaseTtlMs / 2);
// The test process gone (its IPC channel closed), this one goes too.
process.on('disconnect', () => process.exit(0));
process.stdout.write('ready\n');
