import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import { dbtTargetDir } from './dbt-project.ts';
import { prepareDocsPage } from './docs-page.ts';

/** The folder the docs server serves: the docs site's three files, copied from target/ once complete. */
export function docsSiteDir(paths: ProjectPaths): string {
  return path.join(paths.runDir, 'transform-docs');
}

const DATA_FILES = ['manifest.json', 'catalog.json'];
/** Beside the page: the hashes of its inline scripts, which the policy it is served with allows. */
const SCRIPT_HASHES_FILE = '.script-hashes.json';

/**
 * Copies a finished `dbt docs generate` into the served folder, each file by rename, so a reader never
 * gets half a file; the page goes out prepared for a strict content security policy.
 */
export async function publishDocsSite(paths: ProjectPaths): Promise<void> {
  const site = docsSiteDir(paths);
  await mkdir(site, { recursive: true });
  const page = prepareDocsPage(await readFile(path.join(dbtTargetDir(paths), 'index.html'), 'utf8'));
  // For the instant between the two renames either page may be served: the policy allows both until the new one is in place.
  const previousHashes = docsSiteScriptHashes(site);
  await replaceFile(site, SCRIPT_HASHES_FILE, (file) => writeFile(file, JSON.stringify([...new Set([...previousHashes, ...page.scriptHashes])])));
  await replaceFile(site, 'index.html', (file) => writeFile(file, page.html));
  await replaceFile(site, SCRIPT_HASHES_FILE, (file) => writeFile(file, JSON.stringify(page.scriptHashes)));
  for (const name of DATA_FILES) await replaceFile(site, name, (file) => copyFile(path.join(dbtTargetDir(paths), name), file));
}

/** The CSP source expressions allowing exactly the published page's inline scripts; none before a page is published. */
export function docsSiteScriptHashes(site: string): string[] {
  try {
    const hashes: unknown = JSON.parse(readFileSync(path.join(site, SCRIPT_HASHES_FILE), 'utf8'));
    return Array.isArray(hashes) ? hashes.filter((hash): hash is string => typeof hash === 'string' && /^'sha256-[A-Za-z0-9+/=]+'$/.test(hash)) : [];
  } catch {
    return []; // nothing published yet: no inline script is allowed
  }
}

async function replaceFile(directory: string, name: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const temporary = path.join(directory, `.${name}.${String(process.pid)}.tmp`);
  try {
    await write(temporary);
    await rename(temporary, path.join(directory, name));
  } finally {
    await rm(temporary, { force: true });
  }
}
