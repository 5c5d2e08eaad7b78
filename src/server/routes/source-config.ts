import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addSourceToProject, assertSourcesFileUnchanged, authTypesUsing, CATEGORIES, fieldHelp, sectionFields, setSourceEnabled, SOURCE_TYPE_KEYS,
  SOURCE_TYPES, sourcesFileVersion, type SourceTypeKey,
} from '../../sources/config/index.ts';
import { can } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { ConfigError, describeError, InvalidRequestError } from '../../errors.ts';
import { testConnection } from '../../jobs/index.ts';
import { requireAction, requireActor } from '../plugins/index.ts';
import { formSourceCheck } from './form-source-check.ts';
import { assertMayConfigureType } from './source-type-permission.ts';

const Field = z.object({
  name: z.string(),
  kind: z.enum(['text', 'env', 'choice', 'choices', 'list', 'boolean', 'number', 'mapping', 'items']),
  required: z.boolean(),
  default: z.unknown().optional().describe('the value used when the field is left out'),
  options: z.array(z.string()).optional().describe('for choice and choices: the allowed values'),
  help: z.string().describe('one line shown beside the field; empty when there is nothing to add'),
  shown_for: z.object({ field: z.string(), values: z.array(z.string()) }).optional()
    .describe("shown only while `field` holds one of `values` (rest_api's credential fields by auth_type)"),
});

const SourceTypeEntry = z.object({
  key: z.string(),
  category: z.string(),
  auth_type: z.string().nullable(),
  addable: z.boolean().describe('whether the form (and `quarry source add`) adds this type for the caller'),
  reason: z.string().nullable().describe('why it is not addable; null when it is'),
  section: z.string().describe('the key of the section holding its fields in sources.yml'),
  admin_only: z.boolean().describe('a source of this type runs code on the server: only an admin adds, edits, tests, enables or removes one'),
  fields: z.array(Field).describe('the fields of its section; empty for a type that is not addable'),
});

const SourceTypesReply = z.object({ categories: z.array(z.string()), types: z.array(SourceTypeEntry) });
const SourcesFileReply = z.object({ version: z.string().describe('identifies the content of sources.yml; send it back when adding a source') });

const AddBody = z.strictObject({
  // The name's pattern is checked with the rest of the addition, after the version, as the CLI's is.
  name: z.string().min(1).max(63).describe('lowercase letters, digits and underscores, starting with a letter; unique'),
  type: z.string().min(1).max(63).describe('a type GET /api/source-types lists as addable'),
  config: z.record(z.string(), z.unknown()).default({}).describe("the type's section: only the fields that differ from their defaults"),
  // Variable names are checked with the rest of the addition (after the version), as the CLI's are.
  secrets: z.record(z.string().max(100), z.string().min(1).max(4096)).default({})
    .describe('credentials by environment variable name (A-Z, 0-9, _; the names its *_env fields give); written to .env only, never answered'),
  version: z.string().min(1).max(64).describe('the sources.yml version the form read (GET /api/sources-file); 409 sources_file_changed when the file changed since'),
});
const AddReply = z.object({ success: z.boolean(), message: z.string(), source_name: z.string(), version: z.string() });

const NameParams = z.object({ source_name: z.string().min(1).max(63) });
const ChangeBody = z.strictObject({
  enabled: z.boolean().describe('false: syncs and schedules skip the source; its tables stay'),
  version: z.string().min(1).max(64).describe('the sources.yml version read; 409 sources_file_changed when the file changed since'),
});
const ChangeReply = z.object({ success: z.boolean(), message: z.string(), source_name: z.string(), version: z.string() });
const TestReply = z.object({ success: z.boolean(), message: z.string().describe('what was read, or why the source could not be read') });

