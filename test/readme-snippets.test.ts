/**
 * The README's "Messages and channels" snippets compile against the current API: they are
 * joined into one module (imports pointed at src/, the names a snippet takes as given declared)
 * and type-checked with the project's tsc. The Block example there did not compile before typed
 * receive, and nothing noticed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = join(root, 'dist', 'readme-snippets');

/** The names the snippets use without defining them (a game's own values). */
const GIVEN = `import type { Address, DatagramTransport } from '../../src/index.js';
declare const protocolId: bigint;
declare const privateKey: Uint8Array;
declare const publicAddresses: Address[];
declare const transports: DatagramTransport[];
declare const transport: DatagramTransport;
declare const token: Uint8Array;
declare const now: number;
declare const clientIndex: number;
declare const mapBytes: Uint8Array;
declare function loadMap(bytes: Uint8Array): void;
`;

/** The TypeScript blocks of a README section, as one module. */
function sectionModule(readme: string, heading: string): string {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has no ${heading}`);
  const end = readme.indexOf('\n### ', start + heading.length);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const imports: string[] = [];
  const body: string[] = [];
  for (const [, code] of section.matchAll(/```ts\n([\s\S]*?)```/g)) {
    for (const line of code.split('\n')) {
      if (line.startsWith('import '))
        imports.push(line.replace(/'ghostwire(\/node)?'/, "'../../src/index.js'"));
      else body.push(line);
    }
  }
  // Everything declared is exported, so an unused name is no error.
  return `${imports.join('\n')}\n${GIVEN}\n${body.join('\n')}\nexport {};\n`;
}

/** Type-checks a module in the scratch folder; the compiler's output, or '' when it passes. */
function typeCheck(name: string, source: string): string {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, `${name}.ts`), source);
  const config = join(scratch, `${name}.tsconfig.json`);
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { noEmit: true, noUnusedLocals: false },
      files: [`${name}.ts`],
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
  return run.status === 0 ? '' : `${run.stdout}${run.stderr}`;
}

describe('README snippets', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const module = sectionModule(readme, '### Messages and channels');

  it('"Messages and channels" type-checks against the current API', () => {
    assert.match(module, /m\.is\(Block\)/, 'the Block example is among the snippets checked');
    assert.equal(typeCheck('channels', module), '');
  });

  it('the check bites: the old Block example (m.type === Block, no narrowing) fails it', () => {
    const old = module.replace('m.is(Block)', 'm.type === Block');
    assert.notEqual(old, module);
    assert.match(typeCheck('channels-old', old), /error TS/);
  });
});
