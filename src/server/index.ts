export { buildApp, type AppParts } from './build-app.ts';
export { startPlatform, type Platform, type PlatformOptions } from './start-platform.ts';
export { webUrl } from './routes/web-url.ts';
