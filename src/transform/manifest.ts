import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../config/index.ts';

export interface ModelNode {
  readonly uniqueId: string;
  readonly name: string;
  readonly description: string;
  readonly database: string;
  readonly schema: string;
  readonly materialization: string;
  /** Names of the upstream models (sources and other resources left out). */
  readonly dependsOn: readonly string[];
  /** The raw tables it reads as dbt sources. */
  readonly sourceTables: readonly { readonly schema: string; readonly name: string }[];
}

/** A data test of the manifest. */
export interface TestNode {
  readonly uniqueId: string;
  readonly name: string;
  /** The model (or seed, snapshot) it checks: the one it is attached to, or the only one a singular test reads; null for one over several. */
  readonly model: string | null;
  readonly column: string | null;
  /** `unique`, `not_null`, `relationships`... or `singular`. */
  readonly type: string;
}

/** The models of a dbt manifest, how they depend on one another, and their data tests. */
export class ModelGraph {
  readonly models: ReadonlyMap<string, ModelNode>;
  readonly tests: readonly TestNode[];
  readonly #children: ReadonlyMap<string, readonly string[]>;
  readonly #namesById: ReadonlyMap<string, string>;
  readonly #testsById: ReadonlyMap<string, TestNode>;

  constructor(models: readonly ModelNode[], children: ReadonlyMap<string, readonly string[]>, tests: readonly TestNode[] = []) {
    this.models = new Map(models.map((model) => [model.name, model]));
    this.tests = tests;
    this.#namesById = new Map(models.map((model) => [model.uniqueId, model.name]));
    this.#testsById = new Map(tests.map((test) => [test.uniqueId, test]));
    this.#children = children;
  }

  static readonly empty = new ModelGraph([], new Map());

  /** The model and every model downstream of it (dbt's `name+`), in no particular order. */
  withDownstream(name: string): Set<string> {
    const model = this.models.get(name);
    return model ? this.#downstreamOfIds([model.uniqueId]) : new Set();
  }

  /** The models downstream of every resource whose id starts with the prefix (a source's tables, say). */
  downstreamOf(uniqueIdPrefix: string): Set<string> {
    const roots = [...this.#children.keys()].filter((id) => id.startsWith(uniqueIdPrefix));
    return this.#downstreamOfIds(roots);
  }

  nameOf(uniqueId: string): string | undefined {
    return this.#namesById.get(uniqueId);
  }

  /** The model the test of that id checks (TestNode's `model`); null for one over several or unknown. */
  testedModel(testId: string): string | null {
    return this.#testsById.get(testId)?.model ?? null;
  }

  #downstreamOfIds(roots: readonly string[]): Set<string> {
    const selected = new Set<string>();
    const pending = [...roots];
    const visited = new Set<string>();
    while (pending.length > 0) {
      const id = pending.pop() ?? '';
      if (visited.has(id)) continue;
      visited.add(id);
      const name = this.#namesById.get(id);
      if (name !== undefined) selected.add(name);
      pending.push(...(this.#children.get(id) ?? []));
    }
    return selected;
  }
}

const BUILT_RESOURCES = new Set(['model', 'seed', 'snapshot']);

interface ManifestJson {
  nodes?: Record<string, {
    resource_type?: string; name?: string; description?: string; database?: string | null; schema?: string;
    config?: { materialized?: string }; depends_on?: { nodes?: string[] };
    attached_node?: string | null; column_name?: string | null; test_metadata?: { name?: string } | null;
  }>;
  sources?: Record<string, { schema?: string; name?: string; identifier?: string }>;
  child_map?: Record<string, string[]>;
}

/** Reads target/manifest.json; undefined when dbt has not written one yet, or is writing it this moment. */
export async function readModelGraph(targetDir: string): Promise<ModelGraph | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(targetDir, 'manifest.json'), 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
  let manifest: ManifestJson;
  try {
    manifest = JSON.parse(text) as ManifestJson;
  } catch {
    // dbt writes manifest.json in place: a read during a parse or run may see half of it. The graph read before
    // stays; the one after dbt finishes is whole.
    return undefined;
  }
  // Seeds and snapshots are built by the same runs and listed beside the models (materialization `seed`, `snapshot`).
  const nodes = Object.entries(manifest.nodes ?? {}).filter(([, node]) => BUILT_RESOURCES.has(node.resource_type ?? ''));
  const isModel = new Set(nodes.map(([id]) => id));
  const models = nodes.map(([id, node]): ModelNode => ({
    uniqueId: id,
    name: node.name ?? id,
    description: node.description ?? '',
    database: node.database ?? '',
    schema: node.schema ?? '',
    materialization: node.config?.materialized ?? 'view',
    dependsOn: (node.depends_on?.nodes ?? []).filter((dependency) => isModel.has(dependency))
      .map((dependency) => manifest.nodes?.[dependency]?.name ?? dependency),
    sourceTables: (node.depends_on?.nodes ?? []).flatMap((dependency) => {
      const source = manifest.sources?.[dependency];
      const name = source?.identifier ?? source?.name;
      return source?.schema === undefined || name === undefined ? [] : [{ schema: source.schema, name }];
    }),
  }));
  const tests = Object.entries(manifest.nodes ?? {}).filter(([, node]) => node.resource_type === 'test').map(([id, node]): TestNode => {
    const tested = testedNodeOf(node, isModel);
    return {
      uniqueId: id,
      name: node.name ?? id,
      model: tested === null ? null : manifest.nodes?.[tested]?.name ?? tested,
      column: node.column_name ?? null,
      type: node.test_metadata?.name ?? 'singular',
    };
  });
  return new ModelGraph(models, new Map(Object.entries(manifest.child_map ?? {})), tests);
}

/**
 * The node a test checks. A generic test is attached to it; a singular test (a query in tests/) is not, and
 * belongs to the one model it reads, so its outcome counts with that model's tests.
 */
function testedNodeOf(node: { attached_node?: string | null; depends_on?: { nodes?: string[] } }, isModel: ReadonlySet<string>): string | null {
  if (node.attached_node) return node.attached_node;
  const read = (node.depends_on?.nodes ?? []).filter((dependency) => isModel.has(dependency));
  return read.length === 1 ? read[0] ?? null : null;
}
