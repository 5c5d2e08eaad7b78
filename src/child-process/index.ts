export { signalProcessGroup, stopProcessGroup, stopChild } from './process-group.ts';
export { RestartPolicy } from './restart-policy.ts';
export { nodeChild } from './node-child.ts';
