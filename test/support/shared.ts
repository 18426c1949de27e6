import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file holding ghostwire's package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && JSON.parse(readFileSync(candidate, 'utf8')).name === 'ghostwire') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('ghostwire package.json not found above the test files');
    dir = parent;
  }
}

/** `../shared` beside the checkout, or null when a user's fresh clone has none. */
export const sharedDir: string | null = (() => {
  const dir = join(repoRoot(), '..', 'shared');
  return existsSync(join(dir, 'vectors')) ? dir : null;
})();

/**
 * The switch `.ci/run` sets: with it the conformance vectors are required, and their absence fails
 * the run instead of skipping. Deliberately not `CI` (every public CI service sets that, and a
 * public fork has no ../shared).
 */
export const REQUIRE_VECTORS_ENV = 'GHOSTWIRE_REQUIRE_VECTORS';

/** The reason every conformance suite gives when it is skipped (the closing summary groups by it). */
export const NO_SHARED_REASON =
  'conformance vectors absent: ../shared/vectors is not beside this checkout (a fresh clone); GHOSTWIRE_REQUIRE_VECTORS=1 makes this a failure';

/**
 * Skip option for conformance tests: skipped (with a reason) where ../shared is absent, except
 * with GHOSTWIRE_REQUIRE_VECTORS=1, where its absence must fail the run rather than pass it silently.
 */
export function sharedSkip(): string | false {
  if (sharedDir !== null) return false;
  if (process.env[REQUIRE_VECTORS_ENV] === '1') return false;
  return NO_SHARED_REASON;
}

export function requireShared(): string {
  if (sharedDir === null)
    throw new Error(
      `../shared/vectors is missing; ${REQUIRE_VECTORS_ENV}=1 requires the conformance vectors`,
    );
  return sharedDir;
}

export function readSharedJson<T>(relative: string): T {
  return JSON.parse(readFileSync(join(requireShared(), relative), 'utf8')) as T;
}

export function readSharedBytes(relative: string): Uint8Array {
  return new Uint8Array(readFileSync(join(requireShared(), relative)));
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

export function fromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}
