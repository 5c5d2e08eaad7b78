import { copyFileSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** How a tree's files reach their copy: hard-linked where possible (files never rewritten in place) or copied. */
export type TreeCopy = 'link' | 'copy';

/**
 * Copies the regular files under `from` to `to` (top-level folders named in `skip` left out) and returns
 * how many there were. With `link`, each file is hard-linked, and copied only where a link cannot be made
 * (another file system, or one without hard links).
 */
export function copyTree(from: string, to: string, how: TreeCopy, skip: readonly string[] = []): number {
  let files = 0;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skip.includes(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      files += copyTree(source, target, how);
    } else if (entry.isFile()) {
      mkdirSync(to, { recursive: true });
      if (how === 'link') linkOrCopy(source, target);
      else copyFileSync(source, target);
      files += 1;
    }
  }
  return files;
}

function linkOrCopy(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch (error) {
    if (!cannotLink(error)) throw error;
    copyFileSync(source, target);
  }
}

function cannotLink(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP';
}
