/**
 * Every script shares one command line (scripts/cli.ts on util.parseArgs): --help prints the
 * usage and exits 0, an unknown flag or a bad value exits 2 naming it. Spawned as users run them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readCommandLine, UsageError } from '../../scripts/cli.js';

const SCRIPTS = {
  'npm start': 'tools/start.js',
  'npm start -- --headless': 'tools/live.js',
  'npm run bench': 'bench/run.js',
  'npm run fuzz': 'scripts/fuzz.js',
  'npm run soak': 'scripts/soak.js',
  'npm run showcase': 'tools/showcase.js',
};

function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = fileURLToPath(new URL(`../../${script}`, import.meta.url));
  return new Promise((resolve) => {
    execFile(process.execPath, [path, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr }),
    );
  });
}

describe('command lines', () => {
  for (const [command, script] of Object.entries(SCRIPTS)) {
    it(`${command} -- --help prints its usage and exits 0`, async () => {
      const { code, stdout } = await run(script, ['--help']);
      assert.equal(code, 0);
      assert.match(stdout, new RegExp(`^usage: ${command}(?: --)? \\[flags\\]`));
      assert.match(stdout, /-h, --help/);
    });

    it(`${command} refuses an unknown flag with exit 2`, async () => {
      const { code, stderr } = await run(script, ['--no-such-flag', '1']);
      assert.equal(code, 2);
      assert.match(stderr, /Unknown option '--no-such-flag'/);
      assert.match(stderr, /^usage: /m);
    });
  }

  it('a bad value exits 2 naming the flag', async () => {
    const { code, stderr } = await run('tools/live.js', ['--clients', 'many']);
    assert.equal(code, 2);
    assert.match(stderr, /--clients must be a number in \[1, 64\], got many/);
  });

  it('parses --flag value, --flag=value, shorts, switches and repeats; refuses strays and missing values', () => {
    const command = {
      name: 'x',
      description: '',
      flags: {
        count: { short: 'n', help: '' },
        quick: { kind: 'boolean' as const, help: '' },
        target: { multiple: true, help: '' },
      },
    };
    assert.deepEqual(readCommandLine(command, ['-n', '3', '--target=a', '--target', 'b,c', '--quick']), {
      count: '3',
      quick: true,
      target: ['a', 'b,c'],
    });
    assert.deepEqual(readCommandLine(command, []), { quick: false, target: [] });
    assert.equal(readCommandLine(command, ['-h']), null);
    assert.throws(() => readCommandLine(command, ['stray']), UsageError);
    assert.throws(() => readCommandLine(command, ['--count']), UsageError);
    assert.throws(() => readCommandLine(command, ['--quick=yes']), UsageError);
  });
});
