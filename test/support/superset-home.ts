import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { SupersetProcess } from '../../src/dashboard/index.ts';
import { createLogger } from '../../src/logger.ts';
import { pythonExecutable } from '../../src/python/index.ts';

const INITIALISE_TIMEOUT_MS = 300_000;

/**
 * Gives `home` an initialised Superset home, as its first start would leave it: built once per test run, since
 * Superset's migrations and `init` take most of a minute, and copied for each project.
 */
export async function copyInitialisedSupersetHome(home: string): Promise<void> {
  const template = path.join(inject('runFolder'), 'superset-home');
  if (!existsSync(template)) await buildOnce(template);
  cpSync(template, home, { recursive: true });
}

/**
 * Builds the template unless another file is building it, then waits for that one: files that start together
 * would each spend most of a minute of both cores on the same migrations.
 */
async function buildOnce(template: string): Promise<void> {
  const lock = `${template}.lock`;
  try {
    mkdirSync(lock);
  } catch {
    // Another file builds it (the run folder is new each run, so a lock never outlives its builder's run).
    const deadline = Date.now() + INITIALISE_TIMEOUT_MS;
    while (!existsSync(template) && existsSync(lock) && Date.now() < deadline) await delay(500);
    if (!existsSync(template)) await buildHome(template); // its builder failed: try here, where the error shows
    return;
  }
  try {
    await buildHome(template);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function buildHome(template: string): Promise<void> {
  const scratch = mkdtempSync(`${template}.building-`);
  const home = path.join(scratch, 'home');
  try {
    const superset = new SupersetProcess({
      binDir: path.dirname(pythonExecutable('superset')), home, port: 0, https: false,
      lake: { catalog: { kind: 'sqlite', file: path.join(scratch, 'catalog.sqlite') }, dataPath: `${path.join(scratch, 'lake')}/` },
      baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, log: createLogger({ level: 'silent' }),
    });
    await superset.initialiseHome(AbortSignal.timeout(INITIALISE_TIMEOUT_MS));
    // Another file may have built one meanwhile: either is as good, and the rename never leaves half of one.
    if (!existsSync(template)) renameSync(home, template);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
