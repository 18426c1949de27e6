/**
 * `npm run showcase`: a typical game state (1000 entities: id, position, rotation, velocity, health
 * and flags, the benchmarks' "W1" workload) encoded and decoded with a compiled ghostwire schema,
 * side by side with JSON: size, speed, precision.
 */
import { existsSync, readFileSync } from 'node:fs';
import { generateW1 } from '../bench/w1/data.js';
import { gameStateCodec } from '../bench/w1/schema.js';
import { commandLine } from '../scripts/cli.js';

commandLine({
  name: 'npm run showcase --',
  description:
    'Encodes and decodes a 1000-entity game state with a compiled schema beside JSON: bytes, ns per entity, precision (about 10 s).',
  flags: {},
});

const state = generateW1();
const entities = state.entities.length;

/** Median ns per entity of `run`, each sample running it for ~40 ms. */
function time(run: () => unknown): number {
  let iterations = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) run();
    if (performance.now() - start > 40) break;
    iterations *= 2;
  }
  const samples: number[] = [];
  for (let s = 0; s < 7; s++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) run();
    samples.push(((performance.now() - start) * 1e6) / iterations / entities);
  }
  return samples.sort((a, b) => a - b)[3];
}

const packet = gameStateCodec.encode(state).slice();
const json = new TextEncoder().encode(JSON.stringify(state));
const decoded = gameStateCodec.decode(packet);
if (!decoded.ok) throw new Error(`decode failed: ${decoded.error}`);

let worstPosition = 0;
decoded.value.entities.forEach((e, i) => {
  e.position.forEach((x, k) => {
    worstPosition = Math.max(worstPosition, Math.abs(x - state.entities[i].position[k]));
  });
});

// Decode into a reused state, as a game does every tick (no allocation per entity).
const target = decoded.value;
const rows = [
  [
    'ghostwire schema',
    packet.length,
    time(() => gameStateCodec.encode(state)),
    time(() => gameStateCodec.decode(packet, target)),
  ],
  [
    'JSON',
    json.length,
    time(() => JSON.stringify(state)),
    time(() => JSON.parse(new TextDecoder().decode(json))),
  ],
] as const;

console.log(
  `ghostwire showcase: the W1 game state, ${entities} entities (position, orientation, velocity, health, flags)\n`,
);
console.log('format             bytes   bytes/entity   encode ns/entity   decode ns/entity');
for (const [name, bytes, encode, decode] of rows) {
  console.log(
    `${name.padEnd(16)} ${String(bytes).padStart(7)} ${(bytes / entities).toFixed(1).padStart(14)} ${encode.toFixed(1).padStart(18)} ${decode.toFixed(1).padStart(18)}`,
  );
}
const [gw, js] = rows;
console.log(
  `\n${(js[1] / gw[1]).toFixed(1)}x smaller than JSON, encode ${(js[2] / gw[2]).toFixed(1)}x and decode ${(js[3] / gw[3]).toFixed(1)}x faster.`,
);
const referencePath = new URL('../../../shared/vectors/bench_gamestate_packet.bin', import.meta.url);
const reference = existsSync(referencePath) ? new Uint8Array(readFileSync(referencePath)) : null;
const identical =
  reference !== null && reference.length === packet.length && reference.every((b, i) => b === packet[i]);
console.log(
  `${(gameStateCodec.measure(state) - 10) / entities} bits per entity; ${
    reference === null
      ? 'the C++ reference packet (../shared/vectors) is not beside this checkout to compare with'
      : identical
        ? 'byte-identical to the packet the C++ reference bitpacker writes (checked now)'
        : 'DIFFERENT from the C++ reference packet'
  }.`,
);
console.log(
  `Worst position error ${worstPosition.toFixed(4)} (resolution 0.01: half a step plus float32 rounding).`,
);
if (reference !== null && !identical) process.exitCode = 1;
console.log('Run `npm run bench` for the full comparison (msgpackr, protobufjs, @colyseus/schema).');
