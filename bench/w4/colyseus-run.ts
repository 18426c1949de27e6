/**
 * `npm run build && node dist/bench/w4/colyseus-run.js [--clients 100]`: the W4 arena through
 * @colyseus/schema's StateView (bench/w4/colyseus.ts); prints the medians per tick. About 10 s
 * at 100 clients and the default ticks.
 */
import { commandLine, flagValue, int, positiveIntegerFlag, resolveSeed } from '../../scripts/cli.js';
import { PHASES, runColyseusW4 } from './colyseus.js';
import { W4_ENTITIES } from './scene.js';

const args = commandLine({
  name: 'node dist/bench/w4/colyseus-run.js',
  description: 'The W4 arena replicated through @colyseus/schema StateViews; medians per tick.',
  flags: {
    clients: { arg: 'N', help: 'clients (default 100)' },
    entities: { arg: 'N', help: `entities (default ${W4_ENTITIES})` },
    ticks: { arg: 'N', help: 'measured ticks (default 200)' },
    warmup: { arg: 'N', help: 'ticks before measuring (default 40)' },
    verify: { arg: 'N', help: 'clients whose decoded state is checked every tick (default 1)' },
    seed: { arg: 'N', help: 'scene seed (default 0x5eed0004, or GW_SEED)' },
  },
});
const clients = flagValue(() => positiveIntegerFlag('--clients', args.clients, 100));
const entities = flagValue(() => positiveIntegerFlag('--entities', args.entities, W4_ENTITIES));
const ticks = flagValue(() => positiveIntegerFlag('--ticks', args.ticks, 200));
const warmupTicks = flagValue(() => positiveIntegerFlag('--warmup', args.warmup, 40));
const verifyClients =
  args.verify === '0' ? 0 : flagValue(() => positiveIntegerFlag('--verify', args.verify, 1));
const seed = flagValue(() =>
  args.seed === undefined && process.env.GW_SEED === undefined ? 0x5eed0004 : resolveSeed(args.seed),
);

console.log(
  `W4 through @colyseus/schema StateView: ${int(entities)} entities, ${clients} clients, ` +
    `${warmupTicks} + ${ticks} ticks, seed ${seed}`,
);
const r = runColyseusW4({ entities, clients, ticks, warmupTicks, seed, verifyClients });
const ms = (n: number) => n.toFixed(2);
console.log('phase       CPU ms/tick  wall ms/tick   (medians)');
for (const phase of PHASES)
  console.log(
    `${phase.padEnd(10)}  ${ms(r.phases[phase].cpuMs).padStart(11)}  ${ms(r.phases[phase].wallMs).padStart(12)}`,
  );
console.log(`total       ${ms(r.cpuMsPerTick).padStart(11)}  ${ms(r.wallMsPerTick).padStart(12)}`);
console.log(
  `no views    ${ms(r.cpuMsPerTickWithoutViews).padStart(11)}  ${ms(r.wallMsPerTickWithoutViews).padStart(12)}   (mutate + encode)`,
);
console.log(
  `per client per tick: ${r.bytesPerClientPerTick.toFixed(1)} B encoded (${r.kbitPerClient.toFixed(1)} kbit/s), ` +
    `${r.webSocketBytesPerClientPerTick.toFixed(1)} B with protocol byte + WebSocket header ` +
    `(${r.webSocketKbitPerClient.toFixed(1)} kbit/s), ${r.udpBytesPerClientPerTick.toFixed(1)} B with 28 B IPv4 + UDP ` +
    `(${r.udpKbitPerClient.toFixed(1)} kbit/s)`,
);
console.log(
  `relevant per client ${r.relevantPerClient.toFixed(1)}, entered + left per client per tick ` +
    `${r.churnPerClientPerTick.toFixed(2)}, shared encode ${r.sharedBytesPerTick} B`,
);
console.log(
  verifyClients === 0
    ? 'decoded state not checked (--verify 0)'
    : `decoded state of ${Math.min(verifyClients, clients)} client(s) checked every tick: ` +
        `${int(r.compared)} entity states compared, ${r.mismatches} mismatches`,
);
if (r.mismatches > 0) {
  console.error(`FAIL: ${r.firstMismatch}`);
  process.exit(1);
}
