import { access } from 'node:fs/promises';
import type { AnySource } from './connector.ts';
import { listObjects } from './list-objects.ts';
import { listSourceFiles } from './list-source-files.ts';
import { ObjectStore, type ObjectStoreSettings } from './object-store.ts';
import type { FileLocation, ReadContext, SourceLoader } from './source-loader.ts';
import { SyncFailedError } from './sync-failed-error.ts';
import { syncFileSource } from './sync-file-source.ts';
import { sectionOf, type CsvReadOptions } from './type-definition/index.ts';

/** Where a file source's files are, and how its CSV files are read. */
interface FilesToRead extends FileLocation {
  /** `read_csv` options the source fixes for every CSV file; the rest is detected per file. */
  readonly csv?: CsvReadOptions | undefined;
}

/** Files that are objects in a bucket of S3-compatible storage. */
interface ObjectsToRead {
  readonly objects: ObjectStoreSettings;
  /** Matched against each object's key relative to the prefix, as a local file's relative path is. */
  readonly pattern: string;
  readonly csv?: CsvReadOptions | undefined;
}

/** Where a file type's files are, from its section: a local folder, a bucket, or the reason they cannot be read here. */
export type LocateFiles<Section> = (section: Section, projectDir: string) => FilesToRead | ObjectsToRead | { readonly unsupported: string };

/**
 * The loader of a type whose files DuckDB reads itself: the whole sync is one turn of the lake's writer, and the
 * file ledger decides which files are (re)loaded.
 */
export function readFiles<Section>(locateOwn: LocateFiles<Section>): SourceLoader {
  // A type's loader is handed only its own type's sources (`loaderFor`), whose section its schema parsed.
  const locate = (source: AnySource, projectDir: string) => locateOwn(sectionOf(source) as Section, projectDir);
  const fileLocation = (source: AnySource, projectDir: string): FilesToRead | undefined => {
    const location = locate(source, projectDir);
    return 'directory' in location ? location : undefined;
  };
  return {
    lockScope: 'sync',
    fileLocation,
    objectsPrefix(source, projectDir) {
      const location = locate(source, projectDir);
      return 'objects' in location ? location.objects.url.replace(/\/+$/, '') : undefined;
    },
    unsupportedReason(source, projectDir) {
      const location = locate(source, projectDir);
      return 'unsupported' in location ? location.unsupported : undefined;
    },
    async load(context) {
      const { source, signal } = context;
      const located = locate(source, context.projectDir);
      if ('objects' in located) {
        const store = await ObjectStore.open(located.objects, context.env, context.outbound);
        const spec = {
          source: source.name, directory: store.url, objects: store, pattern: located.pattern, csv: located.csv,
          fullRefresh: context.fullRefresh, lookbackDays: source.lookback_days, dataRoots: context.dataRoots, spreadsheetSeconds: context.spreadsheetSeconds,
        };
        const ledger = await context.ledger();
        return context.write((write) => store.grant(write.connection, () => syncFileSource(write, spec, ledger, context.now(), signal)));
      }
      const location = fileLocation(source, context.projectDir);
      // unsupportedReason stopped such a source before its job was queued.
      if (location === undefined) throw new SyncFailedError(`The files of ${source.name} are not in a local folder`);
      const spec = {
        source: source.name, ...location, fullRefresh: context.fullRefresh, lookbackDays: source.lookback_days, dataRoots: context.dataRoots,
        spreadsheetSeconds: context.spreadsheetSeconds,
      };
      const ledger = await context.ledger();
      return context.write((write) => syncFileSource(write, spec, ledger, context.now(), signal));
    },
    async probe(context) {
      const located = locate(context.source, context.projectDir);
      if ('objects' in located) return probeObjects(located, context.env, context.outbound);
      const location = fileLocation(context.source, context.projectDir);
      if (location === undefined) throw new SyncFailedError(`The files of ${context.source.name} are not in a local folder`);
      try {
        await access(location.directory);
      } catch {
        throw new SyncFailedError(`The directory ${location.directory} does not exist or cannot be read`);
      }
      const { files, outsideDataRoots } = await listSourceFiles(location.directory, location.pattern, context.dataRoots);
      const skipped = outsideDataRoots.length === 0 ? '' : `; ${String(outsideDataRoots.length)} more lead outside the data roots and are skipped`;
      return `${String(files.length)} file(s) match ${location.pattern} in ${location.directory}${skipped}`;
    },
  };
}

/** Lists the objects a sync would read and says how many match. */
async function probeObjects(
  located: ObjectsToRead, env: Readonly<Record<string, string | undefined>>, outbound: ReadContext['outbound'],
): Promise<string> {
  const store = await ObjectStore.open(located.objects, env, outbound);
  const files = await listObjects(store, located.pattern);
  return `${String(files.length)} object(s) match ${located.pattern} under ${store.url}/`;
}
