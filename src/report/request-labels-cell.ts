/**
 * The `labels` column of requests.csv: a request's labels (RequestRecord.labels) as `k=v;k=v`, keys
 * sorted, empty for a request without labels. The column exists only in runs whose workload sets labels
 * (prompt.prefixes, sessions, tool loops), so the files of other runs keep their columns.
 */

export const LABELS_COLUMN = 'labels';

/** `k=v;k=v` in key order; '' for null. */
export function labelsCell(labels: Readonly<Record<string, string>> | null): string {
  if (labels === null) return '';
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join(';');
}
