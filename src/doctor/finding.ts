/** What one check of `quarry doctor` found: fine, worth a look, or a problem with the command that fixes it. */
export interface Finding {
  readonly check: string;
  readonly level: 'ok' | 'warning' | 'problem';
  readonly detail: string;
  /** What to run or change; for warnings and problems. */
  readonly fix?: string;
}

export const ok = (check: string, detail: string): Finding => ({ check, level: 'ok', detail });
export const warning = (check: string, detail: string, fix?: string): Finding => ({ check, level: 'warning', detail, ...(fix === undefined ? {} : { fix }) });
export const problem = (check: string, detail: string, fix: string): Finding => ({ check, level: 'problem', detail, fix });
