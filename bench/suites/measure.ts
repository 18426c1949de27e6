/**
 * What MeasureStream costs per W1 entity next to actually writing it with WriteStream: measuring
 * runs the same serialize function but only adds up bit counts, so it should be a fraction of a
 * write and cheap enough to call on every message while packing.
 */
import { MeasureStream } from '../../src/serialize/measure-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { check, fail, measure, type SuiteContext } from '../harness.js';
import { generateW1 } from '../w1/data.js';
import { serializeGameState } from '../w1/stream.js';

export function runMeasure(ctx: SuiteContext): void {
  const state = generateW1();
  const entities = state.entities.length;
  const writer = new WriteStream(32 * 1024);
  const measurer = new MeasureStream();

  writer.reset();
  serializeGameState(writer, state);
  const bits = writer.bitsProcessed;
  measurer.reset();
  serializeGameState(measurer, state);
  check(measurer.bitsProcessed === bits, `measure: ${measurer.bitsProcessed} bits measured, ${bits} written`);

  const results = measure(
    [
      {
        name: 'WriteStream',
        units: entities,
        run(n) {
          let total = 0;
          for (let i = 0; i < n; i++) {
            writer.reset();
            serializeGameState(writer, state);
            total += writer.finish().length;
          }
          return total;
        },
        verify(n, result) {
          if (result !== n * Math.ceil(bits / 8))
            fail(`measure: WriteStream produced ${result} bytes in ${n} writes`);
        },
      },
      {
        name: 'MeasureStream',
        units: entities,
        run(n) {
          let total = 0;
          for (let i = 0; i < n; i++) {
            measurer.reset();
            serializeGameState(measurer, state);
            total += measurer.bitsProcessed;
          }
          return total;
        },
        verify(n, result) {
          if (result !== n * bits) fail(`measure: MeasureStream counted ${result} bits in ${n} measures`);
        },
      },
    ],
    ctx.options,
  );
  ctx.table({
    title: `MeasureStream vs WriteStream: whole W1 state (${entities} entities, ${bits} bits) per iteration`,
    unit: 'entity',
    baseline: 'WriteStream',
    results,
    notes: ['Both run bench/w1/stream.ts serializeGameState; measured bits equal written bits (checked).'],
  });
}
