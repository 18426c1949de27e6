import assert from 'node:assert/strict';

/** Polls `check` every 20 ms until it holds; fails naming `what` after `ms`. */
export async function until(
  what: string,
  ms: number,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
