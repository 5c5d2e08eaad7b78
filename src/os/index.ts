export { currentThreadId, lowerThreadPriority } from './thread-priority.ts';
