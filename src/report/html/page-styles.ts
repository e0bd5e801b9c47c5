/** The stylesheet inlined into inferbench's HTML pages: readable tables, cards, bars and tone colours. */
export const PAGE_STYLES = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f3f4f6; --card: #ffffff;
  --ok: #15803d; --bad: #b91c1c; --warn: #b45309; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 16px 20px 40px; }
header h1 { margin: 8px 0 2px; font-size: 24px; word-break: break-word; }
.subtitle { margin: 0 0 10px; color: var(--muted); word-break: break-word; }
nav { display: flex; flex-wrap: wrap; gap: 6px 14px; margin-bottom: 12px; }
nav a { color: #1d4ed8; text-decoration: none; font-size: 13px; }
nav a:hover { text-decoration: underline; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin: 14px 0; }
.card h2 { margin: 0 0 10px; font-size: 18px; }
h3 { font-size: 15px; margin: 16px 0 6px; word-break: break-word; }
table { border-collapse: collapse; }
.table-wrap { overflow-x: auto; margin: 6px 0 12px; }
table.data { width: 100%; font-size: 13px; }
table.data caption { text-align: left; font-weight: 600; padding: 4px 0; word-break: break-word; }
table.data th, table.data td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.data thead th { background: #f9fafb; position: sticky; top: 0; font-weight: 600; }
table.data tbody tr:nth-child(even) { background: #fafafa; }
table.data td { overflow-wrap: anywhere; max-width: 520px; }
table.data td:first-child { min-width: 16ch; }
table.data td { white-space: pre-line; }
table.data td.num, table.data th.num { white-space: nowrap; }
.num { text-align: right !important; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { text-align: left; padding: 3px 16px 3px 0; color: var(--muted); font-weight: 500; vertical-align: top; white-space: nowrap; }
table.kv td { padding: 3px 0; word-break: break-all; }
.tone-ok { color: var(--ok); font-weight: 600; } .tone-bad { color: var(--bad); font-weight: 600; }
.tone-warn { color: var(--warn); } .tone-muted { color: var(--muted); }
.badges { display: flex; flex-wrap: wrap; gap: 8px; margin: 4px 0 10px; }
.badge { border-radius: 999px; padding: 2px 10px; font-size: 12px; font-weight: 600; border: 1px solid; }
.badge-ok { color: var(--ok); border-color: #86efac; background: #f0fdf4; }
.badge-bad { color: var(--bad); border-color: #fca5a5; background: #fef2f2; }
.badge-warn { color: var(--warn); border-color: #fcd34d; background: #fffbeb; }
.badge-muted, .badge-plain { color: var(--muted); border-color: var(--line); background: #f9fafb; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 12px 18px; }
.grid-cell { min-width: 0; }
figure { margin: 6px 0 12px; }
.chart-title { font-weight: 600; font-size: 13px; margin-bottom: 4px; word-break: break-word; }
.chart-plot { width: 100%; min-height: 200px; }
.uplot { font-family: inherit; }
.uplot .u-legend { font-size: 12px; }
.uplot .u-legend th { font-weight: 500; }
.bars .bar-row { display: grid; grid-template-columns: minmax(120px, 30%) 1fr minmax(90px, auto); gap: 8px; align-items: center; margin: 3px 0; }
.stack .bar-row { grid-template-columns: minmax(120px, 30%) 1fr 240px; }
.bar-label { font-size: 12px; word-break: break-word; }
.bar-track { display: flex; height: 16px; background: #f3f4f6; border-radius: 3px; overflow: hidden; }
.bar { display: block; height: 100%; }
.bar-value { font-size: 12px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; margin-bottom: 6px; }
.legend-item { display: inline-flex; align-items: center; gap: 5px; }
.swatch { width: 12px; height: 12px; border-radius: 2px; display: inline-block; }
.chart-notes { color: var(--muted); }
.marker-glyph { color: var(--fg); font-size: 13px; line-height: 1; }
.rule-swatch { display: inline-block; width: 18px; height: 0; border-top: 2px solid; }
.rule-swatch.rule-x { width: 0; height: 14px; border-top: none; border-left: 2px solid; }
#capacity table.data td:first-child { min-width: 0; }
#capacity table.data td:nth-child(3) { overflow-wrap: normal; white-space: nowrap; }
#server table.data td:nth-child(2) { overflow-wrap: normal; white-space: nowrap; }
.chart-pin { position: absolute; width: 18px; height: 18px; margin: -9px 0 0 -9px; border: 3px solid; border-radius: 50%;
  background: rgba(255, 255, 255, 0.35); z-index: 5; cursor: help; }
.chart-pin.pin-bad { border-color: var(--bad); } .chart-pin.pin-ok { border-color: var(--ok); }
.chart-pin.pin-warn, .chart-pin.pin-muted, .chart-pin.pin-plain { border-color: var(--warn); }
footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 20px; }
ul { margin: 4px 0 10px; padding-left: 20px; } li { word-break: break-word; }
`;
