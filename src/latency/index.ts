/**
 * `ghostwire/latency`: latency hiding: the tick clock and clock sync, inputs sent redundantly and
 * buffered, client prediction with reconciliation, interpolation, and lag compensation. Browser-safe.
 */
export { type ClockJumpReason, ClockSync, type ClockSyncOptions, type ClockSyncStats } from './clock-sync.js';
export {
  GhostSampler,
  type GhostSamplerOptions,
  interpolationDelayTicks,
  type SampleMode,
} from './ghost-sampler.js';
export type { InputBufferStats } from './input-buffer.js';
export { InputReceiver, type InputReceiverOptions } from './input-receiver.js';
export { InputSender, type InputSenderOptions, type InputSenderStats } from './input-sender.js';
export { compileInterpolator, type Interpolator, type InterpolatorOptions } from './interpolation.js';
export {
  InterpolationDelay,
  type InterpolationDelayOptions,
  type InterpolationDelayStats,
} from './interpolation-delay.js';
export {
  type BeyondClamp,
  LagCompensation,
  type LagCompensationOptions,
  type LagCompensationStats,
  type RewindClaim,
  type RewindOutcome,
} from './lag-compensation.js';
export { LatencyClient, type LatencyClientOptions } from './latency-client.js';
export {
  type PredictedTypeOptions,
  PredictedWorld,
  type PredictedWorldOptions,
  type PredictedWorldStats,
} from './predicted-world.js';
export { Predictor, type PredictorOptions, type PredictorStats } from './predictor.js';
export { compileQuantizer, type Quantizer } from './quantizer.js';
export { ReplayPlayer, type ReplayPlayerOptions } from './replay-player.js';
export { TickClock, type TickClockOptions } from './tick-clock.js';
