/**
 * `npm run api`: the API report of every entry point in package.json "exports" (api/<name>.api.md,
 * written by API Extractor from the emitted declarations in dist/src), so every change to the
 * public surface shows in review. test/package/api-report.test.ts regenerates them into a scratch
 * folder and fails when they differ from the committed ones.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';
import { REPO_ROOT } from './browser-bundle.js';
import { commandLine } from './cli.js';

/** Where the committed reports live. */
export const API_FOLDER = join(REPO_ROOT, 'api');

export interface EntryPoint {
  /** The import specifier: `ghostwire`, `ghostwire/replication`, … */
  specifier: string;
  /** The report's file name: `ghostwire.api.md`, `ghostwire-replication.api.md`, … */
  report: string;
  /** The entry's emitted declarations (absolute path). */
  declarations: string;
}

/** The package's entry points, read from package.json "exports" (one home for the list). */
export function entryPoints(): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  return Object.entries(pkg.exports).map(([subpath, target]) => {
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
    return {
      specifier,
      report: `${specifier.replace('/', '-')}.api.md`,
      declarations: join(REPO_ROOT, target.types),
    };
  });
}

export interface ReportRun {
  entry: EntryPoint;
  /** API Extractor's warnings and errors for this entry (compiler and extractor messages). */
  problems: string[];
}

/**
 * Writes each entry point's report into `folder` (the committed api/ or a scratch folder). One
 * TypeScript program is shared by every entry, so the whole run costs about one entry's analysis.
 */
export function writeApiReports(folder: string): ReportRun[] {
  mkdirSync(folder, { recursive: true });
  // API Extractor writes each report here first, then copies it over when it differs.
  const scratch = mkdtempSync(join(tmpdir(), 'ghostwire-api-'));
  try {
    return reportInto(folder, scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function reportInto(folder: string, scratch: string): ReportRun[] {
  const entries = entryPoints();
  const configs = entries.map((entry) =>
    ExtractorConfig.prepare({
      configObject: {
        projectFolder: REPO_ROOT,
        newlineKind: 'lf',
        mainEntryPointFilePath: entry.declarations,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'es2022',
              lib: ['es2022', 'dom'],
              module: 'nodenext',
              moduleResolution: 'nodenext',
              types: ['node'],
              skipLibCheck: true,
            },
            files: entries.map((e) => e.declarations),
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: entry.report,
          reportFolder: folder,
          reportTempFolder: scratch,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
          extractorMessageReporting: {
            default: { logLevel: ExtractorLogLevel.Warning },
            // Every name is public (no release tags), and a type the entry reaches without
            // exporting it is written into the report, where review sees it.
            'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
            'ae-internal-missing-underscore': { logLevel: ExtractorLogLevel.None },
            'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
            'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
            // The report marks these "(undocumented)" already.
            'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
      configObjectFullPath: join(REPO_ROOT, 'api-extractor.json'),
      packageJsonFullPath: join(REPO_ROOT, 'package.json'),
    }),
  );
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: entries.map((e) => e.declarations),
  });
  return entries.map((entry, i) => {
    const problems: string[] = [];
    Extractor.invoke(configs[i], {
      localBuild: true,
      compilerState,
      messageCallback: (message: ExtractorMessage) => {
        const problem =
          message.logLevel === ExtractorLogLevel.Warning || message.logLevel === ExtractorLogLevel.Error;
        // console-* messages report what the run did with the files ("created", "copied"): not problems.
        if (problem && !message.messageId.startsWith('console-')) {
          problems.push(`${message.messageId}: ${message.text}`);
        }
        // Everything else (progress, "the report was updated") is ours to print, not theirs.
        message.handled = true;
      },
    });
    return { entry, problems };
  });
}

function main(): void {
  commandLine({
    name: 'npm run api --',
    description:
      'Writes api/<entry>.api.md for every entry point in package.json "exports" from the built\ndeclarations (npm run build first). Review the diff, then commit it. A few seconds.',
    flags: {},
  });
  const started = performance.now();
  const runs = writeApiReports(API_FOLDER);
  for (const { entry, problems } of runs) {
    console.log(`${relative(REPO_ROOT, join(API_FOLDER, entry.report))}  (${entry.specifier})`);
    for (const problem of problems) console.log(`  ${problem}`);
  }
  console.log(`${runs.length} reports in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (runs.some((r) => r.problems.length > 0)) process.exitCode = 1;
}

// Run only as the entry point, so importing this file runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
