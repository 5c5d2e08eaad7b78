import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addSourceToProject, assertSourcesFileUnchanged, authTypesUsing, CATEGORIES, fieldHelp, fieldLabel, howToAdd, isAdvanced, optionLabel, productOf, sectionFields,
  isAddable, setSourceEnabled, signInOf, SOURCE_TYPE_KEYS, SOURCE_TYPES, sourcesFileVersion, type SectionField, type SourceTypeKey,
} from '../../sources/config/index.ts';
import { createSourceFolder } from '../../sources/index.ts';
import { can } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { ConfigError, describeError, InvalidRequestError } from '../../errors.ts';
import { testConnection } from '../../jobs/index.ts';
import { requireAction, requireActor } from '../plugins/index.ts';
import { formSourceCheck } from './form-source-check.ts';
import { assertMayConfigureType } from './source-type-permission.ts';

const FieldFacts = z.object({
  name: z.string().describe('its key in sources.yml'),
  label: z.string().describe('what a person reads beside it'),
  kind: z.enum(['text', 'env', 'choice', 'choices', 'list', 'boolean', 'number', 'mapping', 'items']),
  required: z.boolean(),
  default: z.unknown().optional().describe('the value used when the field is left out'),
  options: z.array(z.string()).optional().describe('for choice and choices: the allowed values'),
  option_labels: z.array(z.string()).optional().describe('how each of `options` reads, in the same order, where it needs words'),
  values: z.enum(['text', 'any']).optional().describe('for mapping: whether every value is text, or numbers, booleans and lists may be values too'),
  help: z.string().describe('one line shown beside the field; empty when there is nothing to add'),
  advanced: z.boolean().describe('an optional field few sources need, shown under "More settings"'),
});
const Field = FieldFacts.extend({
  shown_for: z.object({ field: z.string(), values: z.array(z.string()) }).optional()
    .describe("shown only while `field` holds one of `values` (rest_api's credential fields by auth_type)"),
  item_fields: z.array(FieldFacts).optional().describe('for items: the fields of each item of the list'),
});

const SourceTypeEntry = z.object({
  key: z.string(),
  product: z.string().describe('the product or kind of data the neutral key stands for, shown beside it'),
  category: z.string(),
  auth_type: z.string().nullable(),
  signs_in_with: z.string().describe('auth_type in words'),
  addable: z.boolean().describe('whether the form (and `quarry source add`) adds this type for the caller'),
  reason: z.string().nullable().describe('why it is not addable; null when it is'),
  offered_because: z.string().nullable().describe('for a type the spec\'s wizard hides that the form adds all the same: why it is offered; null otherwise'),
  how_to_add: z.string().nullable().describe('for a type added by hand: what to do instead of the form; null when the form adds it'),
  folder_field: z.string().optional().describe('the field naming the folder, inside a data root, its files are read from; saving creates the folder, and CSV files can be uploaded into it'),
  section: z.string().describe('the key of the section holding its fields in sources.yml'),
  admin_only: z.boolean().describe('a source of this type runs code on the server: only an admin adds, edits, tests, enables or removes one'),
  fields: z.array(Field).describe('the fields of its section; empty for a type that is not addable'),
});

const SourceTypesReply = z.object({
  categories: z.array(z.string()),
  types: z.array(SourceTypeEntry),
  data_roots: z.array(z.string()).describe("the folders file sources may read, as project.yml names them (relative to the project, or absolute); a new file source's folder is proposed in the first"),
});
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
    return { categories: [...CATEGORIES], types: SOURCE_TYPE_KEYS.map((key) => describeType(key, mayConfigureCode)), data_roots: [...ctx.config.data_roots] };
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
    let added;
    try {
      added = addSourceToProject(ctx.paths, { name, type, section: config, secrets: new Map(Object.entries(secrets)) }, formSourceCheck(ctx, secrets), version);
    } catch (error) {
      // A section that does not validate is the sender's mistake, told with each problem's location.
      if (error instanceof ConfigError) throw new InvalidRequestError(error.problems.join('; '));
      throw error;
    }
    ctx.reloadSources();
    const created = await createSourceFolder(added, ctx.dataRoots, ctx.paths.root);
    request.log.info({ source: name, type, folderCreated: created !== undefined }, 'source added');
    const message = `Added the ${type} source "${name}"${created === undefined ? '' : `; created its folder ${created}`}`;
    return reply.code(201).send({ success: true, message, source_name: name, version: sourcesFileVersion(ctx.paths) });
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
        spreadsheetSeconds: ctx.config.limits.spreadsheet_seconds,
      });
      return { success: true, message: account };
    } catch (error) {
      return { success: false, message: ctx.redactor.redact(describeError(error)) };
    }
  });

  done();
};

/** The field that names a file source's folder: a type with one takes uploads into it once saved. */
const FOLDER_FIELD = 'directory';

function shownFor(type: SourceTypeKey, field: string): { shown_for?: { field: string; values: string[] } } {
  const authTypes = type === 'rest_api' ? authTypesUsing(field) : undefined;
  return authTypes === undefined ? {} : { shown_for: { field: 'auth_type', values: authTypes } };
}

function describeField(type: SourceTypeKey, field: SectionField): z.infer<typeof FieldFacts> {
  const optionLabels = field.options?.map((option) => optionLabel(field.name, option) ?? option);
  return {
    name: field.name, label: fieldLabel(type, field.name), kind: field.kind, required: field.required, help: fieldHelp(type, field.name),
    advanced: isAdvanced(type, field.name, field.required),
    ...(field.defaultValue === undefined ? {} : { default: field.defaultValue }),
    ...(field.options === undefined ? {} : { options: [...field.options] }),
    ...(optionLabels === undefined || optionLabels.every((text, index) => text === field.options?.[index]) ? {} : { option_labels: optionLabels }),
    ...(field.values === undefined ? {} : { values: field.values }),
  };
}

/** A type that runs code is not addable for a caller who may not configure code, and says so. */
function describeType(key: SourceTypeKey, mayConfigureCode: boolean): z.infer<typeof SourceTypeEntry> {
  const type = SOURCE_TYPES[key];
  const addable = isAddable(type) && (mayConfigureCode || !type.runsCode);
  const reason = addable ? null : isAddable(type) ? 'only an admin adds it: it runs code on the server' : type.wizardDisabledReason;
  const fields = addable ? sectionFields(key as Parameters<typeof sectionFields>[0]) : [];
  return {
    key, product: productOf(key), category: type.category, auth_type: type.authType, signs_in_with: signInOf(type.authType, key),
    addable, reason, offered_because: type.offeredBecause, how_to_add: isAddable(type) ? null : howToAdd(key), section: type.section, admin_only: type.runsCode,
    ...(fields.some((field) => field.name === FOLDER_FIELD) ? { folder_field: FOLDER_FIELD } : {}),
    fields: fields.map((field) => ({
      ...describeField(key, field), ...shownFor(key, field.name),
      ...(field.itemFields === undefined ? {} : { item_fields: field.itemFields.map((item) => describeField(key, item)) }),
    })),
  };
}
