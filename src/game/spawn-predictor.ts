/**
 * The client's side of predicted spawns: on each predicted tick, before its input is sent, the
 * game's `spawns` runs on the player's predicted state after `step`; each spawn of a type predicted
 * by its spawner enters the PredictedWorld (shown at once), and its key is claimed in the input.
 */
import type { LatencyClient } from '../latency/latency-client.js';
import type { PredictedWorld } from '../latency/predicted-world.js';
import type { Predictor } from '../latency/predictor.js';
import { compileQuantizer, type Quantizer } from '../latency/quantizer.js';
import type { GameDefinition, GameWiring } from './define-game.js';
import { type ClaimedInput, MAX_SPAWN_KEYS } from './game-prediction.js';

export class SpawnPredictor {
  private readonly quantizeInput: Quantizer<unknown>;
  private readonly quantizeState: Quantizer<unknown>;

  constructor(
    private readonly game: GameDefinition,
    private readonly wiring: GameWiring,
    private readonly predictor: Predictor<unknown, ClaimedInput>,
    // biome-ignore lint/suspicious/noExplicitAny: the latency client of any game
    private readonly latency: LatencyClient<any, any>,
    private readonly world: PredictedWorld | null,
  ) {
    this.quantizeInput = compileQuantizer(game.input);
    this.quantizeState = compileQuantizer(wiring.playerType.layout.schema);
  }

  /**
   * The input of predicted tick `tick` as sent: with spawns, the game's input and the keys of the
   * spawns predicted; else the input. The predicted entities move to `tick` first.
   */
  produce(tick: number, input: unknown): ClaimedInput | unknown {
    const world = this.world;
    let claims = 0;
    if (world !== null) {
      world.advance(tick);
      const predictor = this.predictor;
      const spawns = this.wiring.prediction.spawns;
      if (spawns !== null && this.latency.predicting && predictor.tick === tick - 1) {
        // As the server will: its step on the quantized input, then spawns on the state after it.
        const taken = this.quantizeInput(input);
        const after = this.quantizeState(this.game.step(predictor.state, taken));
        const list = spawns(after, taken);
        let count = 0;
        for (const spawn of list) {
          if (count >= this.wiring.prediction.maxSpawnsPerTick) break;
          const type = this.game.entityTypes[spawn.type];
          const key = spawn.key;
          if (type === undefined || !this.wiring.prediction.spawner.has(type)) continue;
          if (!Number.isInteger(key) || key < 0 || key >= MAX_SPAWN_KEYS || (claims & (1 << key)) !== 0)
            continue;
          if (world.spawn(tick, key, type, spawn.state)) {
            claims |= 1 << key;
            count++;
          }
        }
      }
    }
    if (this.wiring.prediction.wireInput === null) return input;
    return claims === 0 ? { input } : { input, claims };
  }
}
