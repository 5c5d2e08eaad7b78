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
  /** The lake's catalog (tables, data files, snapshots): an SQLite database DuckLake keeps. */
  readonly lakeCatalogFile: string;
  /** The lake's Parquet data files, written once and never changed. */
  readonly lakeDataDir: string;
  /** Held (an OS lock) by the one process writing the lake, so a second `quarry` fails fast instead of conflicting. */
  readonly writerLockFile: string;
  /** The single-file warehouse of Quarry before the lake: converted into the lake on the first start, then removed. */
  readonly legacyWarehouseFile: string;
  readonly transformDir: string;
  readonly dataDir: string;
  /** The dashboard tool's home: its metadata DB, secret key and service-account password. */
  readonly dashboardHome: string;
  /** Dashboards the project ships (<slug>.json), created in the dashboard tool once. */
  readonly dashboardsDir: string;
}

export function projectPaths(projectDir: string): ProjectPaths {
  const root = path.resolve(projectDir);
  const configDir = path.join(root, '.quarry');
  const warehouseDir = path.join(root, 'warehouse');
  const runDir = path.join(configDir, 'run');
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
    lakeCatalogFile: path.join(warehouseDir, 'catalog.sqlite'),
    lakeDataDir: path.join(warehouseDir, 'data'),
    writerLockFile: path.join(warehouseDir, 'writer.lock'),
    legacyWarehouseFile: path.join(warehouseDir, 'warehouse.duckdb'),
    transformDir: path.join(root, 'transform'),
    dataDir: path.join(root, 'data'),
    dashboardHome: path.join(configDir, 'dashboard'),
    dashboardsDir: path.join(root, 'dashboards'),
  });
}
