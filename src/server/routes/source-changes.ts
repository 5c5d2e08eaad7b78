import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ConfigError, describeError, InvalidRequestError } from '../../errors.ts';
import { testConnection } from '../../jobs/index.ts';
import {
  candidateSource, credentialVariables, redactValues, sourceSecretValues, editSourceInProject, isSourceTypeKey,
  maskedHeaders, readSourceSection, removeSourceFromProject, SOURCE_TYPES, sourcesFileVersion,
} from '../../sources/config/index.ts';
import { createSourceFolder, folderToCreate } from '../../sources/index.ts';
import { requireAction } from '../plugins/index.ts';
import { formSourceCheck } from './form-source-check.ts';
import { QueryFlag } from './query-flag.ts';
import { assertMayConfigureType } from './source-type-permission.ts';

const NameParams = z.object({ source_name: z.string().min(1).max(63) });
const Version = z.string().min(1).max(64).describe('the sources.yml version read (GET /api/sources-file); 409 sources_file_changed when the file changed since');
const Config = z.record(z.string(), z.unknown()).default({}).describe("the type's section: only the fields that differ from their defaults");
const Secrets = z.record(z.string().max(100), z.string().min(1).max(4096)).default({})
  .describe('credentials by environment variable name; written to .env only (or, for a test, only used), never answered; a variable left out keeps its value');

const ConfigReply = z.object({
  name: z.string(),
  type: z.string(),
  section: z.record(z.string(), z.unknown()).describe("the type's section as sources.yml holds it, header values masked"),
  credentials: z.array(z.object({ variable: z.string(), set: z.boolean().describe('whether .env (or the environment) holds a value; the value is never answered') })),
  version: z.string(),
});
const EditBody = z.strictObject({ config: Config, secrets: Secrets, version: Version });
const ChangeReply = z.object({ success: z.boolean(), message: z.string(), source_name: z.string(), version: z.string() });
const DeleteQuery = z.object({
  version: Version,
  drop_tables: QueryFlag.default(false).describe("also drop the source's warehouse tables (its raw schema); kept by default"),
  remove_credentials: QueryFlag.default(false).describe('also remove from .env the variables only this source reads; kept by default'),
});
const DeleteReply = ChangeReply.extend({
  tables_dropped: z.boolean(),
  credentials_removed: z.array(z.string()).describe('the variable names removed from .env'),
});
const CandidateBody = z.strictObject({
  name: z.string().min(1).max(63).default('candidate').describe('the name it would have; it names nothing written'),
  type: z.string().min(1).max(63).describe('a type GET /api/source-types lists as addable'),
  config: Config,
  secrets: Secrets,
});
const TestReply = z.object({ success: z.boolean(), message: z.string().describe('what was read, or why the source could not be read') });

