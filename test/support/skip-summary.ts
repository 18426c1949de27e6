/**
 * A node:test reporter that prints nothing until the run ends, then one line per distinct skip
 * reason naming what was skipped, so a fresh clone's `npm test` says at its end what it did not
 * check and why (the reasons are otherwise buried in the TAP stream). `npm test` runs it beside the
 * TAP reporter. Prints nothing when nothing was skipped.
 */
interface TestEvent {
  type: string;
  data: { name: string; nesting: number; skip?: string | boolean; details?: { type?: string } };
}

export default async function* skipSummary(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const byReason = new Map<string, string[]>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name } = event.data;
    if (skip === undefined || skip === false) continue;
    const reason = skip === true ? 'no reason given' : skip;
    const names = byReason.get(reason) ?? [];
    names.push(name);
    byReason.set(reason, names);
  }
  for (const [reason, names] of byReason) {
    const shown = names.length > 4 ? [...names.slice(0, 4), `${names.length - 4} more`] : names;
    yield `# skipped ${names.length} (suites and tests: ${shown.join('; ')}): ${reason}\n`;
  }
}
