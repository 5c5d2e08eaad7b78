export { projectPaths, type ProjectPaths } from './project-paths.ts';
export { ProjectConfigSchema, type ProjectConfig } from './project-config.ts';
export {
  loadProjectConfig, serializeProjectConfig, loadEnvironment, loadSecretKey, isMissingFile,
} from './project-files.ts';
export { loadSources } from './sources-file.ts';
export { parseSources, serializeSources, defaultSourcesYaml, type SourceConfig } from './sources-config.ts';
export { createProjectFiles } from './create-project-files.ts';
export { setProjectSetting, setEnvValue, writeFileAtomically } from './update-project-files.ts';
