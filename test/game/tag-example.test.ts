/**
 * examples/tag as a user runs it: server.js (GameServer over UDP) with bots.js (three bots) for
 * 20 s, and rooms.js (the same rules as a room type, matchmaking) with bots matched into a room,
 * side by side as separate processes. Tags must happen and scores change in both.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countGameLines, countSource } from '../../scripts/count-game-lines.js';

const folder = new URL('../../examples/tag/', import.meta.url);
const file = (name: string) => fileURLToPath(new URL(name, folder));

/** Starts `script` with PORT=0 and resolves with its URL, from the line it prints. */
async function serve(script: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [file(script)], { env: { ...process.env, PORT: '0' } });
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} printed no URL: ${text}`)), 20_000);
    child.stdout?.on('data', (chunk) => {
      text += chunk;
      const match = text.match(/at (http:\/\/\S+)/);
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${text}`)));
  });
  return { child, url };
}

/** Runs bots.js against `url` for `seconds`; resolves with its output once it exits 0. */
function bots(url: string, seconds: number, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file('bots.js'), url],
      { env: { ...process.env, TAG_SECONDS: String(seconds), ...env }, timeout: (seconds + 40) * 1000 },
      (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}\n${stderr}`)),
    );
  });
}

/** The scores and tag counts the bots printed. */
function results(output: string): { scores: number[]; tags: number[] } {
  const scores = [...output.matchAll(/^bot\d: score (\d+), saw (\d+) tags/gm)];
  assert.equal(scores.length, 3, output);
  return { scores: scores.map((m) => Number(m[1])), tags: scores.map((m) => Number(m[2])) };
}

describe('examples/tag', () => {
  it('the counter skips blank lines, comments and the rules regions, and collects ghostwire names', () => {
    const text = [
      "import { defineGame, type GameClient, t as schema } from 'ghostwire';",
      "import { GameServer } from 'ghostwire/node';",
      "import { local } from './local.js';",
      '',
      '// a comment',
      '/* a block',
      '   comment */',
      '// #region rules',
      'const clamp = (v: number) => v;',
      '// #endregion',
      'const x = 1; // counted',
      '}',
    ].join('\n');
    assert.deepEqual(countSource(text), {
      lines: 5,
      imports: ['defineGame', 'GameClient', 't', 'GameServer'],
    });
  });

  it('stays a page: at most 60 code lines outside its rules and 10 ghostwire names (scripts/count-game-lines.ts)', () => {
    // The sources, not the compiled files: dist/test/game is three folders below the root.
    const count = countGameLines(fileURLToPath(new URL('../../../examples/tag/', import.meta.url)));
    assert.ok(count.lines <= 60, `${count.lines} lines: ${JSON.stringify(count.files)}`);
    assert.ok(count.imports.length <= 10, count.imports.join(', '));
    assert.ok(count.lines >= 30, 'the counter found the files');
  });

  it('three bots play tag for 20 s over UDP, and three matched into a room: tags happen, scores change', async () => {
    const server = await serve('server.js');
    const rooms = await serve('rooms.js');
    try {
      const [udp, matched] = await Promise.all([bots(server.url, 20), bots(rooms.url, 12, { POOL: 'tag' })]);
      for (const [where, output] of [
        ['over UDP', udp],
        ['in a matched room', matched],
      ]) {
        const { scores, tags } = results(output);
        assert.ok(Math.min(...tags) >= 1, `${where}: tags seen ${tags}\n${output}`);
        assert.ok(scores.reduce((a, b) => a + b) >= 1, `${where}: scores ${scores}\n${output}`);
        // Every bot hears every tag (reliable events), give or take one in flight at the end.
        assert.ok(Math.max(...tags) - Math.min(...tags) <= 1, `${where}: tags seen ${tags}`);
      }
    } finally {
      for (const child of [server.child, rooms.child]) {
        child.kill();
        if (child.exitCode === null) await once(child, 'exit');
      }
    }
  });
});