/** Editing and removing a source from the browser, and testing a configuration before it is saved. */
export const sourceChangeRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/sources/:source_name/config', {
    preHandler: requireAction('sources.configure'),
    schema: { tags: ['sources'], summary: "A source's section as sources.yml holds it, for the edit form; credentials only as set or not", params: NameParams, response: { 200: ConfigReply } },
  }, async (request) => {
    const source = ctx.sourceReports.source(request.params.source_name);
    const section = readSourceSection(ctx.paths, source.name, SOURCE_TYPES[source.type].section);
    const credentials = credentialVariables(source).map((variable) => ({ variable, set: (ctx.env[variable] ?? '') !== '' }));
    return { name: source.name, type: source.type, section: masked(section), credentials, version: sourcesFileVersion(ctx.paths) };
  });

  app.put('/api/sources/:source_name', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: "Replace a source's settings in sources.yml (comments and order kept) and set the credentials given in .env",
      params: NameParams, body: EditBody, response: { 200: ChangeReply },
    },
  }, async (request) => {
    const { name, type } = ctx.sourceReports.source(request.params.source_name);
    assertMayConfigureType(request, type);
    const { config, secrets, version } = request.body;
    let changed;
    try {
      changed = editSourceInProject(ctx.paths, { name, section: config, secrets: new Map(Object.entries(secrets)) }, formSourceCheck(ctx, secrets), version);
    } catch (error) {
      if (error instanceof ConfigError) throw new InvalidRequestError(error.problems.join('; '));
      throw error;
    }
    ctx.reloadSources();
    const created = await createSourceFolder(changed, ctx.dataRoots, ctx.paths.root);
    request.log.info({ source: name, folderCreated: created !== undefined }, 'source edited');
    const message = `Saved the settings of ${name}${created === undefined ? '' : `; created its folder ${created}`}`;
    return { success: true, message, source_name: name, version: sourcesFileVersion(ctx.paths) };
  });

  app.delete('/api/sources/:source_name', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: 'Remove a source from sources.yml; its warehouse tables and .env credentials stay unless asked. 409 while it syncs',
      params: NameParams, querystring: DeleteQuery, response: { 200: DeleteReply },
    },
  }, async (request) => {
    const { name, type } = ctx.sourceReports.source(request.params.source_name);
    assertMayConfigureType(request, type);
    const { version, drop_tables: dropTables, remove_credentials: removeCredentials } = request.query;
    ctx.jobs.assertNoSync(name);
    const removed = removeSourceFromProject(ctx.paths, name, version, { removeCredentials });
    ctx.reloadSources();
    if (dropTables) await ctx.jobs.dropSourceTables(name);
    request.log.info({ source: name, dropTables, credentialsRemoved: removed.length }, 'source removed');
    const kept = dropTables ? 'its tables were dropped' : 'its warehouse tables are kept';
    return {
      success: true, message: `Removed ${name} from sources.yml; ${kept}`, source_name: name, version: sourcesFileVersion(ctx.paths),
      tables_dropped: dropTables, credentials_removed: removed,
    };
  });

  app.post('/api/source-test', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: 'Test a configuration before saving it (the check of `quarry source test`); nothing is written',
      body: CandidateBody, response: { 200: TestReply },
    },
  }, async (request) => {
    const { name, type, config, secrets } = request.body;
    assertTestableBeforeSaving(type);
    const source = candidateSource(name, type, config);
    formSourceCheck(ctx, secrets)(source);
    // A new file source's folder is created when it is saved: its absence is no failure of the form.
    const folderNote = folderToCreate(source, ctx.paths.root);
    if (folderNote !== undefined) return { success: true, message: folderNote };
    const env = { ...ctx.env, ...secrets };
    try {
      const account = await testConnection({
        source, paths: ctx.paths, env, sourceTokens: ctx.sourceTokens, outbound: ctx.outbound, dataRoots: ctx.dataRoots, now: ctx.now, signal: AbortSignal.timeout(120_000),
        spreadsheetSeconds: ctx.config.limits.spreadsheet_seconds,
      });
      return { success: true, message: account };
    } catch (error) {
      // An upstream may echo what it was sent (a URL with a token in it): the source's credentials never go back.
      return { success: false, message: redactValues(describeError(error), sourceSecretValues(source, env)) };
    }
  });

  done();
};

/**
 * A candidate's code has not been saved by an admin, so it never runs: a type that runs code is tested once saved,
 * where only an admin could have put it.
 */
function assertTestableBeforeSaving(type: string): void {
  if (!isSourceTypeKey(type) || !SOURCE_TYPES[type].runsCode) return;
  throw new InvalidRequestError(
    `A ${type} source runs code on the server, so it is not tested before it is saved: an admin saves it (POST /api/sources), then tests the saved source (POST /api/sources/{name}/test)`,
  );
}

/** A header may hold a credential: the form sees it masked, and a masked value sent back keeps the file's. */
function masked(section: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const headers = section.headers;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return { ...section };
  return { ...section, headers: maskedHeaders(headers as Record<string, unknown>) };
}
