/**
 * Loading the optional packages (package.json's optional peerDependencies) only where they are
 * used, so that a codec-only or UDP-only install needs none of them, and a missing one fails with
 * the package to install instead of Node's "Cannot find package". Node-only.
 */
import { createRequire } from 'node:module';

/** Each optional package and the range to install (package.json's peerDependencies; a test pins them equal). */
export const OPTIONAL_PACKAGES = {
  ws: '8',
  'node-datachannel': '0.33',
  hono: '4',
  '@hono/node-server': '2',
  zod: '4',
  '@hono/zod-validator': '0.9',
  ioredis: '6',
  kysely: '0.29',
  pg: '8',
  '@electric-sql/pglite': '0.5',
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** The error for a missing optional package: what needs it and the command that installs it. */
export class MissingDependencyError extends Error {
  override readonly name = 'MissingDependencyError';
  constructor(
    readonly packageName: OptionalPackage,
    readonly neededBy: string,
    options?: ErrorOptions,
  ) {
    super(
      `${neededBy} needs the "${packageName}" package: npm install ${packageName}@${OPTIONAL_PACKAGES[packageName]}`,
      options,
    );
  }
}

/** Whether `error` says that `packageName` itself (not one of its own dependencies) is not installed. */
function isMissing(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = String((error as Error).message);
  return message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`);
}

/**
 * Awaits `load` (an `() => import('pkg')` written at the call site, so the type is the package's
 * own); a missing `packageName` becomes a MissingDependencyError naming `neededBy`.
 */
export async function importOptional<T>(
  packageName: OptionalPackage,
  neededBy: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, packageName))
      throw new MissingDependencyError(packageName, neededBy, { cause: error });
    throw error;
  }
}

const require = createRequire(import.meta.url);

/**
 * Loads the CommonJS package `packageName` synchronously, for a constructor that needs it; the
 * caller states its type (`requireOptional<typeof import('pkg')>`).
 */
export function requireOptional<T>(packageName: OptionalPackage, neededBy: string): T {
  try {
    return require(packageName) as T;
  } catch (error) {
    if (isMissing(error, packageName))
      throw new MissingDependencyError(packageName, neededBy, { cause: error });
    throw error;
  }
}
