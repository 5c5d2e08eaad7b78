import type { AnySource } from '../connector.ts';
import { GENERIC_CONFIG_SECTION } from './define-source-type.ts';

/**
 * The section holding a source's own fields (`payments:`, `generic_config:`, ...): named after its type, or the
 * shared one. Read from the source rather than the type registry, which lists the types that read it in turn; a
 * type's connector or loader is handed only its own type's sources, so it may take the section as its schema's output.
 */
export function sectionOf(source: AnySource): Readonly<Record<string, unknown>> {
  const sections = source as unknown as Record<string, Readonly<Record<string, unknown>> | undefined>;
  return sections[source.type] ?? sections[GENERIC_CONFIG_SECTION] ?? {};
}
