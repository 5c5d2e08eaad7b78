import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const PROJECT_FILE = path.join('.quarry', 'project.yml');
const MOST_SHOWN = 3;

/**
 * Quarry projects near a folder that is not one, as `--project` values relative to it: the folders above it
 * (run from inside a project's data/), then those below it, two levels deep (run from the folder holding it).
 */
export function nearbyProjects(folder: string): string[] {
  const found: string[] = [];
  for (let above = path.dirname(folder); above !== path.dirname(above); above = path.dirname(above)) {
    if (existsSync(path.join(above, PROJECT_FILE))) found.push(above);
  }
  for (const child of subfolders(folder)) {
    if (existsSync(path.join(child, PROJECT_FILE))) found.push(child);
    else found.push(...subfolders(child).filter((grandchild) => existsSync(path.join(grandchild, PROJECT_FILE))));
  }
  return found.slice(0, MOST_SHOWN).map((project) => path.relative(folder, project));
}

function subfolders(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
      .map((entry) => path.join(folder, entry.name)).sort();
  } catch {
    return [];
  }
}
