/**
 * Player storage's limits, in one place: openGamerServices({ storage: { ... } }) overrides any.
 * A value is also bounded by the backend's body limit (maxBodyBytes, default 16384 for the whole
 * PUT body): raise both together.
 */
export interface StorageLimits {
  /** Largest value, bytes of its JSON text (default 16384). */
  maxValueBytes: number;
  /** Most documents one player holds, all collections together (default 256). */
  maxDocumentsPerPlayer: number;
  /** Deepest nesting of objects and arrays in a value (default 16). */
  maxDepth: number;
  /** Most values in one value: every object, array, key's value and element counted (default 2048). */
  maxNodes: number;
  /** Most documents one list page answers (default 100). */
  maxPageSize: number;
}

export const DEFAULT_STORAGE_LIMITS: Readonly<StorageLimits> = Object.freeze({
  maxValueBytes: 16384,
  maxDocumentsPerPlayer: 256,
  maxDepth: 16,
  maxNodes: 2048,
  maxPageSize: 100,
});

/** The limits `options` asks for over the defaults; throws naming a limit that is not a positive integer. */
export function storageLimits(options: Partial<StorageLimits> = {}): Readonly<StorageLimits> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('openGamerServices: storage must be an object of limits');
  const limits = { ...DEFAULT_STORAGE_LIMITS, ...options };
  for (const [name, value] of Object.entries(limits)) {
    if (!(name in DEFAULT_STORAGE_LIMITS)) throw new TypeError(`openGamerServices: no storage limit ${name}`);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`openGamerServices: storage.${name} must be an integer >= 1, got ${value}`);
  }
  return Object.freeze(limits);
}

/** Collection and key names: 1–64 of letters, digits, "_", "-" and ".". */
export const STORAGE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
