export { BACKGROUND_NICENESS, currentThreadId, lowerThreadPriority } from './thread-priority.ts';
