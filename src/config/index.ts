export { projectPaths, type ProjectPaths } from './project-paths.ts';
export {
  ProjectConfigSchema, URL_STYLES, Endpoint, isObjectUrl, backupPlaceProblem, type ProjectConfig, type WarehouseConfig, type ObjectStoreConfig,
} from './project-config.ts';
export { DataRoots, OutsideDataRootsError, resolveDataRoots, realPathOf } from './data-roots.ts';
export {
  loadProjectConfig, serializeProjectConfig, loadEnvironment, loadSecretKey, readProjectFile, isMissingFile,
} from './project-files.ts';
export {
  setProjectSetting, setProjectSettings, configWithSetting, configWithSettings, setEnvValue, checkEnvValue, writeFileAtomically, removeEnvValue,
  type ProjectSetting,
} from './update-project-files.ts';
export { readYaml } from './read-yaml.ts';
export { describeKind, isMapping } from './yaml-value.ts';
export { formatProblem, validate, type Validation } from './format-issues.ts';
export { deepFreeze } from './deep-freeze.ts';
export { closestMatch } from './closest-match.ts';
export { encryptSecret, decryptSecret } from './secret-box.ts';
export { assertScheduledSourcesExist, scheduleSourceProblems, hostTimeZone, type ScheduleConfig, type ScheduleSyncConfig,
  type SyncScheduleConfig, type BackupScheduleConfig,
} from './schedules-config.ts';
export { INCIDENT_KINDS, type IncidentKind, type AlertConfig, type EmailAlertConfig } from './alerts-config.ts';
export { BUCKET_URL, BUCKET_URL_PROBLEM } from './bucket-url.ts';
