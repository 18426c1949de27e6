/**
 * Module resolution hooks (registered by hidden-packages.ts): the packages named in HIDDEN_PACKAGES
 * (comma-separated) resolve as if not installed, so a test sees what a user without them sees.
 */
const hidden = new Set((process.env.HIDDEN_PACKAGES ?? '').split(',').filter((name) => name !== ''));

type Next = (specifier: string, context: unknown) => Promise<unknown>;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<unknown> {
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0];
  if (hidden.has(name)) {
    const error = new Error(`Cannot find package '${name}' (hidden by the test)`) as Error & { code: string };
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
