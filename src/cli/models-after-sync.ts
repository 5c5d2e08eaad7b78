import type { AppContext } from '../context.ts';
import type { ProgressLine } from './progress-line.ts';

/**
 * What syncs in this process set off in the transform runner, followed from when they are started: the refresh of
 * each source's staging models and, with `watcher.auto_transform`, the run of every model downstream, as the
 * service runs them. A command that closed without waiting for them would stop the runner before it queued the run.
 */
export class ModelsAfterSync {
  #built = 0;
  readonly #notBuilt: string[] = [];
  readonly #failingTests: string[] = [];
  readonly #unsubscribe: () => void;
  readonly #transform: AppContext['transform'];

  constructor(ctx: AppContext, progress: ProgressLine) {
    this.#transform = ctx.transform;
    this.#unsubscribe = ctx.events.subscribe((event) => {
      if (event.type === 'transform_run_started') progress.set(`Running the models downstream · ${event.model}`);
      else if (event.type === 'transform_run_completed') this.#built += 1;
      else if (event.type === 'transform_run_failed') this.#notBuilt.push(event.model);
      else if (event.type === 'transform_test_failed') this.#failingTests.push(event.test);
    });
  }

  /**
   * Waits for that work to end (the runner's idle covers the runs it queued); one line on how the models fared, or
   * undefined when none ran.
   */
  async settled(): Promise<string | undefined> {
    await this.#transform.idle();
    if (this.#built + this.#notBuilt.length === 0) return undefined;
    const parts = [`${String(this.#built)} built`];
    if (this.#notBuilt.length > 0) parts.push(`not built: ${this.#notBuilt.join(', ')}`);
    if (this.#failingTests.length > 0) parts.push(`failing tests: ${this.#failingTests.join(', ')}`);
    const problems = this.#notBuilt.length + this.#failingTests.length > 0 ? ' (see quarry logs)' : '';
    return `Models downstream: ${parts.join('; ')}${problems}`;
  }

  stop(): void {
    this.#unsubscribe();
  }
}
