import { styleText } from 'node:util';
import { loadEnvironment, loadProjectConfig, projectPaths } from '../config/index.ts';
import { describeError } from '../errors.ts';
import {
  checkDashboardTool, checkDisk, checkDuckDbExtensions, checkLeftoverJobs, checkNode, checkPlatformDatabase, checkPort, checkPythonEnvironment, checkSharedPlatformStore,
  checkWarehouse, ok, problem,
  PYTHON_ENVIRONMENTS, type Finding,
} from '../doctor/index.ts';
import { describePostgresStore, openConfiguredStore } from '../store/index.ts';
import { lakeLocation } from '../warehouse/index.ts';
import { CliError } from './cli-error.ts';
import { runningServer } from '../os/index.ts';

/** Every check `quarry doctor` makes, in the order a person would fix things: the machine, then the project. */
async function examine(project: string, env: NodeJS.ProcessEnv): Promise<Finding[]> {
  const environmentsDir = env.QUARRY_PYTHON_ENVS_DIR;
  const findings: Finding[] = [checkNode(), ...PYTHON_ENVIRONMENTS.map((name) => checkPythonEnvironment(name, environmentsDir)), await checkDuckDbExtensions()];
  const paths = projectPaths(project);
  let config;
  try {
    config = loadProjectConfig(paths);
  } catch (error) {
    return [...findings, problem('Project', describeError(error), `fix ${paths.projectFile}, or run \`quarry init\` to create a project in ${paths.root}`)];
  }
  const server = runningServer(paths);
  const projectEnv = loadEnvironment(paths, process.env);
  const openPlatformStore = () => openConfiguredStore(paths.platformDb, config.platform, projectEnv);
  const store = config.platform.store;
  const platformDatabase = store.kind === 'sqlite'
    ? checkPlatformDatabase(paths.platformDb)
    : await checkSharedPlatformStore(openPlatformStore, describePostgresStore(store, config.platform.schema));
  findings.push(
    await checkDisk(paths.root),
    server === undefined
      ? await checkPort('web', config.web.host, config.web.port, 'web.port in .quarry/project.yml, or quarry start --port')
      : ok(`Port ${String(server.port ?? config.web.port)} (web)`, `in use by this project's running Quarry (pid ${String(server.pid)})${server.localUrl === '' ? '' : ` at ${server.localUrl}`}`),
    platformDatabase,
    // Its jobs are read once it is known to open.
    ...platformDatabase.level === 'ok' ? [await checkLeftoverJobs(openPlatformStore, new Date())] : [],
    await checkWarehouse(lakeLocation(paths, config, projectEnv)),
    checkDashboardTool(config.dashboard.enabled, environmentsDir),
  );
  return findings;
}

const MARKS = { ok: ['green', '✓'], warning: ['yellow', '!'], problem: ['red', '✗'] } as const;

/** `quarry doctor`: one line per check, each warning or problem with what to run; fails when there is a problem. */
export async function runDoctor(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  const findings = await examine(project, env);
  const lines = findings.map((finding) => {
    const [colour, mark] = MARKS[finding.level];
    const fix = finding.fix === undefined ? '' : `\n    → ${finding.fix}`;
    return `${styleText(colour, mark)} ${finding.check}: ${finding.detail}${fix}`;
  });
  const problems = findings.filter((finding) => finding.level === 'problem').length;
  if (problems > 0) {
    console.log(lines.join('\n'));
    throw new CliError(`${String(problems)} problem(s) found; each says what to run`);
  }
  return `${lines.join('\n')}\nAll checks passed.`;
}
