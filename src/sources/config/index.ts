export { loadSources } from './sources-file.ts';
export {
  parseSources, serializeSources, defaultSourcesYaml, stagingColumnNamesOf, type SourceConfig, type StagingColumnNames,
} from './sources-config.ts';
export { addSourceEntry, setSourceEnabled, readSourceSection, type SourceCheck } from './sources-file-edits.ts';
export { assertSourcesFileUnchanged, sourcesFileVersion, SourcesFileChangedError } from './sources-file-version.ts';
export {
  SOURCE_TYPES, SOURCE_TYPE_KEYS, CATEGORIES, isSourceTypeKey, isAddable,
  type SourceType, type SourceTypeKey, type ConfigurableSourceTypeKey, type Category,
} from './source-types.ts';
export { sectionFields, type SectionField } from './section-fields.ts';
export { fieldHelp } from './field-help.ts';
export { fieldLabel, isAdvanced, optionLabel, signInOf } from './field-labels.ts';
export { howToAdd, productOf } from './type-products.ts';
export { REST_AUTH_FIELDS, REST_AUTH_FIELD_NAMES, authTypesUsing } from './rest-auth-fields.ts';
export { shownSourceConfig, maskedHeaders } from './shown-source-config.ts';
export {
  addableType, addSourceToProject, candidateSource, newSourceNameProblem, type SourceAddition,
} from './source-addition.ts';
export { editSourceInProject, removeSourceFromProject, type SourceEdit } from './source-change.ts';
export {
  assertOwnVariables, assertSourceVariablesOwned, assertValuesGivenOrRead, credentialVariables, sourceEnvironment, sourceSecretValues, VariableNotOwnedError,
} from './source-variables.ts';
export { redactValues, REDACTED, SecretRedactor } from './secret-redactor.ts';
