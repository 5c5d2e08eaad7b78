import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import type { LakeLocation } from '../warehouse/index.ts';

/** dbt's name for the project; unique ids read `model.quarry.<model>`. */
export const DBT_PROJECT_NAME = 'quarry';

const DBT_PROJECT_YML = `# The dbt project of this Quarry project (https://docs.getdbt.com).
# models/staging holds one view per raw table, written by Quarry after each sync (edit one and Quarry
# leaves it alone from then on); models/marts holds your tables built from them.
name: ${DBT_PROJECT_NAME}
version: "1.0.0"
config-version: 2
profile: quarry
model-paths: ["models"]
macro-paths: ["macros"]
target-path: target
clean-targets: [target]
models:
  ${DBT_PROJECT_NAME}:
    staging:
      +schema: staging
      +materialized: view
    marts:
      +schema: marts
      +materialized: table
# CSV files in seeds/ load as tables, snapshots/ keep the history of a table (SCD2), both built by every dbt build.
seeds:
  ${DBT_PROJECT_NAME}:
    +schema: seeds
    # Row inserts: dbt-duckdb's fast path (COPY FROM the file) is refused by the profile's enable_external_access: false.
    +fast: false
snapshots:
  ${DBT_PROJECT_NAME}:
    +schema: snapshots
# Rows failing a data test are kept here (Quarry runs the failed tests again with --store-failures).
data_tests:
  ${DBT_PROJECT_NAME}:
    +schema: test_failures
`;

// dbt builds in Quarry's lake, attached as `warehouse` (the catalog and data folder come from Quarry; the
// plugin quarry_lake.py, on dbt's PYTHONPATH, loads the extensions and sandboxes the connection before
// the attach). Models get the lake and nothing else of the host: no read_text or COPY TO on other files,
// no extension downloads; with the configuration locked, no model can switch that back. One thread:
// two models committing at once into the lake conflict ("Failed to commit DuckLake transaction").
/**
 * dbt's profile: an in-memory DuckDB with the lake attached by the quarry_lake plugin, which loads the
 * extensions by path and sandboxes the connection. A PostgreSQL catalog (the worker's own profile only) is
 * attached by the plugin before the sandbox closes, as lakeChildEnv describes it; its password reaches libpq
 * as PGPASSWORD.
 */
function profileYml(catalog: 'sqlite' | 'postgres'): string {
  const postgres = catalog === 'postgres';
  const pluginCatalog = postgres ? `
            catalog: "{{ env_var('QUARRY_LAKE_ATTACH') }}"
            metadata_schema: "{{ env_var('QUARRY_LAKE_METADATA_SCHEMA') }}"` : '';
  const attachPath = postgres ? "ducklake:{{ env_var('QUARRY_LAKE_ATTACH') }}" : "ducklake:sqlite:{{ env_var('QUARRY_LAKE_CATALOG') }}";
  const attachSchema = postgres ? `
            metadata_schema: "{{ env_var('QUARRY_LAKE_METADATA_SCHEMA') }}"` : '';
  return `quarry:
  target: warehouse
  outputs:
    warehouse:
      type: duckdb
      path: ":memory:"
      database: warehouse
      schema: main
      threads: 1
      config_options:
        autoinstall_known_extensions: false
        autoload_known_extensions: false
      plugins:
        - module: quarry_lake
          config:
            extensions_dir: "{{ env_var('QUARRY_DUCKDB_EXTENSIONS') }}"
            data_path: "{{ env_var('QUARRY_LAKE_DATA') }}"${pluginCatalog}
      attach:
        - path: "${attachPath}"
          alias: warehouse
          is_ducklake: true
          options:
            data_path: "{{ env_var('QUARRY_LAKE_DATA') }}"${attachSchema}
`;
}

// Without this dbt names custom schemas <target schema>_<name> (main_staging); layers are exactly staging and marts.
const GENERATE_SCHEMA_NAME = `{% macro generate_schema_name(custom_schema_name, node) -%}
    {{ (custom_schema_name or target.schema) | trim }}
{%- endmacro %}
`;

const GITIGNORE = 'target/\nlogs/\n';

/**
 * Settings of dbt_project.yml Quarry's runs depend on, by their path under the project's name in each section.
 * A project made by an earlier version lacks them: they are added, and one the user has set is never changed.
 */
const REQUIRED_SETTINGS = [
  { section: 'seeds', key: '+fast', value: false, why: "seeds load by row inserts (the sandbox refuses dbt-duckdb's COPY from the file)" },
  { section: 'data_tests', key: '+schema', value: 'test_failures', why: 'the failing rows of data tests are kept in the test_failures schema' },
] as const;

/** Adds the REQUIRED_SETTINGS an existing dbt_project.yml lacks, keeping its comments and layout; logs each one added. */
function addMissingSettings(file: string, log: Logger | undefined): void {
  const document = parseDocument(readFileSync(file, 'utf8'));
  // A file dbt cannot read either is left for dbt to report.
  if (document.errors.length > 0 || !isMap(document.contents)) return;
  const name = document.get('name');
  const project = typeof name === 'string' ? name : DBT_PROJECT_NAME;
  const added: string[] = [];
  for (const setting of REQUIRED_SETTINGS) {
    const keyPath = [setting.section, project, setting.key];
    if (document.hasIn(keyPath)) continue;
    try {
      document.setIn(keyPath, setting.value);
      added.push(`${keyPath.join('.')}: ${String(setting.value)} (${setting.why})`);
    } catch {
      log?.warn({ file, setting: keyPath.join('.') }, `dbt_project.yml could not be given ${keyPath.join('.')}: ${setting.why}; add it by hand`);
    }
  }
  if (added.length === 0) return;
  const written = `${file}.quarry-upgrade`;
  writeFileSync(written, document.toString());
  renameSync(written, file);
  log?.info({ file, added }, 'dbt_project.yml was given the settings this version of Quarry needs');
}

/**
 * Creates whatever part of the dbt project is missing (all of it for a new project) and adds the settings
 * Quarry needs to a dbt_project.yml an earlier version wrote; never replaces a file.
 */
export function ensureDbtProject(paths: ProjectPaths, log?: Logger): void {
  const directory = paths.transformDir;
  for (const folder of ['models/staging', 'models/marts', 'macros', 'seeds', 'snapshots']) mkdirSync(path.join(directory, folder), { recursive: true });
  const files: Record<string, string> = {
    'dbt_project.yml': DBT_PROJECT_YML,
    'profiles.yml': profileYml('sqlite'),
    'macros/generate_schema_name.sql': GENERATE_SCHEMA_NAME,
    '.gitignore': GITIGNORE,
  };
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(directory, name);
    if (!existsSync(file)) writeFileSync(file, content, { flag: 'wx' });
  }
  addMissingSettings(path.join(directory, 'dbt_project.yml'), log);
}

/**
 * Writes the profile Quarry's own dbt runs use, in the run folder and rewritten at every start: the
 * sandbox holds even when the project's profiles.yml predates it or was edited.
 */
export function writeWorkerProfile(paths: ProjectPaths, lake: LakeLocation): string {
  const directory = path.join(paths.runDir, 'dbt');
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'profiles.yml'), profileYml(lake.catalog.kind));
  return directory;
}

/** The folder dbt writes manifest.json, catalog.json and the docs site into. */
export function dbtTargetDir(paths: ProjectPaths): string {
  return path.join(paths.transformDir, 'target');
}
