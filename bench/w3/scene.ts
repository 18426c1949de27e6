/**
 * The W3 cube scene (../shared/workloads/W3.md), loaded from its reference generator at run time
 * (never copied here), and the cube entity type at Fiedler's precision: position at 1/512 m within
 * x, y in [-32, 32], z in [0, 8], orientation as smallest-three of 9 bits, an at-rest bit.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineEntity } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';

export interface SceneState {
  px: Float32Array;
  py: Float32Array;
  pz: Float32Array;
  qw: Float32Array;
  qx: Float32Array;
  qy: Float32Array;
  qz: Float32Array;
  rest: Uint8Array;
}

export interface SceneModule {
  CUBES: number;
  FRAMES: number;
  initialState(): SceneState;
  step(s: SceneState): void;
  fingerprint(s: SceneState): bigint;
}

/** W3.md's fingerprints: the generator loaded must reproduce them. */
export const FINGERPRINTS: ReadonlyMap<number, bigint> = new Map([
  [0, 0x0d8fddff982b9342n],
  [1, 0xdf3a9fd9aa77114bn],
  [60, 0x60d3688512d8644dn],
  [3600, 0xe20d368585a3b90an],
]);

const scenePath = fileURLToPath(new URL('../../../../shared/workloads/w3-scene.mjs', import.meta.url));

/** The reference generator, or a sentence saying why it is not here. */
export async function loadScene(): Promise<SceneModule | string> {
  if (!existsSync(scenePath)) return `${scenePath} is absent`;
  return (await import(pathToFileURL(scenePath).href)) as SceneModule;
}

export const CubeSchema = t.object({
  position: t.object({
    x: t.float(-32, 32, 1 / 512),
    y: t.float(-32, 32, 1 / 512),
    z: t.float(0, 8, 1 / 512),
  }),
  orientation: t.smallestThree(9),
  rest: t.bool(),
});
export const Cube = defineEntity('cube', CubeSchema);

export interface CubeValue {
  position: { x: number; y: number; z: number };
  orientation: [number, number, number, number];
  rest: boolean;
}

export const newCubeValue = (): CubeValue => ({
  position: { x: 0, y: 0, z: 0 },
  orientation: [0, 0, 0, 1],
  rest: true,
});

/** Cube k of the scene as the entity's value (filled into `out`). */
export function cubeValue(s: SceneState, k: number, out: CubeValue): CubeValue {
  out.position.x = s.px[k];
  out.position.y = s.py[k];
  out.position.z = s.pz[k];
  out.orientation[0] = s.qx[k];
  out.orientation[1] = s.qy[k];
  out.orientation[2] = s.qz[k];
  out.orientation[3] = s.qw[k];
  out.rest = s.rest[k] === 1;
  return out;
}

/**
 * The quantized integers of a cube as a peer without lanes would hold them: x, y, z, the packed
 * smallest-three (its lanes folded back in codec order, least significant first) and rest.
 */
export const QUANTIZED_FIELDS = 5;

/** Folds a state's lanes into the five quantized integers (into `out` at `at`). */
export function foldLanes(lanes: Uint32Array, out: Uint32Array, at: number): void {
  const layout = Cube.layout;
  let orientation = 0;
  let shift = 0;
  for (let i = 0; i < layout.lanes.length; i++) {
    const lane = layout.lanes[i];
    if (lane.path === '.position.x') out[at] = lanes[i];
    else if (lane.path === '.position.y') out[at + 1] = lanes[i];
    else if (lane.path === '.position.z') out[at + 2] = lanes[i];
    else if (lane.path === '.rest') out[at + 4] = lanes[i];
    else {
      orientation += lanes[i] * 2 ** shift;
      shift += lane.bits;
    }
  }
  out[at + 3] = orientation;
}
