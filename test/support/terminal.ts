import { spawn } from 'node:child_process';

/** How a shell reads one word as it is. */
function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs a command on a pseudo-terminal (util-linux `script`), as a person at a terminal would see it, and
 * resolves with everything it printed (escape sequences included) once it exits or, when `until` is given,
 * once its output matches `until` (the command is then stopped with SIGINT, as Ctrl-C does).
 */
export function runInTerminal(command: string, args: readonly string[], options: { until?: RegExp; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const line = `stty cols 120 rows 40; exec ${[command, ...args].map(shellQuoted).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: options.env ?? process.env });
  return new Promise((resolve, reject) => {
    let output = '';
    let stopping = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!stopping && options.until?.test(output) === true && child.pid !== undefined) {
        stopping = true;
        process.kill(-child.pid, 'SIGINT');
      }
    });
    child.on('error', reject);
    child.on('close', () => { resolve(output); });
  });
}
