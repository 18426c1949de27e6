/**
 * A node:test reporter that prints nothing until the run ends, then what a reader of the last
 * lines of `npm test` needs: one line per distinct skip reason naming what was skipped (what the run
 * did not check and why), then, when tests failed, one line per failing test with its file, its
 * suite path and the first line of its error. Both are otherwise buried thousands of lines up in
 * the TAP stream that `npm test` prints beside it. Prints nothing for a clean run with no skips.
 */
import { relative } from 'node:path';

export interface TestEvent {
  type: string;
  data: {
    name: string;
    nesting: number;
    file?: string;
    skip?: string | boolean;
    todo?: string | boolean;
    details?: { type?: string; error?: unknown };
  };
}

/** More failing tests than this are counted, not listed. */
const MAX_LISTED_FAILURES = 40;

/** The first line of a test's error (the failure node:test wraps it in), plus the next for `...:` lines. */
export function errorHeadline(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  const text = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : String(cause);
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) return cause instanceof Error ? cause.name : '(no message)';
  // assert's messages put the values on the line after "Expected values to be strictly equal:".
  return lines[0].endsWith(':') && lines.length > 1 ? `${lines[0]} ${lines[1]}` : lines[0];
}

/** A suite whose only failure is its subtests': the subtests are listed instead. */
function onlySubtestsFailed(details: TestEvent['data']['details']): boolean {
  return (details?.error as { failureType?: string } | undefined)?.failureType === 'subtestsFailed';
}

export default async function* runSummary(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const byReason = new Map<string, string[]>();
  const failures: string[] = [];
  // Per file, the names of the tests started at each nesting: the suite path of a failure.
  const pathByFile = new Map<string, string[]>();
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:start') {
      const path = pathByFile.get(data.file ?? '') ?? [];
      path.length = data.nesting;
      path.push(data.name);
      pathByFile.set(data.file ?? '', path);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name } = data;
    if (skip !== undefined && skip !== false) {
      const reason = skip === true ? 'no reason given' : skip;
      const names = byReason.get(reason) ?? [];
      names.push(name);
      byReason.set(reason, names);
    }
    // A failing todo test does not fail the run.
    if (event.type !== 'test:fail' || (data.todo !== undefined && data.todo !== false)) continue;
    if (onlySubtestsFailed(data.details)) continue;
    const started = pathByFile.get(data.file ?? '') ?? [];
    const suites = started.length > data.nesting ? started.slice(0, data.nesting) : [];
    const file = data.file === undefined ? '' : relative(process.cwd(), data.file);
    const title = [...suites, name].filter((part) => part !== data.file).join(' > ');
    const where = file === '' ? title : title === '' ? file : `${file}: ${title}`;
    failures.push(`# not ok ${where}: ${errorHeadline(data.details?.error)}\n`);
  }
  for (const [reason, names] of byReason) {
    const shown = names.length > 4 ? [...names.slice(0, 4), `${names.length - 4} more`] : names;
    yield `# skipped ${names.length} (suites and tests: ${shown.join('; ')}): ${reason}\n`;
  }
  if (failures.length === 0) return;
  yield `# FAILED ${failures.length} test${failures.length === 1 ? '' : 's'} (details in the TAP above; search for "not ok"):\n`;
  yield* failures.slice(0, MAX_LISTED_FAILURES);
  if (failures.length > MAX_LISTED_FAILURES)
    yield `# ... and ${failures.length - MAX_LISTED_FAILURES} more\n`;
}
