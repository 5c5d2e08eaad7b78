import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AppContext } from '../../src/context.ts';
import { onPostgres } from './local-postgres.ts';

const NODE_BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'node');

type Parameter = string | number | null;

/**
 * Runs one statement (with `?` parameters) on a running project's platform store from outside its process, as the
 * CLI or another process of a deployment would: a child process on the SQLite file, or a connection of its own to
 * the PostgreSQL schema. Answers the rows it returned.
 */
export async function onPlatformStore(ctx: AppContext, statement: string, ...parameters: Parameter[]): Promise<Record<string, unknown>[]> {
  const { platform } = ctx.config;
  if (platform.store.kind === 'postgres') {
    let index = 0;
    const text = statement.replace(/\?/g, () => `$${String(++index)}`);
    return onPostgres(async (client) => {
      await client.query(`SET search_path TO ${platform.schema}`);
      return (await client.query(text, parameters)).rows as Record<string, unknown>[];
    });
  }
  const script = `
    import { DatabaseSync } from 'node:sqlite';
    const database = new DatabaseSync(process.argv[1], { timeout: 5000 });
    const statement = database.prepare(process.argv[2]);
    const rows = statement.columns().length > 0 ? statement.all(...JSON.parse(process.argv[3])) : (statement.run(...JSON.parse(process.argv[3])), []);
    database.close();
    process.stdout.write(JSON.stringify(rows));`;
  const { stdout } = await promisify(execFile)(NODE_BIN, ['--input-type=module', '-e', script, ctx.paths.platformDb, statement, JSON.stringify(parameters)]);
  return JSON.parse(stdout) as Record<string, unknown>[];
}
