export { projectPaths, type ProjectPaths } from './project-paths.ts';
export { ProjectConfigSchema, type ProjectConfig, type WarehouseConfig } from './project-config.ts';
export { DataRoots, OutsideDataRootsError, resolveDataRoots, realPathOf } from './data-roots.ts';
export {
  loadProjectConfig, serializeProjectConfig, loadEnvironment, loadSecretKey, isMissingFile,
} from './project-files.ts';
export { loadSources } from './sources-file.ts';
export { parseSources, serializeSources, defaultSourcesYaml, type SourceConfig } from './sources-config.ts';
export { createProjectFiles } from './create-project-files.ts';
export {
  setProjectSetting, setEnvValue, checkEnvValue, writeFileAtomically, addSourceEntry, setSourceEnabled,
  readSourceSection, removeEnvValue, type SourceCheck,
} from './update-project-files.ts';
export { sectionFields, type SectionField } from './section-fields.ts';
export {
  addableType, addSourceToProject, candidateSource, newSourceNameProblem, type SourceAddition,
} from './source-addition.ts';
export { editSourceInProject, removeSourceFromProject, type SourceEdit } from './source-change.ts';
export {
  assertOwnVariables, assertSourceVariablesOwned, credentialVariables, sourceEnvironment, sourceSecretValues, VariableNotOwnedError,
} from './source-variables.ts';
export { redactValues, REDACTED, SecretRedactor } from './secret-redactor.ts';
export { REST_AUTH_FIELDS, REST_AUTH_FIELD_NAMES, authTypesUsing } from './rest-auth-fields.ts';
export { fieldHelp } from './field-help.ts';
export { assertSourcesFileUnchanged, sourcesFileVersion, SourcesFileChangedError } from './sources-file-version.ts';
export type { SourceConfigOf } from './source-entry.ts';
export {
  SOURCE_TYPES, SOURCE_TYPE_KEYS, CATEGORIES, isSourceTypeKey,
  type SourceType, type SourceTypeKey, type ConfigurableSourceTypeKey, type Category,
} from './source-types.ts';
export {
  endpointTableName, ENV_REFERENCE_PREFIX, isEnvReference, type RestApiSection, type RestApiEndpoint, type CsvReadOptions,
} from '../sources/type-definition/index.ts';
export { shownSourceConfig, maskedHeaders } from './shown-source-config.ts';
export { closestMatch } from './closest-match.ts';
export { assertScheduledSourcesExist, scheduleSourceProblems, hostTimeZone, type ScheduleConfig, type ScheduleSyncConfig } from './schedules-config.ts';
export { INCIDENT_KINDS, type IncidentKind, type AlertConfig, type EmailAlertConfig } from './alerts-config.ts';
