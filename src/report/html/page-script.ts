/**
 * The script inlined into every inferbench HTML page: reads the embedded PageDocument JSON and draws it
 * with DOM calls and uPlot. It is plain browser JavaScript kept as a string (there is no bundler); it
 * writes every data string with textContent or setAttribute, never innerHTML, so no string from a
 * profile or a server can become markup. It exposes `window.inferbenchCharts` for the browser tests.
 */
import { CHART_OVERLAYS_SCRIPT } from './chart-overlays-script.js';

/** The line colours of every chart of inferbench's pages, in order (a series' palette index picks one). */
export const CHART_PALETTE = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#4b5563',
  '#65a30d',
  '#9333ea',
] as const;

export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var PALETTE = ${JSON.stringify(CHART_PALETTE)};
  var doc = JSON.parse(document.getElementById('inferbench-data').textContent);
  var charts = [];
  window.inferbenchCharts = charts;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function color(i) { return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length]; }
  function num(v) {
    if (v === null || v === undefined || !isFinite(v)) return '–';
    var a = Math.abs(v);
    var d = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3;
    return v.toLocaleString('en-US', { maximumFractionDigits: d });
  }
  function cellNode(tag, cell) {
    var node = el(tag);
    if (cell !== null && typeof cell === 'object') {
      node.textContent = cell.text;
      node.className = 'tone-' + cell.tone;
    } else {
      node.textContent = cell === null || cell === undefined ? '' : String(cell);
    }
    return node;
  }
  function pctLabel(x) {
    if (x <= 1) return '0%';
    var p = 100 * (1 - 1 / x);
    var digits = Math.max(0, Math.round(Math.log10(x)) - 2);
    return p.toFixed(digits) + '%';
  }
