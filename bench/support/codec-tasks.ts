/**
 * The timed tasks of a whole-state codec contestant (W1, the lobby): one encode and one decode of
 * the prepared state per iteration, each batch checked by total size (encode) or decoded digest
 * (decode). Checks first, untimed, that two encodes of the same state are the same bytes.
 */
import { check, fail, type Task } from '../harness.js';

export interface StateCodec<D> {
  readonly name: string;
  encode(): Uint8Array;
  decode(bytes: Uint8Array): D;
  digest(decoded: D): number;
}

export function codecTasks<D>(
  c: StateCodec<D>,
  units: number,
  expectedDigest: number,
): { first: Uint8Array; encode: Task; decode: Task } {
  const first = c.encode().slice();
  const second = c.encode();
  check(
    second.length === first.length && second.every((b, i) => b === first[i]),
    `${c.name}: two encodes of the same state differ`,
  );
  const size = first.length;
  return {
    first,
    encode: {
      name: c.name,
      units,
      run(n) {
        let total = 0;
        for (let i = 0; i < n; i++) total += c.encode().length;
        return total;
      },
      verify(n, result) {
        if (result !== n * size) fail(`${c.name}: encodes produced ${result} bytes, expected ${n} x ${size}`);
      },
    },
    decode: {
      name: c.name,
      units,
      run(n) {
        let total = 0;
        for (let i = 0; i < n; i++) total += c.digest(c.decode(first));
        return total;
      },
      verify(n, result) {
        if (result !== n * expectedDigest)
          fail(`${c.name}: decode digest sum ${result}, expected ${n * expectedDigest}`);
      },
    },
  };
}
