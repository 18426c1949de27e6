/**
 * The public surface is reviewed: api/<entry>.api.md, written by `npm run api` (API Extractor, from
 * the emitted declarations), must equal what the build emits now. Any change to an exported name,
 * signature or doc-visible type fails here until the reports are regenerated and committed, so it
 * shows in the diff a reviewer reads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_FOLDER, entryPoints, type ReportRun, writeApiReports } from '../../scripts/api-report.js';

const FIX = 'Run `npm run api`, review the diff of api/ (every line is a public promise), and commit it.';

/** The names an API report declares at top level (values and types). */
function declaredNames(report: string): string[] {
  return [
    ...report.matchAll(
      /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum|namespace) ([A-Za-z0-9_$]+)/gm,
    ),
  ].map((m) => m[1]);
}

/** The first line where two texts differ, both sides, for the failure message. */
function firstDifference(committed: string, emitted: string): string {
  const a = committed.split('\n');
  const b = emitted.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  emitted:   ${b[at] ?? '(end of file)'}`;
}

describe('API reports (api/*.api.md)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'ghostwire-api-test-'));
  let runs: ReportRun[] = [];
  before(() => {
    runs = writeApiReports(scratch);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  const read = (folder: string, report: string): string => readFileSync(join(folder, report), 'utf8');

  it('one committed report per entry point in package.json "exports", and no other', () => {
    const expected = entryPoints()
      .map((e) => e.report)
      .sort();
    const committed = readdirSync(API_FOLDER)
      .filter((name) => name.endsWith('.api.md'))
      .sort();
    assert.deepEqual(committed, expected, FIX);
  });

  it('every committed report equals the surface the build emits', () => {
    const changed = runs
      .filter(({ entry }) => read(API_FOLDER, entry.report) !== read(scratch, entry.report))
      .map(
        ({ entry }) =>
          `${entry.specifier} (api/${entry.report}) ${firstDifference(read(API_FOLDER, entry.report), read(scratch, entry.report))}`,
      );
    assert.deepEqual(changed, [], `The public surface changed. ${FIX}\n${changed.join('\n')}`);
  });

  it('API Extractor finds no problem in the declarations', () => {
    const problems = runs.flatMap(({ entry, problems }) => problems.map((p) => `${entry.specifier}: ${p}`));
    assert.deepEqual(problems, []);
  });

  it('the root entry point declares at most 100 names, types included', () => {
    const names = declaredNames(read(scratch, 'ghostwire.api.md'));
    assert.ok(names.length > 0 && names.length <= 100, `${names.length} names: ${names.join(', ')}`);
  });

  it('ghostwire/browser declares every name of ghostwire and of the browser-safe entry points', () => {
    const browser = new Set(declaredNames(read(scratch, 'ghostwire-browser.api.md')));
    const browserSafe = [
      'ghostwire',
      ...[
        'serialize',
        'schema',
        'packet',
        'connection',
        'channels',
        'replication',
        'latency',
        'p2p',
        'transport',
      ].map((layer) => `ghostwire-${layer}`),
    ];
    for (const report of browserSafe) {
      const missing = declaredNames(read(scratch, `${report}.api.md`)).filter((name) => !browser.has(name));
      assert.deepEqual(missing, [], `names of ${report} missing from src/browser.ts`);
    }
  });
});
