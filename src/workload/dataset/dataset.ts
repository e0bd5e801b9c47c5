/**
 * Loads a dataset file into entries: OpenAI-style records (dataset-openai.ts) or ShareGPT conversations
 * (dataset-sharegpt.ts), from JSONL or one JSON array (dataset-records.ts), the format given or detected
 * per file. Read and token-counted once when the workload is built (with the workload's tokenizer: the
 * profile's target.tokenizer or o200k_base), so requests never call the tokenizer; every group of a run
 * shares one load of a file.
 */
import { readFileSync, statSync } from 'node:fs';
import { InferbenchError } from '../../errors.js';
import type { DatasetSpec } from '../../profile/resolved-profile.js';
import { o200kTokenizer } from '../../util/tokenizer.js';
import type { Tokenizer } from '../../util/tokenizer.js';
import type { DatasetEntry } from './dataset-entry.js';
import { openaiEntry } from './dataset-openai.js';
import type { DatasetRecord } from './dataset-records.js';
import { datasetRecords } from './dataset-records.js';
import { isShareGptRecord, shareGptEntry } from './dataset-sharegpt.js';

export type { DatasetEntry } from './dataset-entry.js';
export { messageTokens } from './dataset-entry.js';

export type DatasetFormat = 'openai' | 'sharegpt';

export interface LoadedDataset {
  /** The format the file was read as (detected, with format auto). */
  readonly format: DatasetFormat;
  /** Every record of the file, in file order (none filtered yet). */
  readonly entries: readonly DatasetEntry[];
}

/** What a load depends on: the file, how it is read, and (for the answer) whether the dataset sets output tokens. */
export type DatasetLoadSpec = Pick<DatasetSpec, 'path' | 'field' | 'format' | 'outputTokens'>;

const loaded = new WeakMap<Tokenizer, Map<string, LoadedDataset>>();

/** Loads and checks a dataset; a bad record is a BAD_PROFILE error naming the file and line. */
export function loadDataset(spec: DatasetLoadSpec, tokenizer: Tokenizer = o200kTokenizer()): LoadedDataset {
  // Keyed by the file's size and mtime too, so an edited file is read again.
  const stat = readDataset(spec.path, (path) => statSync(path));
  const key = [spec.path, stat.size, stat.mtimeMs, spec.format, spec.field, spec.outputTokens].join('\u0000');
  let cache = loaded.get(tokenizer);
  const hit = cache?.get(key);
  if (hit) return hit;
  const records = datasetRecords(
    readDataset(spec.path, (path) => readFileSync(path)),
    spec.path,
  );
  if (records.length === 0)
    throw new InferbenchError('BAD_PROFILE', `dataset ${spec.path} has no prompts`, {
      hint: 'one JSON value per line, or one JSON array of records',
    });
  const format = spec.format === 'auto' ? detectFormat(records, spec.path) : spec.format;
  const answerFromDataset = spec.outputTokens === 'dataset';
  const entries = records.map((record) =>
    format === 'sharegpt'
      ? shareGptEntry(record, spec.path, tokenizer)
      : openaiEntry(record, spec.path, spec.field, answerFromDataset, tokenizer),
  );
  const result = { format, entries };
  if (!cache) {
    cache = new Map();
    loaded.set(tokenizer, cache);
  }
  cache.set(key, result);
  return result;
}

function readDataset<T>(path: string, read: (path: string) => T): T {
  try {
    return read(path);
  } catch (error) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `cannot read dataset ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error, hint: 'prompt.dataset.path is relative to the profile file' },
    );
  }
}

/** The one format of a file's records; a file that mixes ShareGPT and OpenAI-style records is an error. */
function detectFormat(records: readonly DatasetRecord[], path: string): DatasetFormat {
  const formatOf = (record: DatasetRecord): DatasetFormat => (isShareGptRecord(record.value) ? 'sharegpt' : 'openai');
  const first = records[0]!;
  const format = formatOf(first);
  const other = records.find((record) => formatOf(record) !== format);
  if (other !== undefined)
    throw new InferbenchError(
      'BAD_PROFILE',
      `${path}:${other.line}: a ${formatOf(other)} record, but line ${first.line} is a ${format} record: a dataset holds one format`,
      {
        hint: 'ShareGPT records have a "conversations" array; set prompt.dataset.format to read the file as one format (the other records then fail with their own lines)',
      },
    );
  return format;
}
