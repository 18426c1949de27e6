/**
 * `npm start`: the demo game's server with its bots (demo/main.ts): open the URL it prints and
 * play in the browser. `npm start -- --headless` runs the terminal session instead: bots over
 * real UDP through the network simulator, a live table and a checked summary (tools/live.ts).
 * Each takes its own flags (`npm start -- --help`, `npm start -- --headless --help`).
 */
const flag = process.argv.indexOf('--headless');
if (flag >= 0) {
  process.argv.splice(flag, 1);
  await import('./live.js');
} else {
  await import('../demo/main.js');
}
