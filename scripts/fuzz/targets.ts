import { DECODE_BOUND_TARGET, decodeBoundTarget } from '../decode-bound-target.js';
import { deriveSeed } from './helpers.js';
import type { Target } from './target.js';
import { envelopeTarget } from './targets-envelope.js';
import { opsTarget } from './targets-ops.js';
import { replayTarget } from './targets-replay.js';
import { kindsTarget, w1Target } from './targets-schema.js';
import { subsetTarget } from './targets-subset.js';
import { valueArb } from './values.js';

export const TARGET_NAMES = [
  'w1',
  'kinds',
  'envelope',
  'subset',
  'ops',
  DECODE_BOUND_TARGET,
  'replay',
] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export function createTarget(name: string, seed: number): Target<unknown> {
  const corpusSeed = deriveSeed(seed, `${name}/corpus`);
  switch (name) {
    case 'w1':
      return w1Target(corpusSeed) as Target<unknown>;
    case 'kinds':
      return kindsTarget(corpusSeed) as Target<unknown>;
    case 'envelope':
      return envelopeTarget(corpusSeed) as Target<unknown>;
    case 'subset':
      return subsetTarget(corpusSeed) as Target<unknown>;
    case 'ops':
      return opsTarget(corpusSeed) as Target<unknown>;
    case 'replay':
      return replayTarget(corpusSeed) as Target<unknown>;
    case DECODE_BOUND_TARGET:
      return decodeBoundTarget(corpusSeed, valueArb) as Target<unknown>;
    default:
      throw new Error(`unknown fuzz target ${JSON.stringify(name)} (known: ${TARGET_NAMES.join(', ')})`);
  }
}
