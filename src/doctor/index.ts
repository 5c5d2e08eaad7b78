export { ok, problem, warning, type Finding } from './finding.ts';
export { checkDisk, checkNode, checkPort, checkPythonEnvironment, PYTHON_ENVIRONMENTS } from './machine-checks.ts';
export { checkDashboardTool, checkLeftoverJobs, checkPlatformDatabase, checkSharedPlatformStore } from './platform-checks.ts';
export { checkDuckDbExtensions, checkWarehouse, REQUIRED_EXTENSIONS } from './warehouse-checks.ts';
