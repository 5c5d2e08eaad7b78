import type { AppContext } from '../../context.ts';
import { assertOwnVariables, assertValuesGivenOrRead, type SourceConfig } from '../../sources/config/index.ts';
import { assertSourceWithinProject } from '../../sources/index.ts';

/**
 * What every source sent from a form (added, edited or tested) must satisfy before anything is written or run:
 * it stays within what the project gives it, declares only variables that may be its own, and reads no value of the
 * environment it was not given.
 */
export function formSourceCheck(ctx: AppContext, secrets: Readonly<Record<string, string>>): (source: SourceConfig) => void {
  return (source) => {
    assertSourceWithinProject(source, ctx.dataRoots, ctx.paths.root);
    assertOwnVariables(ctx.paths, source, Object.keys(secrets));
    assertValuesGivenOrRead(ctx.paths, source, Object.keys(secrets), ctx.env, ctx.fixedVariables);
  };
}