/** The configuration of sources from the browser: the types and their fields, adding a source, testing one. */
export const sourceConfigRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/source-types', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['sources'], summary: 'Every source type with its category, whether the form adds it (or why not) and its fields', response: { 200: SourceTypesReply } },
  }, async (request) => {
    const mayConfigureCode = can(requireActor(request), 'code.configure');
    return { categories: [...CATEGORIES], types: SOURCE_TYPE_KEYS.map((key) => describeType(key, mayConfigureCode)) };
  });

  app.get('/api/sources-file', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['sources'], summary: 'The version of sources.yml, which adding a source sends back', response: { 200: SourcesFileReply } },
  }, async () => ({ version: sourcesFileVersion(ctx.paths) }));

  app.post('/api/sources', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: 'Add a source to sources.yml (comments and order kept) and its credentials to .env', body: AddBody,
      response: { 201: AddReply },
    },
  }, async (request, reply) => {
    const { name, type, config, secrets, version } = request.body;
    assertMayConfigureType(request, type);
    try {
      addSourceToProject(ctx.paths, { name, type, section: config, secrets: new Map(Object.entries(secrets)) }, formSourceCheck(ctx, secrets), version);
    } catch (error) {
      // A section that does not validate is the sender's mistake, told with each problem's location.
      if (error instanceof ConfigError) throw new InvalidRequestError(error.problems.join('; '));
      throw error;
    }
    ctx.reloadSources();
    request.log.info({ source: name, type }, 'source added');
    return reply.code(201).send({ success: true, message: `Added the ${type} source "${name}"`, source_name: name, version: sourcesFileVersion(ctx.paths) });
  });

  app.patch('/api/sources/:source_name', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: 'Disable or enable a source in sources.yml (comments and order kept)', params: NameParams, body: ChangeBody,
      response: { 200: ChangeReply },
    },
  }, async (request) => {
    const { name, type } = ctx.sourceReports.source(request.params.source_name);
    assertMayConfigureType(request, type);
    assertSourcesFileUnchanged(ctx.paths, request.body.version);
    setSourceEnabled(ctx.paths, name, request.body.enabled);
    ctx.reloadSources();
    request.log.info({ source: name, enabled: request.body.enabled }, 'source changed');
    return { success: true, message: `${name} is ${request.body.enabled ? 'enabled' : 'disabled'}`, source_name: name, version: sourcesFileVersion(ctx.paths) };
  });

  app.post('/api/sources/:source_name/test', {
    preHandler: requireAction('sources.configure'),
    schema: {
      tags: ['sources'], summary: 'Check that a source can be read, loading nothing (the check of `quarry source test`)', params: NameParams,
      response: { 200: TestReply },
    },
  }, async (request) => {
    const source = ctx.sourceReports.source(request.params.source_name);
    assertMayConfigureType(request, source.type);
    try {
      const account = await testConnection({
        source, paths: ctx.paths, env: ctx.env, sourceTokens: ctx.sourceTokens, outbound: ctx.outbound, dataRoots: ctx.dataRoots, now: ctx.now, signal: AbortSignal.timeout(120_000),
      });
      return { success: true, message: account };
    } catch (error) {
      return { success: false, message: ctx.redactor.redact(describeError(error)) };
    }
  });

  done();
};

function shownFor(type: SourceTypeKey, field: string): { shown_for?: { field: string; values: string[] } } {
  const authTypes = type === 'rest_api' ? authTypesUsing(field) : undefined;
  return authTypes === undefined ? {} : { shown_for: { field: 'auth_type', values: authTypes } };
}

/** A type that runs code is not addable for a caller who may not configure code, and says so. */
function describeType(key: SourceTypeKey, mayConfigureCode: boolean): z.infer<typeof SourceTypeEntry> {
  const type = SOURCE_TYPES[key];
  const addable = type.wizard && (mayConfigureCode || !type.runsCode);
  const reason = addable || !type.wizard ? type.wizardDisabledReason : 'only an admin adds it: it runs code on the server';
  const fields = addable ? sectionFields(key as Parameters<typeof sectionFields>[0]) : [];
  return {
    key, category: type.category, auth_type: type.authType, addable, reason, section: type.section, admin_only: type.runsCode,
    fields: fields.map((field) => ({
      name: field.name, kind: field.kind, required: field.required, help: fieldHelp(key, field.name),
      ...shownFor(key, field.name),
      ...(field.defaultValue === undefined ? {} : { default: field.defaultValue }), ...(field.options === undefined ? {} : { options: [...field.options] }),
    })),
  };
}
