export { currentThreadId, lowerThreadPriority } from './thread-priority.ts';
export { confined, inReadOnlyView, type CommandLine } from './read-only-view.ts';
export { isRunning, thisProcess, type ProcessIdentity } from './process-identity.ts';
export { recordRunningServer, runningServer, type RunningServer } from './running-server.ts';
