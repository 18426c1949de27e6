export {
  BandwidthBudget,
  type BandwidthBudgetOptions,
  DEFAULT_BYTES_PER_PACKET,
  DEFAULT_KBPS,
} from './budget.js';
export { IdList } from './id-list.js';
export { InterestManager, type InterestManagerOptions, type RelevanceFilter } from './interest.js';
export { DEFAULT_LEAVE_FACTOR, InterestView, type InterestViewOptions } from './interest-view.js';
export {
  DEFAULT_DISTANCE_SCALE,
  type Importance,
  PriorityAccumulator,
  type PriorityOptions,
} from './priority.js';
export { DEFAULT_MAX_MISFITS, PrioritySelection } from './priority-selection.js';
export { type GridVisitor, SpatialGrid, type SpatialGridOptions } from './spatial-grid.js';
