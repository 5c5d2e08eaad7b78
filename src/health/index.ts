export { checkPlatformHealth, warehouseSize, type PlatformHealthInputs, type PlatformHealthReport } from './platform-health.ts';
