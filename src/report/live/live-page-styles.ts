/** What the live dashboard adds to the report's stylesheet (report/html/page-styles.ts): counters and notices. */
export const LIVE_PAGE_STYLES = `
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 10px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; background: #f9fafb; }
.tile-label { color: var(--muted); font-size: 12px; }
.tile-value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }
.notice { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; background: var(--card); font-weight: 600; }
.notice[hidden], .card[hidden] { display: none; }
`;
