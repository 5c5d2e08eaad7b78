import path from 'node:path';
import type { Multipart } from '@fastify/multipart';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { InvalidRequestError, QuarryError } from '../../errors.ts';
import { SyncInProgressError, fileSourceLocation } from '../../jobs/index.ts';
import type { SourceConfig } from '../../sources/config/index.ts';
import { NotACsvSourceError, deleteCsvFile, saveUpload, type CsvLocation } from '../../sources/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';
import { QueryFlag } from './query-flag.ts';

const NameParams = z.object({ source_name: z.string().min(1).max(63) });

const UploadReply = z.object({
  success: z.boolean(), message: z.string(), source_name: z.string(), file_path: z.string(), file_name: z.string(), auto_sync: z.boolean(),
});

const FileEntry = z.object({
  filename: z.string(), path: z.string(), size: z.number().int(), modified: z.string().nullable(), on_disk: z.boolean(),
  loaded: z.boolean(), rows_loaded: z.number().int(), status: z.enum(['success', 'pending', 'deleted', 'unreadable']),
});

const Listing = z.object({
  source_name: z.string(), directory: z.string(), file_pattern: z.string(), files: z.array(FileEntry),
  total_files: z.number().int(), files_on_disk: z.number().int(), files_loaded: z.number().int(),
});

const DeleteReply = z.object({
  success: z.boolean(), message: z.string(), file_path: z.string(), source_name: z.string(), background_sync: z.boolean(),
});

/**
 * The multipart parser fails with a plain error (a 500) on a body that ends early or is no multipart at all;
 * its own limit errors carry their status (413) and pass unchanged.
 */
function asUnreadableBody(error: unknown): unknown {
  if (!(error instanceof Error) || 'statusCode' in error || error instanceof QuarryError) return error;
  return new InvalidRequestError(`The multipart/form-data body could not be read: ${error.message}`);
}

export const csvFileRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const csvSource = (name: string): { source: SourceConfig; location: CsvLocation } => {
    const source = ctx.sourceReports.source(name);
    const location = fileSourceLocation(source, ctx.paths.root);
    if (location === undefined) throw new NotACsvSourceError(name, source.type);
    ctx.dataRoots.assertContains(location.directory);
    return { source, location };
  };

  /** Starts a sync unless one is already queued or running (that one will see the change too). */
  const syncSoon = async (name: string, requestedBy: string): Promise<boolean> => {
    try {
      await ctx.jobs.startSync(name, { fullRefresh: false, requestedBy });
      return true;
    } catch (error) {
      if (error instanceof SyncInProgressError) return false;
      throw error;
    }
  };

  app.post('/api/sources/:source_name/upload-csv', {
    config: { bodyTypes: ['multipart'] },
    preHandler: requireAction('files.write'),
    schema: {
      tags: ['csv'], summary: 'Upload a CSV file (multipart part "file") into a file source', params: NameParams,
      querystring: z.object({ trigger_sync: QueryFlag.default(false) }), response: { 200: UploadReply },
      upload: {
        field: 'file', fileName: 'orders.csv', contentType: 'text/csv',
        description: "The CSV file; its file name must end in .csv and match the source's file_pattern, and it replaces a file of the same name",
      },
    },
  }, async (request) => {
    const { source, location } = csvSource(request.params.source_name);
    if (!request.isMultipart()) throw new InvalidRequestError('Send the file as multipart/form-data in a part named "file"');
    // The multipart parser throws a plain error (a 500) on a Content-Type without a boundary: refuse it here.
    if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? '')) throw new InvalidRequestError('The multipart/form-data Content-Type has no boundary');
    const maxBytes = ctx.config.limits.max_upload_mb * 1024 * 1024;
    // Two file parts are allowed to arrive so that a second one is refused as such (400), not as a size limit.
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 2, fields: 5 } });
    const nextPart = async (): Promise<Multipart | undefined> => {
      const next = await parts.next().catch((error: unknown) => {
        throw asUnreadableBody(error);
      });
      return next.done === true ? undefined : next.value;
    };
    // Form fields before the file are read and ignored, as browsers may add some.
    let part = await nextPart();
    while (part?.type === 'field') part = await nextPart();
    if (part?.fieldname !== 'file') throw new InvalidRequestError('Send the file as multipart/form-data in a part named "file"');
    const nothingFollows = async (): Promise<void> => {
      if (await nextPart() !== undefined) throw new InvalidRequestError('The upload has more than the one file part named "file": send one file per request');
    };
    const saved = await saveUpload(location, ctx.dataRoots, part.filename, part.file, maxBytes, nothingFollows).catch((error: unknown) => {
      // The body ended or broke inside the file part: the client's upload failed, not the disk.
      throw part.file.errored === null ? error : asUnreadableBody(error);
    });
    const fileName = path.basename(saved);
    ctx.events.publish({ type: 'csv_uploaded', source: source.name, file: fileName });
    request.log.info({ source: source.name, file: fileName }, 'csv uploaded');
    const autoSync = request.query.trigger_sync && source.enabled && await syncSoon(source.name, requireActor(request).email);
    return {
      success: true, message: `Uploaded ${fileName}${autoSync ? '; sync started' : ''}`, source_name: source.name,
      file_path: saved, file_name: fileName, auto_sync: autoSync,
    };
  });

  app.get('/api/sources/:source_name/csv-files', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['csv'], summary: 'Files of a file source: on disk, loaded, rows', params: NameParams, response: { 200: Listing } },
  }, async (request) => {
    const { source, location } = csvSource(request.params.source_name);
    const files = await ctx.sourceReports.files(source.name, location, ctx.dataRoots);
    return {
      source_name: source.name,
      directory: location.directory,
      file_pattern: location.pattern,
      files: files.map((file) => ({
        filename: file.filename, path: file.path, size: file.size, modified: file.modified, on_disk: file.onDisk,
        loaded: file.loaded, rows_loaded: file.rowsLoaded, status: file.status,
      })),
      total_files: files.length,
      files_on_disk: files.filter((file) => file.onDisk).length,
      files_loaded: files.filter((file) => file.loaded).length,
    };
  });

  app.delete('/api/sources/:source_name/csv-files', {
    preHandler: requireAction('files.write'),
    schema: {
      tags: ['csv'], summary: 'Delete a file; its rows leave the warehouse at the next sync', params: NameParams,
      querystring: z.object({ file_path: z.string().min(1).max(4096) }), response: { 200: DeleteReply },
    },
  }, async (request) => {
    const { source, location } = csvSource(request.params.source_name);
    const deleted = await deleteCsvFile(location, request.query.file_path);
    const fileName = path.basename(deleted);
    ctx.events.publish({ type: 'csv_deleted', source: source.name, file: fileName });
    request.log.info({ source: source.name, file: fileName }, 'csv deleted');
    const backgroundSync = source.enabled && await syncSoon(source.name, requireActor(request).email);
    return {
      success: true, message: `Deleted ${fileName}${backgroundSync ? '; its rows are being removed' : ''}`,
      file_path: deleted, source_name: source.name, background_sync: backgroundSync,
    };
  });

  done();
};
