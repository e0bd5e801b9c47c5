/**
 * GET /v1/files/{file_id}/content: raw bytes of a file in `--files DIR`, the file id being the file name
 * without its extension. The id is matched against the directory listing, never joined into a path, so
 * no id can reach outside the directory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { CONTENT_TYPE } from '../../protocol/headers.js';
import { ApiError } from '../api-error.js';
import type { EmulatorContext } from '../emulator-context.js';
import { authenticate } from '../http/auth.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.jsonl': CONTENT_TYPE.ndjson,
  '.ndjson': CONTENT_TYPE.ndjson,
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.gz': 'application/gzip',
  '.zip': 'application/zip',
};

function fileNotFound(id: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'file_not_found',
    `No file with id ${JSON.stringify(id.slice(0, 200))}.`,
    'file_id',
  );
}

/** The file name in `dir` whose name without extension is `id`, or undefined. */
async function findFile(dir: string, id: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const ext = extname(name);
    if (name.slice(0, name.length - ext.length) !== id) continue;
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile()) return name;
  }
  return undefined;
}

export async function fileContent(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: EmulatorContext,
  id: string,
): Promise<void> {
  authenticate(req, 'inference', ctx.keys);
  if (!ctx.filesDir || id.length === 0 || /[/\\\0]/.test(id) || id.startsWith('.')) throw fileNotFound(id);
  const name = await findFile(ctx.filesDir, id);
  if (!name) throw fileNotFound(id);
  const bytes = await readFile(join(ctx.filesDir, name));
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
    'content-length': bytes.length,
  });
  res.end(bytes);
}
