export { signalProcessGroup, stopProcessGroup, stopChild } from './process-group.ts';
export { RestartPolicy } from './restart-policy.ts';
