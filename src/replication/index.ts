export { IdList } from './id-list.js';
export { InterestManager, type InterestManagerOptions, type RelevanceFilter } from './interest.js';
export { DEFAULT_LEAVE_FACTOR, InterestView, type InterestViewOptions } from './interest-view.js';
export { type GridVisitor, SpatialGrid, type SpatialGridOptions } from './spatial-grid.js';
