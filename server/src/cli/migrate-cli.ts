// cli/ owns the `siegel-server migrate` command: moving records and files from one store to another
// (`migrate.ts`), reading the source (`migrate-source.ts`), and its arguments (this file).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { databasePath, filesPath, readServerConfig } from '../config/config.js';
import { openStores } from '../storage/open-stores.js';
import type { SqliteRecordStore } from '../storage/sqlite-record-store.js';
import { migrateStores } from './migrate.js';
import { openSourceRecords, SourceFiles } from './migrate-source.js';

export const MIGRATE_USAGE = `Usage: siegel-server migrate --from sqlite:<data dir> --to <postgres URL> [--dry-run]

Copies every record of the SQLite store in <data dir> (its siegel.sqlite and files/), with its files and
relay outbox, to PostgreSQL — and the files to S3 when S3_BUCKET (and the other S3_* settings) are set;
otherwise the target keeps using <data dir>/files. Then checks every record in the target as the verify
API does. Safe to run again: an interrupted run (even kill -9) is finished by running it again. Stop the
server on <data dir> first (a file it signs during the run may be missed); servers already running on the
target may go on. Even a dry run creates the target's tables (it writes no records). A record whose stored
files include a link, a FIFO or a key out of <data dir>/files is not copied: one line each, exit code 1.
  --from sqlite:<dir>   the data directory (SIEGEL_DATA_DIR) to read
  --to <url>            postgres://user:password@host:5432/database (default DATABASE_URL)
  --dry-run             count records, files, bytes and outbox rows; write nothing
`;

/**
 * `siegel-server migrate`: resolves with the exit code (0: every record that verifies in the source
 * verifies in the target; 1: some do not, some were not copied (or would not be, in a dry run), the source
 * database cannot be read, or a store cannot be reached; 2: bad arguments). Every error is one line.
 */
export async function runMigrate(
  args: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  let values: { from?: string; to?: string; 'dry-run'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    err(`siegel-server migrate: ${(error as Error).message}\n\n${MIGRATE_USAGE}`);
    return 2;
  }
  if (values.help) {
    out(MIGRATE_USAGE);
    return 0;
  }
  const from = values.from?.trim() ?? '';
  if (!from.startsWith('sqlite:') || from.length === 'sqlite:'.length) {
    err(`siegel-server migrate: --from must be sqlite:<data dir>, got \`${from}\`\n\n${MIGRATE_USAGE}`);
    return 2;
  }
  const dataDir = resolve(from.slice('sqlite:'.length));
  const sqlitePath = databasePath(dataDir);
  if (!existsSync(sqlitePath)) {
    err(`siegel-server migrate: no store in \`${dataDir}\` (\`${sqlitePath}\` does not exist)`);
    return 2;
  }
  let config: ReturnType<typeof readServerConfig>;
  try {
    config = readServerConfig({
      ...env,
      DATABASE_URL: values.to ?? env.DATABASE_URL,
      SIEGEL_DATA_DIR: dataDir,
    });
  } catch (error) {
    err(`siegel-server migrate: ${(error as Error).message}`);
    return 2;
  }
  if (config.databaseUrl === undefined) {
    err(
      `siegel-server migrate: --to (or DATABASE_URL) must name the PostgreSQL database\n\n${MIGRATE_USAGE}`,
    );
    return 2;
  }
  let records: SqliteRecordStore;
  try {
    records = openSourceRecords(sqlitePath);
  } catch (error) {
    err(`siegel-server migrate: ${(error as Error).message}`);
    return 1;
  }
  const source = { records, storage: new SourceFiles(filesPath(dataDir)) };
  try {
    const target = await openStores(config);
    try {
      out(`Migrating ${sqlitePath} to ${target.description.records}, files to ${target.description.storage}`);
      const report = await migrateStores(
        source,
        { ...target, sameFiles: config.s3 === undefined },
        { dryRun: values['dry-run'] === true, log: out },
      );
      const files = `${report.files} files (${report.bytes} bytes)`;
      const outbox = `${report.deliveries} outbox rows`;
      const dryRun = values['dry-run'] === true;
      for (const { hash, reason } of report.notCopied)
        err(`${dryRun ? 'Would not copy' : 'Not copied'}: ${hash}: ${reason}`);
      if (dryRun) {
        const copied = report.records - report.notCopied.length;
        out(`Dry run: ${copied} records, ${files}, ${outbox} would be copied; nothing was written.`);
        if (report.unverifiedInSource.length > 0)
          out(
            `${report.unverifiedInSource.length} do not verify in the source (they would be copied as they are): ${report.unverifiedInSource.join(', ')}`,
          );
        if (report.notCopied.length === 0) return 0;
        err(`${report.notCopied.length} records would not be copied (see above).`);
        return 1;
      }
      out(`Copied ${report.copied} records (${report.present} were there already), ${files}, ${outbox}.`);
      out(`${report.verified} of ${report.records} records verify in the target.`);
      if (report.unverifiedInSource.length > 0)
        out(
          `${report.unverifiedInSource.length} did not verify in the source either: ${report.unverifiedInSource.join(', ')}`,
        );
      for (const failure of report.failures)
        err(`Does not verify in the target: ${failure.hash}: ${failure.reasons.join(' ')}`);
      if (report.notCopied.length > 0)
        err(`${report.notCopied.length} records were not copied (see above); the others were.`);
      return report.failures.length === 0 && report.notCopied.length === 0 ? 0 : 1;
    } finally {
      await target.records.close();
    }
  } catch (error) {
    err(`siegel-server migrate: ${(error as Error).message}`);
    return 1;
  } finally {
    await source.records.close();
  }
}
