export {
  defineSourceType, refuseSourceType, AUTH_TYPES, CATEGORIES, GENERIC_CONFIG_SECTION,
  type AuthType, type Category, type ResourceLists, type SourceTypeDefinition,
} from './define-source-type.ts';
export {
  SOURCE_NAME_PATTERN, ENV_VAR_NAME_PATTERN, NonEmptyString, StringList, FilePattern, SourceName, EnvVarName, CalendarDate, Subdomain,
  isCalendarDate, HttpUrl, NumericId, resourceList, boundsInOrder, requiredUnless,
} from './field-types.ts';
export { genericConfig } from './generic-config.ts';
export { sectionOf } from './section-of.ts';
export { ReportDate, ReportTableName } from './report-fields.ts';
export { CsvReadOptions } from './csv-read-options.ts';
export { ENV_REFERENCE_PREFIX, isEnvReference, looksSecret, refuseSecretLiterals } from './secret-literal.ts';
export { RestApiSection, endpointTableName, REST_API_AUTH_TYPES, type RestApiAuthType, type RestApiEndpoint } from './rest-api-section.ts';
