/**
 * requests.csv `cost_usd`: what one ok request cost at its model's per-token price (input tokens x prompt +
 * output tokens x completion, exact decimals), so that the column of a group's measured ok rows adds up to
 * its summary.json `cost.usd`. Empty for a failed request (a group's cost prices ok requests only), for a
 * model without a price, and for a per-hour deployment (its cost is its time, not its requests).
 */
import type { PriceBook } from '../aggregate/cost/cost-prices.js';
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { count, usdString } from '../util/usd.js';

export const COST_COLUMN = 'cost_usd';

/** True when some model of the book is priced per token (only then has requests.csv the column). */
export function pricesRequests(book: PriceBook | null | undefined): boolean {
  return book !== null && book !== undefined && [...book.values()].some((priced) => priced.price.kind === 'token');
}

/** The cell of one request. */
export function costCell(book: PriceBook, record: RequestRecord, group: ResolvedGroup, values: RecordedValues): string {
  const priced = group.model === null ? undefined : book.get(group.model);
  if (priced === undefined || priced.price.kind !== 'token' || record.errorClass !== null) return '';
  const input = values.input_tokens;
  // An embeddings request (record.inputs) generates nothing: its input tokens are its whole price.
  const output = Number.isNaN(record.inputs) ? values.output_tokens : 0;
  if (!Number.isFinite(input) || !Number.isFinite(output)) return '';
  return usdString(count(input) * priced.price.promptAtto + count(output) * priced.price.completionAtto);
}
