#!/usr/bin/env node
/**
 * `npm run build`: compiles the project into dist/ with tsc, in a way other scripts can run beside:
 * - builds wait for each other (a lock directory, dist/.build-lock, held by the building process);
 * - a build skips when nothing tsc reads changed since the last good one (a hash of the sources,
 *   tsconfig, package.json and the lockfile, stamped in dist/.build-stamp) and every output exists;
 * - tsc writes in place: dist/ is never deleted under a running script; afterwards only the outputs
 *   whose source is gone are removed.
 * `--force` rebuilds even when the stamp matches. Plain .mjs so that it runs before anything is built.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const lock = join(dist, '.build-lock');
const stamp = join(dist, '.build-stamp');
/** A lock older than this whose owner cannot be checked is taken over (a crashed build's). */
const STALE_LOCK_MS = 10 * 60 * 1000;
const SOURCE = /\.(ts|tsx|mts|cts)$/;
const OUTPUT = /(\.d)?\.(js|mjs|cjs|ts|mts|cts)(\.map)?$/;
const force = process.argv.includes('--force');

/** The directories tsc compiles (tsconfig's include), relative to the root. */
function includedRoots() {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  return config.include ?? ['.'];
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function sources() {
  return includedRoots()
    .flatMap((dir) => filesUnder(join(root, dir)))
    .filter((path) => SOURCE.test(path))
    .sort();
}

/** What a build depends on: the sources' paths and contents, the compiler settings, the packages. */
function inputsHash(files) {
  const hash = createHash('sha256');
  const configs = readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name));
  const extra = [...configs, 'package.json', 'package-lock.json', 'scripts/build.mjs'].map((name) =>
    join(root, name),
  );
  for (const path of [...files, ...extra.filter((path) => existsSync(path))]) {
    hash.update(relative(root, path));
    hash.update('\0');
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** dist/x/y.js for x/y.ts (a declaration file alone emits nothing). */
function outputOf(source) {
  return join(dist, relative(root, source))
    .replace(/\.(ts|tsx)$/, '.js')
    .replace(/\.mts$/, '.mjs')
    .replace(/\.cts$/, '.cjs');
}

function upToDate(files, hash) {
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== hash) return false;
  return files.filter((file) => !file.endsWith('.d.ts')).every((file) => existsSync(outputOf(file)));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes the lock, waiting while another live build holds it. */
async function acquire() {
  mkdirSync(dist, { recursive: true });
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {
      // Just created: the owner writes its pid next.
    }
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    if (Number.isInteger(owner) && owner > 0 ? !alive(owner) : age > STALE_LOCK_MS) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!announced) console.log(`build: waiting for the build running in process ${owner}`);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function release() {
  rmSync(lock, { recursive: true, force: true });
}

/** Removes the outputs under the compiled roots whose source no longer exists, then empty folders. */
function removeStale(files) {
  const present = new Set(files.map((file) => relative(root, file).replace(SOURCE, '')));
  let removed = 0;
  const sweep = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        sweep(path);
        if (readdirSync(path).length === 0) rmdirSync(path);
      } else if (OUTPUT.test(entry.name) && !present.has(relative(dist, path).replace(OUTPUT, ''))) {
        rmSync(path);
        removed++;
      }
    }
  };
  for (const dir of includedRoots()) if (existsSync(join(dist, dir))) sweep(join(dist, dir));
  return removed;
}

function compile() {
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  return spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], {
    cwd: root,
    stdio: 'inherit',
  }).status;
}

await acquire();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    release();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
try {
  const files = sources();
  const hash = inputsHash(files);
  if (!force && upToDate(files, hash)) {
    console.log('build: dist/ is up to date');
  } else {
    rmSync(stamp, { force: true }); // a failed or interrupted build leaves no stamp
    const status = compile();
    if (status !== 0) {
      process.exitCode = status ?? 1;
    } else {
      const removed = removeStale(files);
      writeFileSync(stamp, hash);
      console.log(`build: compiled${removed > 0 ? `, removed ${removed} stale outputs` : ''}`);
    }
  }
} finally {
  release();
}