${CHART_OVERLAYS_SCRIPT}

  function renderChart(spec, host) {
    var box = el('figure', 'chart');
    box.setAttribute('data-chart-id', spec.id);
    box.appendChild(el('figcaption', 'chart-title', spec.title));
    if (hasOverlays(spec)) renderChartNotes(spec, box);
    var plot = el('div', 'chart-plot');
    box.appendChild(plot);
    host.appendChild(box);
    var series = [{ label: spec.xLabel, value: function (u, v) {
      if (v === null || v === undefined) return '–';
      if (spec.xNames && spec.xNames[spec.x.indexOf(v)] !== undefined) return num(v) + ': ' + spec.xNames[spec.x.indexOf(v)];
      return spec.kind === 'percentile' ? pctLabel(v) : num(v);
    } }];
    var data = [spec.x.slice()];
    spec.series.forEach(function (s, i) {
      var c = color(s.color === undefined ? i : s.color);
      series.push(overlaySeries(s, {
        label: s.label,
        stroke: c,
        width: 2,
        dash: s.dashed ? [6, 4] : undefined,
        spanGaps: true,
        points: spec.points ? { show: true, size: 6, fill: c } : { show: false },
        value: function (u, v) { return num(v); }
      }));
      data.push(s.values.slice());
    });
    var xScale = { time: false };
    var xAxis = { label: spec.xLabel, labelSize: 30 };
    if (spec.kind === 'percentile') {
      xScale = { time: false, distr: 3, log: 10, range: function (u, min, max) { return [1, Math.max(10, max)]; } };
      xAxis.splits = function (u, i, min, max) { return [1, 10, 100, 1000, 10000, 100000, 1000000].filter(function (v) { return v >= min && v <= max * 1.0001; }); };
      xAxis.values = function (u, splits) { return splits.map(pctLabel); };
    } else if (spec.kind === 'time') {
      // Whole seconds only: the series has one point per second.
      xAxis.incrs = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
    } else if (spec.xNames) {
      // Named positions (a trend's runs): whole numbers only.
      xAxis.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500];
    }
    var width = Math.max(320, plot.clientWidth || host.clientWidth || 560);
    var opts = {
      width: width,
      height: 260,
      scales: { x: xScale, y: { auto: true, range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.05 : 1]; } } },
      axes: [xAxis, { label: spec.yLabel, labelSize: 30, size: 60, values: function (u, splits) { return splits.map(num); } }],
      series: series,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } }
    };
    if (hasOverlays(spec)) applyOverlays(spec, opts);
    if (spec.syncKey) applySync(spec.syncKey, opts);
    var chart = new uPlot(opts, data, plot);
    charts.push({ id: spec.id, title: spec.title, series: chart.series.length - 1, chart: chart, syncKey: spec.syncKey || null });
  }

  // Charts of one syncKey are one time axis drawn in several plots: the cursor of one shows the same x in
  // all (uPlot's cursor sync), and a zoom on x (or its reset) is applied to the others.
  var zooming = false;
  function applySync(key, opts) {
    opts.cursor.sync = { key: key };
    opts.hooks = opts.hooks || {};
    opts.hooks.setScale = (opts.hooks.setScale || []).concat([function (u, scale) {
      if (scale !== 'x' || zooming) return;
      zooming = true;
      charts.forEach(function (c) {
        if (c.syncKey === key && c.chart !== u) c.chart.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
      });
      zooming = false;
    }]);
  }

  function renderBars(block, host) {
    var box = el('figure', 'bars');
    box.appendChild(el('figcaption', 'chart-title', block.title));
    var max = 0;
    block.rows.forEach(function (r) { if (isFinite(r.value) && r.value > max) max = r.value; });
    block.rows.forEach(function (r, i) {
      var row = el('div', 'bar-row');
      row.appendChild(el('span', 'bar-label', r.label));
      var track = el('span', 'bar-track');
      var bar = el('span', 'bar');
      bar.style.width = (max > 0 && isFinite(r.value) ? Math.max(0.5, 100 * r.value / max) : 0) + '%';
      bar.style.background = color(r.color === undefined ? i : r.color);
      track.appendChild(bar);
      row.appendChild(track);
      row.appendChild(el('span', 'bar-value', num(r.value) + ' ' + block.unit));
      box.appendChild(row);
    });
    host.appendChild(box);
  }

  function renderStack(block, host) {
    var box = el('figure', 'bars stack');
    box.appendChild(el('figcaption', 'chart-title', block.title));
    var legend = el('div', 'legend');
    block.legend.forEach(function (name, i) {
      var item = el('span', 'legend-item');
      var swatch = el('span', 'swatch');
      swatch.style.background = color(i);
      item.appendChild(swatch);
      item.appendChild(el('span', null, name));
      legend.appendChild(item);
    });
    box.appendChild(legend);
    var max = 0;
    block.rows.forEach(function (r) {
      var t = r.segments.reduce(function (a, b) { return a + (isFinite(b) ? b : 0); }, 0);
      if (t > max) max = t;
    });
    block.rows.forEach(function (r) {
      var row = el('div', 'bar-row');
      row.appendChild(el('span', 'bar-label', r.label));
      var track = el('span', 'bar-track');
      var total = 0;
      r.segments.forEach(function (v, i) {
        if (!isFinite(v) || v <= 0) return;
        total += v;
        var seg = el('span', 'bar segment');
        seg.style.width = (100 * v / max) + '%';
        seg.style.background = color(i);
        seg.setAttribute('title', block.legend[i] + ': ' + num(v) + ' ' + block.unit);
        track.appendChild(seg);
      });
      row.appendChild(track);
      row.appendChild(el('span', 'bar-value', r.segments.map(num).join(' / ') + ' ' + block.unit));
      box.appendChild(row);
    });
    host.appendChild(box);
  }

  function renderBlock(block, host, deferred) {
    switch (block.kind) {
      case 'heading': host.appendChild(el('h3', null, block.text)); break;
      case 'paragraph': host.appendChild(el('p', 'tone-' + (block.tone || 'plain'), block.text)); break;
      case 'badges': {
        var line = el('div', 'badges');
        block.items.forEach(function (b) { line.appendChild(el('span', 'badge badge-' + b.tone, b.text)); });
        host.appendChild(line);
        break;
      }
      case 'kv': {
        var dl = el('table', 'kv');
        block.rows.forEach(function (r) {
          var tr = el('tr');
          tr.appendChild(el('th', null, r[0]));
          tr.appendChild(cellNode('td', r[1]));
          dl.appendChild(tr);
        });
        host.appendChild(dl);
        break;
      }
      case 'table': {
        var wrap = el('div', 'table-wrap');
        var table = el('table', 'data');
        if (block.caption) table.appendChild(el('caption', null, block.caption));
        var head = el('thead');
        var htr = el('tr');
        block.columns.forEach(function (c, i) { htr.appendChild(el('th', i >= (block.numericFrom === undefined ? 999 : block.numericFrom) ? 'num' : null, c)); });
        head.appendChild(htr);
        table.appendChild(head);
        var body = el('tbody');
        block.rows.forEach(function (r) {
          var tr = el('tr');
          r.forEach(function (c, i) {
            var td = cellNode('td', c);
            if (i >= (block.numericFrom === undefined ? 999 : block.numericFrom)) td.classList.add('num');
            tr.appendChild(td);
          });
          body.appendChild(tr);
        });
        table.appendChild(body);
        wrap.appendChild(table);
        host.appendChild(wrap);
        break;
      }
      case 'list': {
        var ul = el('ul');
        block.items.forEach(function (item) { ul.appendChild(cellNode('li', item)); });
        host.appendChild(ul);
        break;
      }
      case 'chart': {
        var slot = el('div', 'chart-slot');
        host.appendChild(slot);
        deferred.push(function () { renderChart(block.chart, slot); });
        break;
      }
      case 'bars': renderBars(block, host); break;
      case 'stack': renderStack(block, host); break;
      case 'grid': {
        var grid = el('div', 'grid');
        block.blocks.forEach(function (b) { var cell = el('div', 'grid-cell'); grid.appendChild(cell); renderBlock(b, cell, deferred); });
        host.appendChild(grid);
        break;
      }
    }
  }

  document.title = doc.title;
  var main = document.getElementById('inferbench-main');
  var header = el('header');
  header.appendChild(el('h1', null, doc.title));
  header.appendChild(el('p', 'subtitle', doc.subtitle));
  var nav = el('nav');
  doc.sections.forEach(function (s) {
    var a = el('a', null, s.title);
    a.setAttribute('href', '#' + encodeURIComponent(s.id));
    nav.appendChild(a);
  });
  header.appendChild(nav);
  main.appendChild(header);
  var deferred = [];
  doc.sections.forEach(function (s) {
    var section = el('section', 'card');
    section.setAttribute('id', s.id);
    section.appendChild(el('h2', null, s.title));
    s.blocks.forEach(function (b) { renderBlock(b, section, deferred); });
    main.appendChild(section);
  });
  main.appendChild(el('footer', null, doc.footer));
  // Charts are drawn once the layout exists, so each takes the width of its slot.
  deferred.forEach(function (draw) { draw(); });
  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      charts.forEach(function (c) {
        var w = Math.max(320, c.chart.root.parentNode.clientWidth || 560);
        c.chart.setSize({ width: w, height: 260 });
      });
    }, 150);
  });
})();
`;
