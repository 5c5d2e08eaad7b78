import { z } from 'zod';
import { defineSourceType } from '../source-type-definition.ts';
import { SourceName } from './field-types.ts';
import { refuseSecretLiterals } from './secret-literal.ts';

const PythonModule = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Python module name`,
});
const PythonIdentifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Python function name`,
});

const FunctionArguments = z.record(z.string(), z.unknown()).superRefine((values, context) => {
  refuseSecretLiterals(values, context, 'keep it in an environment variable and write env:NAME here');
});

/** `pipeline_name` and `dataset_name` default to the source's name, which only the loader knows. */
export const NativePipelineSection = z.strictObject({
  source_module: PythonModule,
  source_function: PythonIdentifier,
  function_kwargs: FunctionArguments.default(() => ({})),
  pipeline_name: SourceName.optional(),
  dataset_name: SourceName.optional(),
});
export type NativePipelineSection = z.output<typeof NativePipelineSection>;

export const nativePipelineType = defineSourceType({
  key: 'native_pipeline', category: 'Local & Custom', authType: 'None', wizard: true, incremental: false,
  section: 'own', schema: NativePipelineSection,
});
