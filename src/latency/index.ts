export { type ClockJumpReason, ClockSync, type ClockSyncOptions } from './clock-sync.js';
export { MAX_RATE, MIN_RATE, TickClock, type TickClockOptions } from './tick-clock.js';
