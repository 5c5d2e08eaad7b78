import path from 'node:path';
import type { ProjectConfig, ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { pythonExecutableOrLog } from '../python/index.ts';
import type { LakeLocation } from '../warehouse/index.ts';
import { SupersetProcess } from './superset-process.ts';

/** Starts Superset for the project; undefined (logged) when the superset environment is missing. */
export function startDashboard(options: {
  paths: ProjectPaths; lake: LakeLocation; config: ProjectConfig; log: Logger; pythonEnvironmentsDir?: string;
  baseEnv: Readonly<Record<string, string>>;
  /** Overrides dashboard.port (0: any free port). */
  port?: number;
}): SupersetProcess | undefined {
  const python = pythonExecutableOrLog('superset', options.pythonEnvironmentsDir, options.log, 'the dashboard tool is unavailable');
  if (python === undefined) return undefined;
  const superset = new SupersetProcess({
    binDir: path.dirname(python),
    home: options.paths.dashboardHome,
    lake: options.lake,
    port: options.port ?? options.config.dashboard.port,
    https: options.config.web.public_url?.startsWith('https:') === true,
    baseEnv: options.baseEnv,
    log: options.log,
  });
  superset.start();
  return superset;
}
