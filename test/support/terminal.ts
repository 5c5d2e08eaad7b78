import { spawn } from 'node:child_process';

/** How a shell reads one word as it is. */
function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

export interface TerminalOptions {
  /** Stop the command with SIGINT (as Ctrl-C does) once its output matches. */
  until?: RegExp;
  /** Runs once `until` matched, before the command is stopped, with the output so far. */
  meanwhile?: (output: string) => Promise<void>;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs a command on a pseudo-terminal (util-linux `script`), as a person at a terminal would see it, and
 * resolves with everything it printed (escape sequences included) once it exits or, when `until` is given,
 * once its output matches `until` and `meanwhile` has run.
 */
export function runInTerminal(command: string, args: readonly string[], options: TerminalOptions = {}): Promise<string> {
  const line = `stty cols 120 rows 40; exec ${[command, ...args].map(shellQuoted).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: options.env ?? process.env });
  return new Promise((resolve, reject) => {
    let output = '';
    let stopping = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!stopping && options.until?.test(output) === true && child.pid !== undefined) {
        stopping = true;
        const group = -child.pid;
        void (options.meanwhile?.(output) ?? Promise.resolve()).finally(() => { process.kill(group, 'SIGINT'); });
      }
    });
    child.on('error', reject);
    child.on('close', () => { resolve(output); });
  });
}
