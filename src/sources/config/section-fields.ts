import type { z } from 'zod';
import { sectionSchema } from './source-entry.ts';
import type { ConfigurableSourceTypeKey } from './source-types.ts';

/** How a field is asked for: the wizard picks its prompt from the kind. */
export type FieldKind = 'text' | 'env' | 'choice' | 'choices' | 'list' | 'boolean' | 'number' | 'mapping' | 'items';

export interface SectionField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly defaultValue?: unknown;
  /** For `choice` and `choices`: the allowed values. */
  readonly options?: readonly string[];
  /** For `mapping`: whether every value is text (headers), or values may be numbers, booleans and lists too. */
  readonly values?: 'text' | 'any';
  /** For `items`: the fields of each item, in the order the schema declares them. */
  readonly itemFields?: readonly SectionField[];
}

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly defaultValue?: unknown;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly entries?: Readonly<Record<string, string>>;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { def: Def }).def;
}

/** The field's schema without optional/default/preprocess wrappers, with what they said. */
function unwrap(schema: z.ZodType): { core: z.ZodType; required: boolean; defaultValue?: unknown } {
  let core = schema;
  let required = true;
  let defaultValue: unknown;
  for (;;) {
    const def = defOf(core);
    if (def.type === 'optional' && def.innerType) { required = false; core = def.innerType; continue; }
    if (def.type === 'default' && def.innerType) { required = false; defaultValue = def.defaultValue; core = def.innerType; continue; }
    if (def.type === 'pipe' && def.out) { core = defOf(def.out).type === 'transform' && def.in ? def.in : def.out; continue; }
    return { core, required, defaultValue };
  }
}

function kindOf(name: string, core: z.ZodType): Pick<SectionField, 'kind' | 'options' | 'values' | 'itemFields'> {
  const def = defOf(core);
  if (name.endsWith('_env') && def.type === 'string') return { kind: 'env' };
  switch (def.type) {
    case 'enum': return { kind: 'choice', options: Object.values(def.entries ?? {}) };
    case 'boolean': return { kind: 'boolean' };
    case 'number': case 'int': return { kind: 'number' };
    case 'record': {
      const value = def.valueType === undefined ? undefined : defOf(unwrap(def.valueType).core);
      return { kind: 'mapping', values: value?.type === 'string' ? 'text' : 'any' };
    }
    case 'object': return { kind: 'mapping', values: 'any' };
    case 'array': {
      const element = def.element === undefined ? undefined : unwrap(def.element).core;
      const elementDef = element === undefined ? undefined : defOf(element);
      if (elementDef?.type === 'enum') return { kind: 'choices', options: Object.values(elementDef.entries ?? {}) };
      if (element !== undefined && elementDef?.type === 'object') return { kind: 'items', itemFields: fieldsOf(element) };
      return { kind: 'list' };
    }
    default: return { kind: 'text' };
  }
}

function fieldsOf(schema: z.ZodType): SectionField[] {
  const shape = (schema as unknown as { shape?: Readonly<Record<string, z.ZodType>> }).shape ?? {};
  return Object.entries(shape).map(([name, field]) => {
    const { core, required, defaultValue } = unwrap(field);
    return { name, required, ...(defaultValue === undefined ? {} : { defaultValue }), ...kindOf(name, core) };
  });
}

/** The fields of a type's section in sources.yml, in the order its schema declares them, for prompts and checks. */
export function sectionFields(type: ConfigurableSourceTypeKey): SectionField[] {
  return fieldsOf(sectionSchema(type));
}
