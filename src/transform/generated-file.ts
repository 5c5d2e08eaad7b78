import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMissingFile, writeFileAtomically } from '../config/index.ts';

const MARKER = /^(--|#) quarry:generated checksum=([0-9a-f]{16})\n/;

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

export type GeneratedFileOutcome = 'written' | 'unchanged' | 'kept_user_edit';

/** The body of a file Quarry generated and nobody edited since; undefined for a missing or user-edited file. */
export function readGeneratedFile(file: string): string | undefined {
  let existing: string;
  try {
    existing = readFileSync(file, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
  const marker = MARKER.exec(existing);
  const body = marker ? existing.slice(marker[0].length) : undefined;
  return body !== undefined && marker?.[2] === checksum(body) ? body : undefined;
}

/**
 * Writes a file Quarry generates, headed by a marker with the checksum of its body. A file without the
 * marker, or whose body no longer matches it, was written or edited by the user and is never replaced.
 */
export function writeGeneratedFile(file: string, body: string, commentPrefix: '--' | '#'): GeneratedFileOutcome {
  const content = `${commentPrefix} quarry:generated checksum=${checksum(body)}\n${body}`;
  let existing: string | undefined;
  try {
    existing = readFileSync(file, 'utf8');
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
  if (existing === content) return 'unchanged';
  if (existing !== undefined) {
    const marker = MARKER.exec(existing);
    if (!marker || marker[2] !== checksum(existing.slice(marker[0].length))) return 'kept_user_edit';
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomically(file, content, 0o644);
  return 'written';
}
