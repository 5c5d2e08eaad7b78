/**
 * How the service starts a Node process of its own (a script beside its module): the same Node, and only what the
 * child needs from the environment — never the service's secrets.
 */
export function nodeChild(script: string, args: readonly string[] = []): { command: string; args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  // V8's compiled code, kept between runs by bin/lib/node-path.sh: a child starts in about half the time.
  const compileCache = process.env.NODE_COMPILE_CACHE;
  if (compileCache !== undefined && compileCache !== '') env.NODE_COMPILE_CACHE = compileCache;
  return { command: process.execPath, args: ['--disable-warning=ExperimentalWarning', script, ...args], env };
}
