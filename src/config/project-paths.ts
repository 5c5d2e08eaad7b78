import path from 'node:path';

/** Where everything of one project lives, derived from its folder alone. */
export interface ProjectPaths {
  readonly root: string;
  readonly configDir: string;
  readonly projectFile: string;
  readonly sourcesFile: string;
  readonly envFile: string;
  readonly secretKeyFile: string;
  readonly platformDb: string;
  readonly runDir: string;
  readonly warehouseDir: string;
  readonly warehouseFile: string;
  readonly transformDir: string;
  readonly dataDir: string;
  /** Dashboards the project ships (<slug>.json), created in the dashboard tool once. */
  readonly dashboardsDir: string;
}

export function projectPaths(projectDir: string): ProjectPaths {
  const root = path.resolve(projectDir);
  const configDir = path.join(root, '.quarry');
  const warehouseDir = path.join(root, 'warehouse');
  return Object.freeze({
    root,
    configDir,
    projectFile: path.join(configDir, 'project.yml'),
    sourcesFile: path.join(configDir, 'sources.yml'),
    envFile: path.join(root, '.env'),
    secretKeyFile: path.join(configDir, 'secret.key'),
    platformDb: path.join(configDir, 'platform.db'),
    runDir: path.join(configDir, 'run'),
    warehouseDir,
    warehouseFile: path.join(warehouseDir, 'warehouse.duckdb'),
    transformDir: path.join(root, 'transform'),
    dataDir: path.join(root, 'data'),
    dashboardsDir: path.join(root, 'dashboards'),
  });
}
