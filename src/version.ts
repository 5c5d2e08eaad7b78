import packageJson from '../package.json' with { type: 'json' };

/** The package's semver: `service_version` in /api/status, backups' manifests and `quarry --version`. */
export const SERVICE_VERSION: string = packageJson.version;
