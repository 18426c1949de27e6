/**
 * `npm start` (tools/start.ts): by default the demo server, which prints the URL to open and
 * serves the page there; with --headless the terminal session (its own test: test/tools/live.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const start = fileURLToPath(new URL('../../tools/start.js', import.meta.url));

describe('npm start (tools/start.ts)', () => {
  it('serves the demo and prints the URL to open; the page is there', async () => {
    const child = spawn(process.execPath, [start, '--port', '0', '--bots', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /open (http:\/\/\S+)/.exec(out);
          if (match !== null) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<canvas/);
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('--headless runs the terminal session and ends with its checked summary', async () => {
    const child = spawn(process.execPath, [start, '--headless', '--seconds', '1', '--clients', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, out);
    assert.match(out, /every reliable message arrived exactly once and in order/);
  });
});
