/**
 * @colyseus/schema patching the W3 scene every frame at the same quantization: each cube a Schema
 * of the quantized integers (x, y, z as uint16, the packed smallest-three as uint32, rest as a
 * boolean) in an ArraySchema; each frame the changed fields are set, `encode()` gives the patch,
 * `discardChanges()` ends the frame, and a Decoder applies it on the "client", whose state is
 * checked against the quantized scene every frame.
 */
import { ArraySchema, Decoder, Encoder, type SchemaType, schema, t } from '@colyseus/schema';
import type { LaneState } from '../../src/replication/lane-state.js';
import {
  Cube,
  type CubeValue,
  cubeValue,
  foldLanes,
  newCubeValue,
  QUANTIZED_FIELDS,
  type SceneModule,
} from './scene.js';
import { type Rates, Traffic } from './traffic.js';

const CsCube = schema(
  { x: t.uint16(), y: t.uint16(), z: t.uint16(), orientation: t.uint32(), rest: t.boolean() },
  'W3Cube',
);
type CsCube = SchemaType<typeof CsCube>;
const CsScene = schema({ cubes: t.array(CsCube) }, 'W3Scene');
type CsScene = SchemaType<typeof CsScene>;

export interface ColyseusResult {
  readonly frames: number;
  /** One datagram assumed per frame (60 Hz), as ours sends. */
  readonly rates: Rates;
  /** Patch bytes of the first frame (the whole scene, as a joining client gets it). */
  readonly firstFrameBytes: number;
  /** Frames whose decoded state equalled the quantized scene (every frame is checked). */
  readonly agreeing: number;
}

function setCube(c: CsCube, q: Uint32Array, at: number, force: boolean): void {
  if (force || c.x !== q[at]) c.x = q[at];
  if (force || c.y !== q[at + 1]) c.y = q[at + 1];
  if (force || c.z !== q[at + 2]) c.z = q[at + 2];
  if (force || c.orientation !== q[at + 3]) c.orientation = q[at + 3];
  if (force || c.rest !== (q[at + 4] === 1)) c.rest = q[at + 4] === 1;
}

function sameCube(c: CsCube, q: Uint32Array, at: number): boolean {
  return (
    c.x === q[at] &&
    c.y === q[at + 1] &&
    c.z === q[at + 2] &&
    c.orientation === q[at + 3] &&
    c.rest === (q[at + 4] === 1)
  );
}

export function runColyseus(scene: SceneModule, frames: number): ColyseusResult {
  const cubes = scene.CUBES;
  const layout = Cube.layout;
  const state = scene.initialState();
  const value: CubeValue = newCubeValue();
  const lanes: LaneState = layout.createState();
  const quantized = new Uint32Array(cubes * QUANTIZED_FIELDS);
  const quantize = (k: number) => {
    layout.quantize(cubeValue(state, k, value), lanes);
    foldLanes(lanes.lanes, quantized, k * QUANTIZED_FIELDS);
  };
  Encoder.BUFFER_SIZE = 64 * 1024;
  const root = new CsScene();
  root.cubes = new ArraySchema<CsCube>();
  for (let k = 0; k < cubes; k++) {
    quantize(k);
    const c = new CsCube();
    setCube(c, quantized, k * QUANTIZED_FIELDS, true);
    root.cubes.push(c);
  }
  const encoder = new Encoder(root);
  const decoder = new Decoder(new CsScene());
  const traffic = new Traffic(frames, 60);
  const moving = new Uint8Array(cubes);
  let agreeing = 0;
  let firstFrameBytes = 0;
  for (let f = 1; f <= frames; f++) {
    scene.step(state);
    for (let k = 0; k < cubes; k++) {
      const still = state.rest[k] === 1;
      if (still && moving[k] === 0) continue;
      moving[k] = still ? 0 : 1;
      quantize(k);
      setCube(root.cubes[k], quantized, k * QUANTIZED_FIELDS, false);
    }
    const patch = encoder.encode();
    const bytes = patch.length;
    if (f === 1) firstFrameBytes = bytes;
    traffic.add(bytes, 1);
    decoder.decode(patch);
    encoder.discardChanges();
    const decoded = (decoder.state as CsScene).cubes;
    let same = decoded.length === cubes;
    for (let k = 0; same && k < cubes; k++) same = sameCube(decoded[k], quantized, k * QUANTIZED_FIELDS);
    if (same) agreeing++;
  }
  return { frames, rates: traffic.rates(1), firstFrameBytes, agreeing };
}
