import { input, password as passwordPrompt } from '@inquirer/prompts';
import { CliError } from './cli-error.ts';

export function isInteractive(nonInteractive: boolean | undefined): boolean {
  return nonInteractive !== true && process.stdin.isTTY && process.stdout.isTTY;
}

/** The flag's value, else an answer at the prompt, else (non-interactive) an error naming the flag. */
export async function valueOrPrompt(
  value: string | undefined,
  options: { flag: string; message: string; interactive: boolean; secret?: boolean; default?: string },
): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!options.interactive) {
    if (options.default !== undefined) return options.default;
    throw new CliError(`${options.flag} is required when not running interactively`);
  }
  if (options.secret === true) return passwordPrompt({ message: options.message, mask: '*' });
  return input({ message: options.message, ...(options.default === undefined ? {} : { default: options.default }), required: true });
}
