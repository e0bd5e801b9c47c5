/**
 * The part of the page script that draws a chart's overlays (ChartSpec.rules, .bands, .markers, .pins): reference
 * lines with shaded bands (the SLO limits, the capacity and its interval), a fill between two series (a
 * fit's 95% band), a marker per point whose shape is its tone (a capacity step's outcome) and HTML pins on
 * single points (a trend's change points). Plain browser
 * JavaScript spliced into PAGE_SCRIPT's closure, where `el` and `color` live; charts without overlays never
 * reach it, so they draw exactly as before.
 */
export const CHART_OVERLAYS_SCRIPT = `
  var TONE_COLORS = { ok: '#15803d', bad: '#b91c1c', warn: '#b45309', muted: '#6b7280', plain: '#111827' };
  // Shapes, not only colours, tell outcomes apart: dot pass, cross fail, ring inconclusive.
  var MARKER_GLYPHS = { ok: '\\u25CF', bad: '\\u2715', warn: '\\u25CB', muted: '\\u25CB', plain: '\\u25CF' };

  function hasOverlays(spec) { return !!(spec.rules || spec.bands || spec.markers || spec.pins); }
  function ruleColor(r) { return r.color === undefined ? TONE_COLORS[r.tone || 'plain'] : color(r.color); }
  function ruleValues(spec, axis) {
    var out = [];
    (spec.rules || []).forEach(function (r) {
      if (r.axis !== axis) return;
      out.push(r.value);
      if (r.band) out.push(r.band[0], r.band[1]);
    });
    return out;
  }
  function finite(values) { return values.filter(function (v) { return typeof v === 'number' && isFinite(v); }); }

  // x: the data, every x rule and band, and a margin so the markers at the edges stay whole.
  function overlayXRange(spec) {
    var extra = ruleValues(spec, 'x');
    return function (u, min, max) {
      var all = finite([min, max].concat(extra));
      if (all.length === 0) return [0, 1];
      var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
      var pad = hi > lo ? (hi - lo) * 0.05 : Math.max(1, Math.abs(hi) * 0.1);
      return [lo >= 0 ? Math.max(0, lo - pad) : lo - pad, hi + pad];
    };
  }
  // y: from 0 (or below) to above the data and every y rule, so an SLO line is never off the chart.
  function overlayYRange(spec) {
    var extra = ruleValues(spec, 'y');
    return function (u, min, max) {
      var all = finite([min, max].concat(extra));
      var lo = all.length ? Math.min(0, Math.min.apply(null, all)) : 0;
      var hi = all.length ? Math.max.apply(null, all) : 1;
      return [lo, hi > lo ? hi * 1.08 : lo + 1];
    };
  }

  function clipToPlot(u, ctx) {
    ctx.beginPath();
    ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
    ctx.clip();
  }
  // Under everything else (drawClear): the shaded bands of the rules.
  function drawRuleBands(u, spec) {
    var ctx = u.ctx, b = u.bbox;
    ctx.save();
    clipToPlot(u, ctx);
    (spec.rules || []).forEach(function (r) {
      if (!r.band) return;
      ctx.fillStyle = ruleColor(r) + '2e';
      var p = u.valToPos(r.band[0], r.axis, true), q = u.valToPos(r.band[1], r.axis, true);
      var from = Math.min(p, q), size = Math.max(1, Math.abs(q - p));
      if (r.axis === 'x') ctx.fillRect(from, b.top, size, b.height);
      else ctx.fillRect(b.left, from, b.width, size);
    });
    ctx.restore();
  }
  function drawRuleLabel(ctx, text, x, y, right, px) {
    var w = ctx.measureText(text).width;
    // Beside the line where it fits, else to its left: a label must not leave the plot.
    if (x + 4 * px + w <= right) { ctx.textAlign = 'left'; ctx.fillText(text, x + 4 * px, y); }
    else { ctx.textAlign = 'right'; ctx.fillText(text, x - 4 * px, y); }
  }
  function drawRuleLines(u, spec) {
    var ctx = u.ctx, b = u.bbox, px = uPlot.pxRatio || 1;
    ctx.save();
    clipToPlot(u, ctx);
    ctx.font = Math.round(11 * px) + 'px system-ui, sans-serif';
    (spec.rules || []).forEach(function (r) {
      var c = ruleColor(r);
      ctx.strokeStyle = c;
      ctx.fillStyle = c;
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash(r.dashed ? [6 * px, 4 * px] : []);
      ctx.beginPath();
      var at = u.valToPos(r.value, r.axis, true);
      if (r.axis === 'x') { ctx.moveTo(at, b.top); ctx.lineTo(at, b.top + b.height); }
      else { ctx.moveTo(b.left, at); ctx.lineTo(b.left + b.width, at); }
      ctx.stroke();
      var short = r.short || r.label;
      if (r.axis === 'x') drawRuleLabel(ctx, short, at, b.top + 12 * px, b.left + b.width, px);
      else drawRuleLabel(ctx, short, b.left, at - 4 * px, b.left + b.width, px);
    });
    ctx.restore();
  }
  function drawMarker(ctx, tone, x, y, r, c, px) {
    ctx.beginPath();
    ctx.strokeStyle = c;
    ctx.lineWidth = 2 * px;
    if (tone === 'bad') {
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
      ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      ctx.stroke();
      return;
    }
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = tone === 'ok' || tone === 'plain' ? c : '#ffffff';
    ctx.fill();
    ctx.stroke();
  }
  // Over the series (draw): a marker per point of every marked, visible series.
  function drawMarkers(u, spec) {
    if (!spec.markers) return;
    var ctx = u.ctx, px = uPlot.pxRatio || 1;
    ctx.save();
    clipToPlot(u, ctx);
    ctx.setLineDash([]);
    spec.series.forEach(function (s, si) {
      if (!s.marked || !u.series[si + 1].show) return;
      var c = color(s.color === undefined ? si : s.color);
      u.data[0].forEach(function (xv, i) {
        var yv = u.data[si + 1][i];
        if (yv === null || yv === undefined || !isFinite(yv)) return;
        drawMarker(ctx, spec.markers.tones[i], u.valToPos(xv, 'x', true), u.valToPos(yv, 'y', true), 4 * px, c, px);
      });
    });
    ctx.restore();
  }

  // Over the plot, in HTML (pins): an element per pinned point, made on the first draw and moved on
  // every draw, hidden when its point is hidden or zoomed out of view.
  function drawPins(u, spec) {
    if (!spec.pins) return;
    if (!u.inferbenchPins) {
      u.inferbenchPins = spec.pins.map(function (p) {
        var pin = el('span', 'chart-pin pin-' + p.tone);
        pin.setAttribute('title', p.title);
        pin.setAttribute('role', 'img');
        pin.setAttribute('aria-label', p.title);
        Object.keys(p.data).forEach(function (name) {
          if (/^data-[a-z0-9-]+$/.test(name)) pin.setAttribute(name, String(p.data[name]));
        });
        u.over.appendChild(pin);
        return pin;
      });
    }
    spec.pins.forEach(function (p, i) {
      var pin = u.inferbenchPins[i];
      var xv = u.data[0][p.index], yv = u.data[p.series + 1] ? u.data[p.series + 1][p.index] : null;
      var shown = !!u.series[p.series + 1] && u.series[p.series + 1].show && yv !== null && yv !== undefined && isFinite(yv);
      var left = shown ? u.valToPos(xv, 'x') : -1, top = shown ? u.valToPos(yv, 'y') : -1;
      var inside = shown && left >= 0 && left <= u.over.clientWidth && top >= 0 && top <= u.over.clientHeight;
      pin.style.display = inside ? 'block' : 'none';
      pin.style.left = left + 'px';
      pin.style.top = top + 'px';
    });
  }

  // Above the plot, in HTML: what the markers and lines mean, with the full label (unit, interval).
  function renderChartNotes(spec, box) {
    var notes = el('div', 'legend chart-notes');
    ((spec.markers && spec.markers.legend) || []).forEach(function (m) {
      var item = el('span', 'legend-item');
      item.appendChild(el('span', 'marker-glyph', MARKER_GLYPHS[m.tone] || MARKER_GLYPHS.plain));
      item.appendChild(el('span', null, m.label));
      notes.appendChild(item);
    });
    (spec.rules || []).forEach(function (r) {
      var item = el('span', 'legend-item chart-rule');
      var swatch = el('span', r.axis === 'x' ? 'rule-swatch rule-x' : 'rule-swatch');
      swatch.style.borderColor = ruleColor(r);
      if (r.dashed) swatch.style.borderStyle = 'dashed';
      item.appendChild(swatch);
      item.appendChild(el('span', null, r.label));
      notes.appendChild(item);
    });
    box.appendChild(notes);
  }

  // uPlot options for the overlays: scale ranges that keep the rules in view, the fills and the hooks.
  function overlaySeries(s, options) {
    if (s.thin) options.width = 1;
    // Markers only: no path; marked series get their markers from the draw hook.
    if (s.pointsOnly) options.paths = function () { return null; };
    if (s.pointsOnly && !s.marked) options.points = { show: true, size: 7, fill: options.stroke };
    return options;
  }
  function applyOverlays(spec, opts) {
    opts.scales.x.range = overlayXRange(spec);
    opts.scales.y.range = overlayYRange(spec);
    if (spec.bands) {
      opts.bands = spec.bands.map(function (band) {
        return { series: [band.upper + 1, band.lower + 1], fill: color(band.color === undefined ? band.upper : band.color) + '26' };
      });
    }
    opts.hooks = {
      drawClear: [function (u) { drawRuleBands(u, spec); }],
      draw: [function (u) { drawRuleLines(u, spec); drawMarkers(u, spec); drawPins(u, spec); }]
    };
  }
`;
