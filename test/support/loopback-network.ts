import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';

/** The hosts test servers (fake vendor APIs, local databases, alert receivers) listen on. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/** project.yml's section that lets sources and alerts reach servers on this machine, as tests' fakes are. */
export const LOOPBACK_NETWORK = { allow_private: [...LOOPBACK_HOSTS] } as const;

/** Lets the project's sources and alerts reach this machine (its project.yml's `network`), for tests whose servers run here. */
export async function allowLoopback(projectDir: string): Promise<void> {
  const file = path.join(projectDir, '.quarry', 'project.yml');
  const config = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, stringify({ ...config, network: LOOPBACK_NETWORK }));
}
