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
  /** Holds the pid of the serving `quarry start` while it runs. */
  readonly serverPidFile: string;
  /** The Unix socket the transformation-docs server listens on (mode 0600, not a port any local user can reach). */
  readonly docsSocket: string;
  readonly warehouseDir: string;
  readonly warehouseFile: string;
  /** Where read-only replicas of the warehouse are published (serving/v<N>/, serving/current, serving/warehouse.duckdb). */
  readonly servingDir: string;
  /** The published replica, through serving/warehouse.duckdb: what the API and dbt read. */
  readonly servingFile: string;
  /** The published replica through serving/current, so a reader that keeps the path sees a new version at its next query. */
  readonly servingCurrentFile: string;
  readonly transformDir: string;
  readonly dataDir: string;
  /** Dashboards the project ships (<slug>.json), created in the dashboard tool once. */
  readonly dashboardsDir: string;
}

export function projectPaths(projectDir: string): ProjectPaths {
  const root = path.resolve(projectDir);
  const configDir = path.join(root, '.quarry');
  const warehouseDir = path.join(root, 'warehouse');
  const runDir = path.join(configDir, 'run');
  const servingDir = path.join(warehouseDir, 'serving');
  return Object.freeze({
    root,
    configDir,
    projectFile: path.join(configDir, 'project.yml'),
    sourcesFile: path.join(configDir, 'sources.yml'),
    envFile: path.join(root, '.env'),
    secretKeyFile: path.join(configDir, 'secret.key'),
    platformDb: path.join(configDir, 'platform.db'),
    runDir,
    serverPidFile: path.join(runDir, 'server.pid'),
    docsSocket: path.join(runDir, 'docs.sock'),
    warehouseDir,
    warehouseFile: path.join(warehouseDir, 'warehouse.duckdb'),
    servingDir,
    servingFile: path.join(servingDir, 'warehouse.duckdb'),
    servingCurrentFile: path.join(servingDir, 'current', 'warehouse.duckdb'),
    transformDir: path.join(root, 'transform'),
    dataDir: path.join(root, 'data'),
    dashboardsDir: path.join(root, 'dashboards'),
  });
}
