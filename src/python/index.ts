export { pythonExecutable, pythonExecutableOrLog, PythonEnvironmentError, DEFAULT_ENVIRONMENTS_DIR } from './python-environment.ts';
export { PythonWorker, type PythonWorkerOptions, type WorkerMessage } from './python-worker.ts';
