/**
 * The README's schema example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
// #region readme
import { compile } from 'ghostwire/schema';
import { type Infer, t } from 'ghostwire';

const Entity = t.object({
  id: t.int(0, 4095),                                  // 12 bits
  position: t.vector3(t.float(-512, 512, 0.01)),       // 3 × 17 bits, quantized to 1 cm
  rotation: t.smallestThree(9),                        // 29 bits
  health: t.int(0, 100),                               // 7 bits
  name: t.optional(t.string(32)),                      // 1 bit when absent
  team: t.enum(['red', 'blue'] as const),              // 1 bit
});
type Entity = Infer<typeof Entity>; // { id: number; position: [number, number, number]; …; name?: string }

const Snapshot = compile(t.object({ tick: t.uint32(), entities: t.array(Entity, 1024) }));

const bytes = Snapshot.encode({ tick: 1, entities: [] }); // a view, valid until the next encode
const result = Snapshot.decode(bytes);                    // never throws on input
if (result.ok) console.log(result.value.tick);
else console.warn(result.error);                          // e.g. ".entities[3].health: int out of range [0, 100] at bit 500"
// #endregion

declare function send(bytes: Uint8Array): void;
declare const datagram: Uint8Array;
const state: Parameters<typeof Snapshot.encode>[0] = { tick: 0, entities: [] };

// #region readme
import { ReadStream, WriteStream } from 'ghostwire/serialize';

const out = new WriteStream(1200);
out.reset();
Snapshot.write(out, state);          // throws SchemaValueError naming the path of a bad value
send(out.finish());

const input = new ReadStream();
input.reset(datagram);
if (Snapshot.read(input, state) === null) console.warn(input.error); // fills `state` in place
// #endregion
