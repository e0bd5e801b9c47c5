/**
 * Human names and units of summary.json metrics for the HTML pages, compare, JUnit and markdown: read
 * from the registry (metrics/metric-registry.ts), where each metric is declared once.
 */
import { METRIC_DEFINITIONS, type MetricName } from '../../metrics/metric-registry.js';

export { metricUnit } from '../../metrics/metric-registry.js';

export const METRIC_LABELS = Object.fromEntries(
  METRIC_DEFINITIONS.map((metric) => [metric.name, metric.label]),
) as Record<MetricName, string>;

/** Short names for axis labels and legends. */
export const METRIC_SHORT = Object.fromEntries(
  METRIC_DEFINITIONS.map((metric) => [metric.name, metric.short]),
) as Record<MetricName, string>;
