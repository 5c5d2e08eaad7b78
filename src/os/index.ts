export { currentThreadId, lowerThreadPriority } from './thread-priority.ts';
export { inReadOnlyView, type CommandLine } from './read-only-view.ts';
