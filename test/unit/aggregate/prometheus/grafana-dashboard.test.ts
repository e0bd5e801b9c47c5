/**
 * profiles/grafana/inferbench-dashboard.json (shipped with the package): a Grafana dashboard an import
 * can read (schemaVersion, panels with targets, the DS_PROMETHEUS input every query uses), and every
 * metric name its PromQL uses is one the live exporter serves. That `npm pack` ships it is checked on the
 * one pack of test/cli/package.test.ts. The queries themselves run against a real Prometheus in
 * test/integration/prometheus/.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIVE_FAMILIES, LIVE_SERIES_NAMES } from '../../../../src/aggregate/prometheus/live-metric-families.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const DASHBOARD_PATH = resolve(ROOT, 'profiles/grafana/inferbench-dashboard.json');

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
interface Dashboard {
  __inputs: { name: string; type: string; pluginId: string }[];
  schemaVersion: number;
  title: string;
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; query: { query: string } }[] };
}

/** Grafana's placeholder for the data source chosen at import (a literal `${...}` in the JSON). */
const DS_INPUT = ['$', '{DS_PROMETHEUS}'].join('');

const dashboard = JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as Dashboard;
const queryPanels = dashboard.panels.filter((panel) => panel.type !== 'row');
const exprs = [
  ...queryPanels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
  ...dashboard.templating.list.map((variable) => variable.query.query),
];

describe('the Grafana dashboard', () => {
  it('has the shape Grafana imports: schemaVersion, a Prometheus input, panels with queries on it', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toBe('inferbench-run');
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    ]);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    expect(queryPanels.length).toBeGreaterThanOrEqual(12);
    for (const panel of queryPanels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: DS_INPUT });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource.uid).toBe(DS_INPUT);
        expect(target.expr).toMatch(/inferbench_/);
      }
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
    }
  });

  it('uses only metric names the exporter serves, and shows every family but run_info', () => {
    const used = new Set(exprs.flatMap((expr) => expr.match(/\binferbench_[a-z0-9_]+/g) ?? []));
    for (const name of used) expect(LIVE_SERIES_NAMES, name).toContain(name);
    const shown = new Set([...used].map((name) => name.replace(/_(bucket|sum|count)$/, '')));
    const families = LIVE_FAMILIES.map((family) => family.name).filter((name) => name !== 'inferbench_run_info');
    expect(families.filter((name) => !shown.has(name))).toEqual([]);
  });

  it('shows the panels the README promises', () => {
    const titles = queryPanels.map((panel) => panel.title);
    for (const title of [
      'Request rate by outcome',
      'TTFT p50 / p99',
      'ITL p50 / p99',
      'E2E p50 / p99',
      'Tokens per second',
      'In flight',
      'Errors by class',
      'Schedule lag and event-loop delay',
      'Rate-limit headroom',
    ])
      expect(titles).toContain(title);
  });
});
