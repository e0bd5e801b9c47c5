/**
 * The script of the live dashboard page: opens the event stream at `events`, draws the first `state`
 * event (the run so far), appends each `tick` to the charts, and on `end` shows the final summary and
 * stops: it closes the stream once the server ends it, so EventSource does not reconnect to a run that is
 * over (nor retry forever when the connection is lost). Plain browser JavaScript kept as a string, like
 * the report's (report/html/page-script.ts): every string is written with textContent, never innerHTML.
 * `window.inferbenchLive` exposes what the browser test reads.
 */
import { CHART_PALETTE } from '../html/page-script.js';

export const LIVE_PAGE_SCRIPT = `
(function () {
  'use strict';
  var PALETTE = ${JSON.stringify(CHART_PALETTE)};
  var CHART_HEIGHT = 240;
  var live = { state: null, ticks: 0, points: 0, charts: [], end: null, lost: false };
  window.inferbenchLive = live;
  var columns = [];
  var data = [];
  var maxPoints = 3600;
  var chartKeys = '';
  var source = null;
  var failures = 0;
  var statusSeen = { state: 'starting', elapsedMs: 0, plannedMs: null, scenario: null, totals: null, groups: [] };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function byId(id) { return document.getElementById(id); }
  function num(v) {
    if (v === null || v === undefined || !isFinite(v)) return '–';
    var a = Math.abs(v);
    var d = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3;
    return v.toLocaleString('en-US', { maximumFractionDigits: d });
  }
  function count(v) { return v === null || v === undefined ? '–' : v.toLocaleString('en-US'); }
  function pct(v) { return v === null || v === undefined || !isFinite(v) ? '–' : (100 * v).toFixed(2) + '%'; }
  function duration(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return '?';
    var s = Math.floor(ms / 1000);
    var h = Math.floor(s / 3600);
    var m = Math.floor((s % 3600) / 60);
    var rest = String(s % 60).padStart(2, '0');
    return h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + rest : m + ':' + rest;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function column(name) { return data[columns.indexOf(name)]; }

  function skeleton() {
    var main = byId('inferbench-main');
    var header = el('header');
    header.appendChild(el('h1', null, 'inferbench live'));
    var subtitle = el('p', 'subtitle');
    subtitle.id = 'live-target';
    header.appendChild(subtitle);
    var badges = el('div', 'badges');
    badges.id = 'live-badges';
    header.appendChild(badges);
    main.appendChild(header);
    var notice = el('p', 'notice');
    notice.id = 'live-notice';
    notice.hidden = true;
    main.appendChild(notice);
    main.appendChild(card('live-now', 'Now', 'div', 'tiles'));
    main.appendChild(card('live-charts', 'Charts (a point a second)', 'div', 'grid'));
    main.appendChild(card('live-groups', 'Groups so far', 'div', 'table-wrap'));
    var final = card('live-final', 'Final summary', 'div', null);
    final.hidden = true;
    main.appendChild(final);
    main.appendChild(el('footer', null, 'Rates and TTFT over the last 5 seconds; counts since the start (warmup excluded). The numbers that count are in summary.json at the end.'));
  }
  function card(id, title, tag, className) {
    var section = el('section', 'card');
    section.id = id;
    section.appendChild(el('h2', null, title));
    var body = el(tag, className);
    body.id = id + '-body';
    section.appendChild(body);
    return section;
  }

  function table(headers, rows, numericFrom) {
    var t = el('table', 'data');
    var head = el('tr');
    headers.forEach(function (h, i) { head.appendChild(el('th', i >= numericFrom ? 'num' : null, h)); });
    var thead = el('thead');
    thead.appendChild(head);
    t.appendChild(thead);
    var body = el('tbody');
    rows.forEach(function (r) {
      var tr = el('tr');
      r.forEach(function (c, i) {
        var td = el('td', i >= numericFrom ? 'num' : null, c.text);
        if (c.field) td.setAttribute('data-field', c.field);
        if (c.tone) td.classList.add('tone-' + c.tone);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function renderStatus(status) {
    statusSeen = status;
    live.state = status.state;
    var badges = byId('live-badges');
    clear(badges);
    var tone = { starting: 'muted', warmup: 'warn', running: 'ok', ended: 'plain' }[status.state] || 'muted';
    var state = el('span', 'badge badge-' + tone, status.state);
    state.id = 'live-state';
    badges.appendChild(state);
    var planned = status.plannedMs === null ? '' : ' of ' + duration(status.plannedMs);
    badges.appendChild(el('span', 'badge badge-plain', 'elapsed ' + duration(status.elapsedMs) + planned));
    if (status.scenario) badges.appendChild(el('span', 'badge badge-plain', 'scenario ' + status.scenario));
    renderTiles(status.totals, status.server);
    renderGroups(status.groups);
  }
  function renderTiles(t, server) {
    var tiles = byId('live-now-body');
    clear(tiles);
    var items = [
      ['completed', 'requests ended', t && count(t.completed)],
      ['failed', 'failed', t && count(t.failed)],
      ['throttled', 'throttled (429)', t && count(t.throttled)],
      ['dropped', 'dropped', t && count(t.dropped)],
      ['in-flight', 'in flight', t && count(t.inFlight)],
      ['rps', 'requests/s', t && num(t.requestsPerS)],
      ['otps', 'output tokens/s', t && num(t.outputTokensPerS)],
      ['ttft-p50', 'TTFT p50 (ms)', t && num(t.ttftP50Ms)]
    ];
    // target.server_metrics: the server's own gauges at its latest scrape.
    if (server) items.push(
      ['server-running', 'server running', count(server.running)],
      ['server-waiting', 'server waiting', count(server.waiting)],
      ['server-kv', 'server KV cache', pct(server.kvCacheUsage)]
    );
    items.forEach(function (item) {
      var tile = el('div', 'tile');
      tile.setAttribute('data-tile', item[0]);
      tile.appendChild(el('div', 'tile-label', item[1]));
      tile.appendChild(el('div', 'tile-value', item[2] || '–'));
      tiles.appendChild(tile);
    });
  }
  function renderGroups(groups) {
    var host = byId('live-groups-body');
    clear(host);
    var rows = groups.map(function (g) {
      var errors = Object.keys(g.errors).map(function (k) { return k + ': ' + g.errors[k]; }).join(', ');
      return [
        { text: g.key }, { text: count(g.ok), field: 'ok' }, { text: count(g.failed), field: 'failed', tone: g.failed > 0 ? 'bad' : null },
        { text: count(g.throttled), field: 'throttled' }, { text: num(g.requestsPerS) }, { text: num(g.outputTokensPerS) },
        { text: num(g.ttftP50Ms) }, { text: num(g.ttftP99Ms) }, { text: errors || '–' }
      ];
    });
    host.appendChild(table(['group', 'ok', 'failed', 'throttled', 'requests/s', 'output tokens/s', 'TTFT p50 (ms)', 'TTFT p99 (ms)', 'errors'], rows, 1));
  }

  function chartSpecs(groups) {
    var charted = groups.filter(function (g) { return g.charted; });
    // With one group its lines are the run's; with several the run's total is drawn too.
    var total = charted.length !== 1;
    function lines(suffix, runColumn) {
      var own = charted.map(function (g, i) { return { col: 'g' + g.index + '.' + suffix, label: g.key, color: i }; });
      return total && runColumn ? [{ col: runColumn, label: 'all groups', color: 7 }].concat(own) : own;
    }
    var ttft = [];
    if (total) ttft.push({ col: 'ttft_p50', label: 'all groups p50', color: 7 });
    charted.forEach(function (g, i) {
      ttft.push({ col: 'g' + g.index + '.ttft_p50', label: g.key + ' p50', color: i });
      ttft.push({ col: 'g' + g.index + '.ttft_p99', label: g.key + ' p99', color: i, dashed: true });
    });
    // target.server_metrics: the server's queue and KV cache beside the TTFT chart.
    var server = columns.indexOf('server.running') < 0 ? [] : [{ id: 'live-server', title: 'Server: running, waiting and KV cache (its latest scrape)',
      y: 'requests', y2: 'KV cache %', lines: [
        { col: 'server.running', label: 'running', color: 0 }, { col: 'server.waiting', label: 'waiting', color: 1 },
        { col: 'server.kv_cache_usage', label: 'KV cache %', color: 3, dashed: true, percent: true }
      ] }];
    return [
      { id: 'live-rps', title: 'Requests/s', y: 'requests/s', lines: lines('rps', 'rps') },
      { id: 'live-otps', title: 'Output tokens/s', y: 'tokens/s', lines: lines('otps', 'otps') },
      { id: 'live-ttft', title: 'Time to first token (p50, p99 dashed)', y: 'ms', lines: ttft }
    ].concat(server, [
      { id: 'live-inflight', title: 'In flight', y: 'requests', lines: [{ col: 'in_flight', label: 'in flight', color: 0 }] },
      { id: 'live-errors', title: 'Failed, throttled and dropped so far', y: 'requests', lines: [
        { col: 'failed', label: 'failed', color: 1 }, { col: 'throttled', label: 'throttled', color: 3 }, { col: 'dropped', label: 'dropped', color: 7 }
      ] }
    ]);
  }
  function chartData(spec) {
    return [column('t')].concat(spec.lines.map(function (l) {
      var values = column(l.col) || [];
      return l.percent ? values.map(function (v) { return v === null ? null : 100 * v; }) : values;
    }));
  }
  function buildCharts(groups) {
    var grid = byId('live-charts-body');
    clear(grid);
    live.charts.forEach(function (c) { c.chart.destroy(); });
    live.charts = [];
    // Every cell is laid out first, so each chart takes the width of its own column.
    var cells = chartSpecs(groups).map(function (spec) {
      var cell = el('figure', 'grid-cell');
      cell.setAttribute('data-chart-id', spec.id);
      cell.appendChild(el('figcaption', 'chart-title', spec.title));
      var plot = el('div', 'chart-plot');
      cell.appendChild(plot);
      grid.appendChild(cell);
      return { spec: spec, plot: plot };
    });
    cells.forEach(function (cell) {
      live.charts.push({ id: cell.spec.id, spec: cell.spec, chart: new uPlot(chartOptions(cell.spec, cell.plot), chartData(cell.spec), cell.plot) });
    });
  }
  function chartOptions(spec, plot) {
    var series = [{ label: 'elapsed', value: function (u, v) { return v === null || v === undefined ? '–' : duration(v * 1000); } }];
    spec.lines.forEach(function (l) {
      var c = PALETTE[l.color % PALETTE.length];
      series.push({ label: l.label, stroke: c, width: 2, dash: l.dashed ? [6, 4] : undefined, spanGaps: true,
        scale: l.percent ? 'pct' : 'y', points: { show: false }, value: function (u, v) { return num(v); } });
    });
    var scales = { x: { time: false }, y: { auto: true, range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } } };
    var axes = [{ label: 'elapsed (s)', labelSize: 30 }, { label: spec.y, labelSize: 30, size: 60, values: function (u, s) { return s.map(num); } }];
    if (spec.y2) {
      // A second axis on the right, 0 to 100 %.
      scales.pct = { auto: false, range: [0, 100] };
      axes.push({ scale: 'pct', side: 1, label: spec.y2, labelSize: 30, size: 50, grid: { show: false } });
    }
    return {
      width: Math.max(320, plot.clientWidth || 560), height: CHART_HEIGHT,
      scales: scales, axes: axes, series: series, legend: { live: true }
    };
  }
  function redraw() {
    live.points = data.length > 0 ? data[0].length : 0;
    live.charts.forEach(function (c) { c.chart.setData(chartData(c.spec)); });
  }
  /** Keeps every other point counting back from the last, as the server's history does (live-series.ts). */
  function thin() {
    data.forEach(function (values) {
      var kept = 0;
      for (var i = (values.length - 1) % 2; i < values.length; i += 2) values[kept++] = values[i];
      values.length = kept;
    });
  }

  function onState(message) {
    columns = message.series.columns.slice();
    data = message.series.data.map(function (values) { return values.slice(); });
    maxPoints = message.maxPoints;
    document.title = 'inferbench live: ' + message.profile;
    document.querySelector('header h1').textContent = 'inferbench live: ' + message.profile;
    byId('live-target').textContent = 'against ' + message.target;
    renderStatus(message.status);
    chartKeys = '';
    layoutCharts(message.status.groups);
    if (message.end) onEnd(message.end);
  }
  function layoutCharts(groups) {
    var keys = groups.map(function (g) { return g.key; }).join('\\n');
    if (keys !== chartKeys) {
      chartKeys = keys;
      buildCharts(groups);
    }
    redraw();
  }
  function onTick(message) {
    if (live.end) return;
    live.ticks++;
    message.point.forEach(function (v, i) { if (data[i]) data[i].push(v); });
    if (data.length > 0 && data[0].length > maxPoints) thin();
    renderStatus(message.status);
    layoutCharts(message.status.groups);
  }

  function onEnd(message) {
    live.end = message;
    // The end's status counts every request, the last ones too (they ended after the last tick).
    renderStatus(Object.assign({}, message.status || statusSeen, { state: 'ended' }));
    var summary = message.summary;
    showNotice(summary === null
      ? 'The run ended without a summary (it failed). This page no longer updates.'
      : 'The run has ended: the final summary is below. This page no longer updates; the results are in the run\\'s report folder.');
    if (summary !== null) renderFinal(summary);
    // The server ends the stream next; then the stream is closed for good (see 'error'). In case it does not:
    setTimeout(function () { if (source) source.close(); }, 10000);
  }
  function showNotice(text) {
    var notice = byId('live-notice');
    notice.textContent = text;
    notice.hidden = false;
  }

  function renderFinal(summary) {
    var section = byId('live-final');
    var body = byId('live-final-body');
    clear(body);
    var badges = el('div', 'badges');
    badges.appendChild(el('span', 'badge badge-' + (summary.complete ? 'ok' : 'warn'),
      summary.complete ? 'complete run' : 'INCOMPLETE run' + (summary.stopped ? ' (' + summary.stopped + ')' : '')));
    var failed = summary.thresholds.filter(function (t) { return !t.passed; }).length;
    badges.appendChild(summary.thresholds.length === 0 ? el('span', 'badge badge-muted', 'no thresholds')
      : el('span', 'badge badge-' + (failed === 0 ? 'ok' : 'bad'), failed === 0 ? 'thresholds: all ' + summary.thresholds.length + ' passed'
        : 'thresholds: ' + failed + ' of ' + summary.thresholds.length + ' FAILED'));
    badges.appendChild(el('span', 'badge badge-plain', 'run ' + summary.runId));
    body.appendChild(badges);
    body.appendChild(el('p', 'subtitle', summary.target + ', ' + summary.startedAt + ' to ' + summary.endedAt));
    var rows = summary.groups.map(function (g) {
      function p(stats, which) { return { text: num(stats ? stats[which] : null) }; }
      return [
        { text: g.key, field: 'key' }, { text: count(g.ok), field: 'ok' }, { text: count(g.failed), field: 'failed' },
        { text: count(g.throttled), field: 'throttled' }, { text: count(g.dropped), field: 'dropped' },
        { text: pct(g.errorRate), field: 'error-rate' }, { text: num(g.requestsPerS), field: 'rps' }, { text: num(g.outputTokensPerS), field: 'otps' },
        p(g.ttftMs, 'p50'), p(g.ttftMs, 'p99'), p(g.itlMs, 'p50'), p(g.itlMs, 'p99'), p(g.e2eMs, 'p50'), p(g.e2eMs, 'p99')
      ];
    });
    var wrap = el('div', 'table-wrap');
    var groups = table(['group', 'ok', 'failed', 'throttled', 'dropped', 'error rate', 'requests/s', 'output tokens/s',
      'TTFT p50', 'TTFT p99', 'ITL p50', 'ITL p99', 'E2E p50', 'E2E p99'], rows, 1);
    groups.id = 'live-final-groups';
    wrap.appendChild(groups);
    body.appendChild(wrap);
    body.appendChild(el('p', 'tone-muted', 'Latencies in ms over the whole run, from its HdrHistograms.'));
    if (summary.thresholds.length > 0) {
      var trows = summary.thresholds.map(function (t) {
        return [{ text: t.expression }, { text: t.group }, { text: num(t.actual) },
          { text: t.passed ? 'pass' : 'FAIL', field: 'threshold', tone: t.passed ? 'ok' : 'bad' }];
      });
      var thresholds = table(['threshold', 'group', 'actual', 'result'], trows, 2);
      thresholds.id = 'live-final-thresholds';
      body.appendChild(thresholds);
    }
    section.hidden = false;
  }

  function connect() {
    source = new EventSource('events');
    source.addEventListener('open', function () { failures = 0; });
    source.addEventListener('state', function (e) { onState(JSON.parse(e.data)); });
    source.addEventListener('tick', function (e) { onTick(JSON.parse(e.data)); });
    source.addEventListener('end', function (e) { onEnd(JSON.parse(e.data)); });
    source.addEventListener('error', function () {
      // The run is over: the server has ended the stream, so never reconnect.
      if (live.end) { source.close(); return; }
      failures++;
      if (source.readyState === 2 || failures >= 3) {
        source.close();
        live.lost = true;
        renderStatus(Object.assign({}, statusSeen, { state: 'ended' }));
        showNotice('Lost the connection to the run (it has probably ended). This page no longer updates; the results are in the run\\'s report folder.');
      }
    });
  }

  skeleton();
  renderStatus(statusSeen);
  connect();
  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { chartKeys = ''; layoutCharts(statusSeen.groups); }, 150);
  });
})();
`;
