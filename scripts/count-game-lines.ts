/**
 * `node dist/scripts/count-game-lines.js [folder]`: what a game written on the game API costs, as
 * the issue measures it: non-blank, non-comment lines of code outside `// #region rules` …
 * `// #endregion` (the game's own rules: clamping, picking a direction), and the distinct names
 * imported from ghostwire. Default folder: examples/tag. The count is textual and reproducible:
 * a line whose code part is empty after removing `//` comments and whole `/* … *\/` blocks is a
 * comment line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GameLineCount {
  /** Per file: code lines counted. */
  files: Record<string, number>;
  lines: number;
  /** Distinct names imported from 'ghostwire' or its subpaths, sorted. */
  imports: string[];
}

/** Counts one source text: its code lines outside the rules regions, and its ghostwire imports. */
export function countSource(text: string): { lines: number; imports: string[] } {
  let lines = 0;
  let inRules = false;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('// #region rules')) inRules = true;
    else if (inRules && line.startsWith('// #endregion')) inRules = false;
    if (inRules) continue;
    let code = line;
    if (inBlock) {
      const end = code.indexOf('*/');
      if (end < 0) continue;
      inBlock = false;
      code = code.slice(end + 2).trim();
    }
    if (code.startsWith('/*')) {
      const end = code.indexOf('*/');
      if (end < 0) {
        inBlock = true;
        continue;
      }
      code = code.slice(end + 2).trim();
    }
    if (code === '' || code.startsWith('//')) continue;
    lines++;
  }
  const imports = new Set<string>();
  for (const match of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'ghostwire(?:\/[a-z-]+)?'/g))
    for (const name of match[1].split(',')) {
      const clean = name
        .replace(/^\s*type\s+/, '')
        .trim()
        .split(/\s+as\s+/)[0];
      if (clean !== '') imports.add(clean);
    }
  return { lines, imports: [...imports] };
}

/** Counts every .ts file of `folder`. */
export function countGameLines(folder: string): GameLineCount {
  const files: Record<string, number> = {};
  const imports = new Set<string>();
  let lines = 0;
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const counted = countSource(readFileSync(join(folder, name), 'utf8'));
    files[name] = counted.lines;
    lines += counted.lines;
    for (const i of counted.imports) imports.add(i);
  }
  return { files, lines, imports: [...imports].sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const folder = process.argv[2] ?? join(root, 'examples', 'tag');
  const count = countGameLines(folder);
  for (const [name, n] of Object.entries(count.files)) console.log(`${name.padEnd(12)} ${n}`);
  console.log(`lines touching ghostwire (rules regions excluded): ${count.lines}`);
  console.log(`distinct ghostwire imports: ${count.imports.length} (${count.imports.join(', ')})`);
}
