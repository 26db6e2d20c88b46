// kbf report page: draws the embedded data (#kbf-data) with uPlot. It
// decides nothing: every number it shows is in the data as the analysis
// computed it. When done it writes what it drew into #kbf-result, so that a
// test in a browser can check it.
(function () {
  "use strict";
  var t0 = performance.now();
  var result = { errors: [], lanes: [], figures: [], charts: 0 };
  window.addEventListener("error", function (e) { result.errors.push(String(e.message)); publish(); });

  var drawn = []; // the lanes, for the self-test
  var heatDrawn = null; // the heat map, for the self-test
  var tuneDrawn = null; // a tune's chart, for the self-test
  var COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e"];
  var PHASE_COLOURS = { "detect": "#fdd0a2", "elect": "#c6dbef", "client": "#c7e9c0", "first ack": "#dadaeb" };

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (k === "text") e.textContent = attrs[k];
        else if (k === "cls") e.className = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  function fmtValue(v, unit) {
    if (unit === "s") return v.toFixed(2) + " s";
    if (unit === "ms") return v.toFixed(1) + " ms";
    if (unit) return String(v) + " " + unit;
    return String(v);
  }

  // clock formats a time given as seconds since an origin (Unix ms).
  function clock(originMs, s) {
    return new Date(originMs + s * 1000).toISOString().slice(11, 23);
  }

  function width(container) {
    return Math.max(600, (container.clientWidth || document.body.clientWidth || 1200) - 20);
  }

  // Charts of one trial share the time axis: a zoom in one lane zooms them
  // all.
  function syncGroup() {
    var charts = [], busy = false;
    return {
      add: function (u) { charts.push(u); },
      hook: function (u, key) {
        if (key !== "x" || busy) return;
        busy = true;
        var s = u.scales.x;
        charts.forEach(function (o) { if (o !== u) o.setScale("x", { min: s.min, max: s.max }); });
        busy = false;
      },
      // span shows every chart over one time span: each chart alone would
      // scale to its own points, and a lane that stopped acking at the
      // fault would cut every other lane short there.
      span: function (min, max) {
        if (!(max > min)) return;
        busy = true;
        charts.forEach(function (o) { o.setScale("x", { min: min, max: max }); });
        busy = false;
      },
    };
  }

  // wheelZoom zooms the time axis around the cursor with the wheel, and
  // pans it with the wheel while Shift is held.
  function wheelZoom(u) {
    u.over.addEventListener("wheel", function (e) {
      e.preventDefault();
      var s = u.scales.x, range = s.max - s.min;
      if (e.shiftKey) {
        var d = range * 0.1 * Math.sign(e.deltaY || e.deltaX);
        u.setScale("x", { min: s.min + d, max: s.max + d });
        return;
      }
      var at = u.posToVal(e.offsetX, "x");
      var f = e.deltaY < 0 ? 0.8 : 1.25;
      u.setScale("x", { min: at - (at - s.min) * f, max: at + (s.max - at) * f });
    }, { passive: false });
  }

  function shade(u, from, to, fill) {
    var x0 = u.valToPos(from, "x", true), x1 = u.valToPos(to, "x", true);
    var l = Math.max(x0, u.bbox.left), r = Math.min(x1, u.bbox.left + u.bbox.width);
    if (r <= l) return;
    u.ctx.fillStyle = fill;
    u.ctx.fillRect(l, u.bbox.top, r - l, u.bbox.height);
  }

  // figuresTable lays figures out as rows × columns; each cell keeps its
  // key into report.json and its exact value. ti is the trial's index, or
  // "summary".
  function figuresTable(figs, ti, corner) {
    var rows = [], cols = [], cells = {};
    figs.forEach(function (f) {
      if (rows.indexOf(f.row) < 0) rows.push(f.row);
      if (cols.indexOf(f.col) < 0) cols.push(f.col);
      cells[f.row + "\u0000" + f.col] = f;
    });
    var head = el("tr", null, [el("th", { text: corner })].concat(cols.map(function (c) { return el("th", { text: c }); })));
    var body = rows.map(function (r) {
      return el("tr", null, [el("th", { text: r })].concat(cols.map(function (c) {
        var f = cells[r + "\u0000" + c];
        if (!f) return el("td", { text: "–" });
        var text = f.text !== undefined && f.text !== "" ? f.text : fmtValue(f.value, f.unit);
        var attrs = { "data-key": f.key, "data-trial": String(ti), text: text, cls: "fig" };
        if (!f.text) attrs["data-value"] = String(f.value);
        result.figures.push({ trial: ti, key: f.key, value: f.text ? f.text : f.value, text: text });
        return el("td", attrs);
      })));
    });
    return el("table", { cls: "figures" }, [el("thead", null, [head]), el("tbody", null, body)]);
  }

  function laneEvents(tm, p) {
    return (tm.events || []).filter(function (e) { return e.partition < 0 || e.partition === p; });
  }

  // laneChart draws one partition's messages: ack and receive latency
  // against send time, the stalls shaded, the phases as labelled spans in a
  // strip at the top and the timeline's events as hoverable markers.
  function laneChart(tm, ti, ln, group, container) {
    var info = el("div", { cls: "info", text: "hover a point for its message, a marker for its log line" });
    var originMs = Date.parse(tm.origin.replace(/(\.\d{3})\d+/, "$1"));
    var pts = ln.points;
    var clamp = function (v) { return v === null ? null : Math.max(v, 0.001); };
    var data = [pts.x, pts.recv_ms.map(clamp), pts.ack_ms.map(clamp)];
    var events = laneEvents(tm, ln.partition);
    var markers = [];
    var opts = {
      width: width(container), height: 240,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      legend: { show: true },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 7 } },
      series: [
        { label: "s since " + tm.origin_is, value: function (u, v) { return v == null ? "" : v.toFixed(3); } },
        // Receive latency first, so that the ack latency is drawn over it.
        { label: "receive latency (ms)", stroke: "#f5a35c", paths: function () { return null; }, points: { show: true, size: 3, stroke: "#f5a35c", fill: "#f5a35c" } },
        { label: "ack latency (ms)", stroke: COLOURS[0], paths: function () { return null; }, points: { show: true, size: 3, stroke: COLOURS[0], fill: COLOURS[0] } },
      ],
      axes: [
        { label: "seconds since the " + tm.origin_is },
        { label: "latency (ms, log)", size: 60 },
      ],
      hooks: {
        drawClear: [function (u) {
          if (ln.receive_stall) shade(u, ln.receive_stall.start, ln.receive_stall.end, "rgba(255,127,14,0.10)");
          if (ln.stall) shade(u, ln.stall.start, ln.stall.end, "rgba(214,39,40,0.12)");
          if (ln.lso_stall) {
            // The read_committed stall: a bar along the bottom, above the
            // group reader's.
            var l0 = Math.max(u.valToPos(ln.lso_stall.start, "x", true), u.bbox.left);
            var l1 = Math.min(u.valToPos(ln.lso_stall.end, "x", true), u.bbox.left + u.bbox.width);
            if (l1 > l0) {
              u.ctx.fillStyle = "rgba(44,160,44,0.55)";
              u.ctx.fillRect(l0, u.bbox.top + u.bbox.height - 14 * devicePixelRatio, l1 - l0, 6 * devicePixelRatio);
            }
          }
          if (ln.group_stall) {
            // The group reader's processing gap: a bar along the bottom.
            var x0 = Math.max(u.valToPos(ln.group_stall.start, "x", true), u.bbox.left);
            var x1 = Math.min(u.valToPos(ln.group_stall.end, "x", true), u.bbox.left + u.bbox.width);
            if (x1 > x0) {
              u.ctx.fillStyle = "rgba(148,103,189,0.55)";
              u.ctx.fillRect(x0, u.bbox.top + u.bbox.height - 6 * devicePixelRatio, x1 - x0, 6 * devicePixelRatio);
            }
          }
        }],
        draw: [function (u) {
          var ctx = u.ctx, top = u.bbox.top, h = 16 * devicePixelRatio;
          (ln.phases || []).forEach(function (ph) {
            var x0 = u.valToPos(ph.start, "x", true), x1 = u.valToPos(ph.end, "x", true);
            var l = Math.max(x0, u.bbox.left), r = Math.min(x1, u.bbox.left + u.bbox.width);
            if (ph.bound) {
              // The bound its settings allow, behind the phase: from its
              // start + low to its start + high (docs/bounds.md).
              var b0 = Math.max(u.valToPos(ph.start + ph.bound.low, "x", true), u.bbox.left);
              var b1 = Math.min(u.valToPos(ph.start + ph.bound.high, "x", true), u.bbox.left + u.bbox.width);
              if (b1 > b0) {
                ctx.fillStyle = "rgba(44,160,44,0.25)";
                ctx.fillRect(b0, top + h, b1 - b0, 4 * devicePixelRatio);
              }
            }
            if (r <= l) return;
            // Translucent: the stall's largest latencies are drawn under
            // the strip.
            ctx.globalAlpha = 0.7;
            ctx.fillStyle = PHASE_COLOURS[ph.name] || "#eeeeee";
            ctx.fillRect(l, top, Math.max(r - l, 1), h);
            ctx.globalAlpha = 1;
            ctx.strokeStyle = ph.bound && ph.bound.excess > 0 ? "#d62728" : "#555";
            ctx.strokeRect(l, top, Math.max(r - l, 1), h);
            var label = ph.name + " " + (ph.end - ph.start).toFixed(2) + " s";
            ctx.font = (11 * devicePixelRatio) + "px sans-serif";
            ctx.textAlign = "left";
            ctx.textBaseline = "alphabetic";
            ctx.fillStyle = "#222";
            if (ctx.measureText(label).width < r - l - 4) ctx.fillText(label, l + 3, top + h - 4 * devicePixelRatio);
            else if (ctx.measureText(ph.name).width < r - l - 4) ctx.fillText(ph.name, l + 3, top + h - 4 * devicePixelRatio);
          });
          ctx.save();
          ctx.setLineDash([4, 3]);
          ctx.strokeStyle = "rgba(60,60,60,0.7)";
          events.forEach(function (e) {
            var x = u.valToPos(e.t, "x", true);
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            ctx.beginPath(); ctx.moveTo(x, top + h); ctx.lineTo(x, top + u.bbox.height); ctx.stroke();
          });
          ctx.restore();
          // The markers are elements over the plot, so that they can be
          // hovered; they are laid out again after every zoom.
          markers.forEach(function (m) { m.remove(); });
          markers = [];
          events.forEach(function (e) {
            var x = u.valToPos(e.t, "x");
            if (x < 0 || x > u.over.clientWidth) return;
            var m = el("div", { cls: "marker", title: e.time + " " + e.node + " " + e.kind + ": " + e.text + (e.source ? " [" + e.source + "]" : "") });
            m.style.left = (x - 4) + "px";
            m.addEventListener("mouseenter", function () {
              info.textContent = e.time + " (" + e.t.toFixed(3) + " s) " + e.node + " " + e.kind + ": " + e.text + (e.source ? "  [" + e.source + "]" : "");
            });
            u.over.appendChild(m);
            markers.push(m);
          });
        }],
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i == null) return;
          var s = pts.x[i], a = pts.ack_ms[i], r = pts.recv_ms[i];
          var text = "p" + ln.partition + " seq " + pts.seq[i] + (pts.offset[i] >= 0 ? " offset " + pts.offset[i] : " (no offset)") +
            "; sent " + clock(originMs, s) + " (" + s.toFixed(3) + " s)" +
            (a !== null ? "; acked " + clock(originMs, s + a / 1000) + " (+" + a.toFixed(3) + " ms)" : "; never acked") +
            (r !== null ? "; received " + clock(originMs, s + r / 1000) + " (+" + r.toFixed(3) + " ms)" : "; never received");
          info.textContent = text;
        }],
        setScale: [function (u, key) { group.hook(u, key); }],
      },
    };
    var holder = el("div", { cls: "chart" });
    var div = el("div", { cls: "lane", "data-trial": String(ti), "data-partition": String(ln.partition), "data-points": String(pts.x.length) }, [
      el("h3", { text: "p" + ln.partition + (ln.role ? " (" + ln.role + ")" : "") + " — " + pts.x.length + " of " + ln.messages + " messages drawn" }),
      holder, info,
    ]);
    container.appendChild(div);
    var u = new uPlot(opts, data, holder);
    wheelZoom(u);
    group.add(u);
    result.charts++;
    drawn.push({ u: u, info: info, ln: ln, markers: function () { return markers; } });
    var entry = { trial: ti, partition: ln.partition, points: pts.x.length };
    result.lanes.push(entry);
    // uPlot sizes and draws its canvas in a microtask; this one runs after.
    queueMicrotask(function () { entry.canvas = u.ctx.canvas.width; entry.inked = inked(u.ctx); });
    return u;
  }

  // inked counts the drawn pixels on a grid over the canvas: proof that the
  // chart drew something, for the browser test.
  function inked(ctx) {
    var c = ctx.canvas, n = 0;
    if (!c.width || !c.height) return 0;
    var d = ctx.getImageData(0, 0, c.width, c.height).data;
    for (var i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) n++;
    return n;
  }

  // The heat map's colours: a phase boundary's tick by the phase it ends;
  // a column without a gap over the bound, and one before the partition's
  // first send.
  var TICK_COLOURS = { "detect": "#e6550d", "elect": "#3182bd", "client": "#31a354", "first ack": "#756bb1" };
  var ACKED = "#e5efe5", IDLE = "#f6f6f6";

  // gapColour is a gap's colour on a log scale from the bound (light) to
  // the map's longest gap (dark red).
  function gapColour(len, bound, longest) {
    var f = longest > bound ? Math.log(len / bound) / Math.log(longest / bound) : 1;
    f = Math.max(0, Math.min(1, f));
    return "rgb(" + Math.round(253 - 126 * f) + "," + Math.round(212 - 212 * f) + "," + Math.round(158 - 158 * f) + ")";
  }

  // niceStep is the step of the time axis' ticks: at least minStep.
  function niceStep(minStep) {
    var steps = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
    for (var i = 0; i < steps.length; i++) if (steps[i] >= minStep) return steps[i];
    return Math.ceil(minStep / 3600) * 3600;
  }

  // heatChart draws a trial of many partitions as one heat map on a
  // canvas: a row per partition, grouped by role, a column per pixel of
  // time, each column coloured by the longest ack gap over the bound that
  // overlaps it; the fault and the shared phase boundaries as lines across
  // the rows, each partition's own boundaries as ticks on its row.
  // Hovering a cell says the partition, the time and the gap.
  function heatChart(tm, ti, hm, container) {
    var dpr = window.devicePixelRatio || 1;
    var rows = hm.rows, n = rows.length;
    var rowH = Math.max(1, Math.min(12, Math.floor(720 / Math.max(n, 1))));
    var left = 120, right = 12, top = 22, bottom = 36;
    var w = width(container), plotW = w - left - right, plotH = n * rowH, h = top + plotH + bottom;
    var span = hm.to - hm.from > 0 ? hm.to - hm.from : 1;
    var xOf = function (t) { return left + (t - hm.from) / span * plotW; };
    var tOf = function (x) { return hm.from + (x - left) / plotW * span; };
    var originMs = Date.parse(tm.origin.replace(/(\.\d{3})\d+/, "$1"));
    var canvas = el("canvas", { width: String(Math.round(w * dpr)), height: String(Math.round(h * dpr)) });
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
    var ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    var longest = hm.bound, gapCount = 0, tickCount = 0;
    rows.forEach(function (r) {
      (r.gaps || []).forEach(function (g) { longest = Math.max(longest, g[1] - g[0]); gapCount++; });
      tickCount += (r.ticks || []).length;
    });

    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, plotW, plotH);
    ctx.clip();
    rows.forEach(function (r, i) {
      var y = top + i * rowH, x0 = Math.max(left, Math.floor(xOf(r.first)));
      ctx.fillStyle = IDLE;
      ctx.fillRect(left, y, x0 - left, rowH);
      ctx.fillStyle = ACKED;
      ctx.fillRect(x0, y, left + plotW - x0, rowH);
      // The shorter gaps first, so that a column shows the longest gap
      // overlapping it; each covers every column it touches.
      (r.gaps || []).slice().sort(function (a, b) { return (a[1] - a[0]) - (b[1] - b[0]); }).forEach(function (g) {
        var gx0 = Math.floor(xOf(g[0])), gx1 = Math.max(Math.ceil(xOf(g[1])), gx0 + 1);
        ctx.fillStyle = gapColour(g[1] - g[0], hm.bound, longest);
        ctx.fillRect(gx0, y, gx1 - gx0, rowH);
      });
      (r.ticks || []).forEach(function (tk) {
        ctx.fillStyle = TICK_COLOURS[hm.phases[tk[1]]] || "#555";
        ctx.fillRect(Math.round(xOf(tk[0])) - 1, y, 2, rowH);
      });
    });
    ctx.restore();

    // The roles' groups: a line between them, and their names.
    ctx.font = "11px sans-serif";
    // Each row named where they are tall enough to read, else one every
    // 100 pixels or so.
    var labelRows = rowH >= 9 ? 1 : Math.ceil(10 / rowH) * 10;
    rows.forEach(function (r, i) {
      var y = top + i * rowH;
      var first = i === 0 || rows[i - 1].role !== r.role;
      if (first && i > 0) {
        ctx.fillStyle = "#222";
        ctx.fillRect(4, y - 1, left + plotW - 4, 1);
      }
      if (first && r.role) {
        ctx.fillStyle = "#222";
        ctx.textAlign = "left";
        ctx.textBaseline = "top";
        var count = rows.filter(function (o) { return o.role === r.role; }).length;
        ctx.fillText(r.role + " (" + count + ")", 4, y + 1);
      }
      if (i % labelRows === 0) {
        ctx.fillStyle = "#555";
        ctx.textAlign = "right";
        ctx.textBaseline = "middle";
        ctx.fillText("p" + r.partition, left - 4, y + rowH / 2);
      }
    });

    // The fault and the shared boundaries, across every row.
    (hm.marks || []).forEach(function (m) {
      var x = xOf(m.t);
      if (x < left || x > left + plotW) return;
      ctx.save();
      ctx.strokeStyle = m.kind === "fault" ? "#d62728" : "#333";
      ctx.lineWidth = m.kind === "fault" ? 2 : 1;
      if (m.kind !== "fault") ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(x, top - 4); ctx.lineTo(x, top + plotH); ctx.stroke();
      ctx.restore();
      ctx.fillStyle = "#222";
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      ctx.fillText(m.kind + (m.phase ? " (" + m.phase + " ends)" : ""), x + 3, top - 10);
    });

    // The time axis.
    var step = niceStep(span / Math.max(1, plotW / 90));
    ctx.fillStyle = "#222";
    ctx.strokeStyle = "#222";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (var t = Math.ceil(hm.from / step) * step; t <= hm.to + 1e-9; t += step) {
      var x = xOf(t);
      ctx.fillRect(x, top + plotH, 1, 4);
      ctx.fillText(String(Math.round(t * 1000) / 1000), x, top + plotH + 6);
    }
    ctx.fillText("seconds since the " + tm.origin_is, left + plotW / 2, top + plotH + 21);

    var info = el("div", { cls: "info", text: "hover a cell for its partition, time and ack gap" });
    // hover says what the cell at (x, y), in CSS pixels on the canvas,
    // shows; "" outside the rows.
    function hover(x, y) {
      var i = Math.floor((y - top) / rowH);
      if (i < 0 || i >= n || x < left || x >= left + plotW) return "";
      var r = rows[i], c0 = tOf(Math.floor(x)), c1 = tOf(Math.floor(x) + 1), at = tOf(x);
      var text = "p" + r.partition + (r.role ? " (" + r.role + ")" : "") + " at " + at.toFixed(3) + " s (" + clock(originMs, at) + "): ";
      var best = -1;
      (r.gaps || []).forEach(function (g, j) {
        if (g[0] <= c1 && g[1] >= c0 && (best < 0 || g[1] - g[0] > r.gaps[best][1] - r.gaps[best][0])) best = j;
      });
      if (best >= 0) {
        var g = r.gaps[best];
        text += "no ack for " + (g[1] - g[0]).toFixed(3) + " s, " + clock(originMs, g[0]) + "–" + clock(originMs, g[1]) +
          " (" + g[0].toFixed(3) + " to " + g[1].toFixed(3) + " s)" + (r.open && best === r.gaps.length - 1 ? ", still none when the trial ended" : "");
      } else if (at < r.first) {
        text += "not sending yet";
      } else {
        text += "acked, no gap over " + hm.bound.toFixed(2) + " s";
      }
      if (r.left) text += "; " + r.left + " shorter gaps of this partition, up to " + r.left_max.toFixed(3) + " s, not drawn";
      (r.ticks || []).forEach(function (tk) { text += "; " + hm.phases[tk[1]] + " ends at " + tk[0].toFixed(3) + " s"; });
      (hm.marks || []).forEach(function (m) {
        if (Math.abs(xOf(m.t) - x) <= 3) text += "; " + m.kind + " at " + m.t.toFixed(3) + " s" + (m.evidence ? ": " + m.evidence : "") + (m.source ? " [" + m.source + "]" : "");
      });
      return text;
    }
    canvas.addEventListener("mousemove", function (e) {
      var box = canvas.getBoundingClientRect();
      var text = hover(e.clientX - box.left, e.clientY - box.top);
      if (text) info.textContent = text;
    });

    var names = { "detect": "orange", "elect": "blue", "client": "green", "first ack": "purple" };
    var legend = el("p", { cls: "hint", text: "Colour: the longest ack gap over " + hm.bound.toFixed(2) + " s (the stall bound) overlapping the column, light at " +
      hm.bound.toFixed(2) + " s to dark red at " + longest.toFixed(2) + " s; pale green: acked; grey: not sending yet." +
      (hm.marks ? " Red line: the fault; dashed: the phase boundaries the partitions share." : "") +
      (hm.phases ? " Ticks on a row: the partition's own phases' ends (" + hm.phases.map(function (p) { return p + " " + (names[p] || "grey"); }).join(", ") + ")." : "") });
    container.appendChild(el("div", { cls: "heat", "data-trial": String(ti), "data-rows": String(n) }, [
      el("h3", { text: n + " partitions, one row each: where each went without an ack for longer than " + hm.bound.toFixed(2) + " s" }),
      legend, canvas, info]));
    result.charts++;
    result.heat = { trial: ti, rows: n, partitions: rows.map(function (r) { return r.partition; }), gaps: gapCount, ticks: tickCount,
      marks: (hm.marks || []).length, columns: plotW, row_px: rowH, canvas: canvas.width, inked: inked(ctx) };
    heatDrawn = { hm: hm, info: info, canvas: canvas, top: top, rowH: rowH, xOf: xOf };
  }

  // commitLane draws the commit lane l of trial tm, of the kind lane (one
  // of LANES): each commit's latency at the time it ended (those that
  // failed apart, in red, at their latency or on the axis), the commit
  // stall shaded, and marks as hoverable markers. It returns the lane's
  // entry in the result the browser test reads.
  function commitLane(tm, ti, lane, l, marks, group, container) {
    var info = el("div", { cls: "info", text: lane.hint });
    var c = l.commits;
    var ok = [], bad = [];
    c.t.forEach(function (t, i) {
      var ms = c.ms[i] === null ? null : Math.max(c.ms[i], 0.001);
      ok.push(c.err[i] ? null : ms);
      bad.push(c.err[i] ? (ms === null ? 0.001 : ms) : null);
    });
    var markers = [];
    var opts = {
      width: width(container), height: 200,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      legend: { show: true },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 7 } },
      series: [
        { label: "s since " + tm.origin_is, value: function (u, v) { return v == null ? "" : v.toFixed(3); } },
        { label: "commit latency (ms)", stroke: lane.colour, paths: function () { return null; }, points: { show: true, size: 4, stroke: lane.colour, fill: lane.colour } },
        { label: lane.failed + " (ms)", stroke: COLOURS[1], paths: function () { return null; }, points: { show: true, size: 6, stroke: COLOURS[1], fill: COLOURS[1] } },
      ],
      axes: [{ label: "seconds since the " + tm.origin_is }, { label: "commit latency (ms, log)", size: 60 }],
      hooks: {
        drawClear: [function (u) {
          if (l.commit_stall) shade(u, l.commit_stall.start, l.commit_stall.end, lane.shade);
        }],
        draw: [function (u) {
          markers.forEach(function (m) { m.remove(); });
          markers = [];
          marks.forEach(function (ev) {
            var x = u.valToPos(ev.t, "x");
            if (x < 0 || x > u.over.clientWidth) return;
            var m = el("div", { cls: "marker", title: ev.time + " " + ev.text });
            m.style.left = (x - 4) + "px";
            m.addEventListener("mouseenter", function () { info.textContent = ev.time + " (" + ev.t.toFixed(3) + " s) " + ev.text; });
            u.over.appendChild(m);
            markers.push(m);
          });
        }],
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i == null) return;
          info.textContent = lane.say(c.t[i], c.ms[i]) + (c.err[i] ? "; " + lane.failed + ": " + c.err[i] : "");
        }],
        setScale: [function (u, key) { group.hook(u, key); }],
      },
    };
    var holder = el("div", { cls: "chart" });
    container.appendChild(el("div", { cls: lane.cls, "data-trial": String(ti), "data-commits": String(c.t.length) }, [
      el("h3", { text: l.heading + " — " + c.t.length + " of " + l.total + " " + lane.noun + " drawn" }), holder, info]));
    var u = new uPlot(opts, [c.t, ok, bad], holder);
    wheelZoom(u);
    group.add(u);
    result.charts++;
    var entry = { trial: ti, commits: c.t.length };
    queueMicrotask(function () { entry.canvas = u.ctx.canvas.width; entry.inked = inked(u.ctx); });
    return entry;
  }

  // LANES holds what differs between the two commit lanes, by the key of
  // their lane in a trial and in the self-test's result: the group
  // reader's commits with the assignment changes as markers, and the
  // transactional producer's transactions, those that did not commit
  // apart, with the coordinator's recovery phases as markers. Both shade
  // the commit stall.
  var LANES = {
    group: {
      cls: "group-lane", hint: "hover a commit for its latency, a marker for the assignment change",
      noun: "commits", colour: COLOURS[3], failed: "failed commit", shade: "rgba(148,103,189,0.15)", marks: "changes",
      say: function (t, ms) {
        return "commit ended at " + t.toFixed(3) + " s" + (ms === null ? " (an autocommit: its start unknown)" : " after " + ms.toFixed(1) + " ms");
      },
    },
    txn: {
      cls: "txn-lane", hint: "hover a transaction for its commit latency, a marker for the coordinator's recovery phase",
      noun: "transactions", colour: COLOURS[2], failed: "not committed", shade: "rgba(44,160,44,0.15)", marks: "phases",
      say: function (t, ms) {
        return "transaction ended at " + t.toFixed(3) + " s" + (ms === null ? " before its commit began" : ", its commit after " + ms.toFixed(1) + " ms");
      },
    },
  };

  // commitChart draws trial tm's commit lane of key ("group" or "txn")
  // and counts its markers in the result.
  function commitChart(key, tm, ti, group, container) {
    var lane = LANES[key], marks = tm[key][lane.marks] || [];
    result[key] = commitLane(tm, ti, lane, tm[key], marks, group, container);
    result[key][lane.marks] = marks.length;
  }

  function replicaChart(tm, rs, group, container) {
    var tables = rs.series.map(function (s) { return [s.t, s.offset]; });
    var data = uPlot.join(tables);
    var series = [{ label: "s since " + tm.origin_is }].concat(rs.series.map(function (s, i) {
      // The HW's nulls are the times without a leader, when it is
      // unknown: its line breaks there. Elsewhere a series has no value
      // at another's sample times (undefined), which uPlot always spans.
      var hw = s.label === "HW";
      var c = hw ? "#000" : COLOURS[(i + 2) % COLOURS.length];
      return { label: s.label, stroke: c, width: hw ? 2 : 1, spanGaps: !hw };
    }));
    var holder = el("div", { cls: "chart" });
    container.appendChild(el("div", { cls: "replicas", "data-partition": String(rs.partition) }, [
      el("h3", { text: "p" + rs.partition + ": each replica's log end offset, and the high watermark" }), holder]));
    var u = new uPlot({
      width: width(container), height: 200, scales: { x: { time: false } }, series: series,
      axes: [{ label: "seconds since the " + tm.origin_is }, { label: "offset", size: 60 }],
      cursor: { drag: { x: true, y: false, setScale: true } },
      hooks: { setScale: [function (u, key) { group.hook(u, key); }] },
    }, data, holder);
    wheelZoom(u);
    group.add(u);
    result.charts++;
  }

  function eventsTable(tm) {
    var rows = (tm.events || []).map(function (e) {
      return el("tr", null, [el("td", { text: e.time }), el("td", { text: e.t.toFixed(3) }), el("td", { text: e.node }),
        el("td", { text: e.kind }), el("td", { text: e.text }), el("td", { cls: "src", text: e.source || "" })]);
    });
    var head = el("tr", null, ["time (UTC)", "s", "node", "kind", "what", "where"].map(function (h) { return el("th", { text: h }); }));
    return el("details", null, [el("summary", { text: "timeline: " + rows.length + " events" }),
      el("table", { cls: "events" }, [el("thead", null, [head]), el("tbody", null, rows)])]);
  }

  function phasesList(tm) {
    var items = [];
    tm.lanes.forEach(function (ln) {
      (ln.phases || []).forEach(function (ph) {
        var t = "p" + ln.partition + " " + ph.name + " " + (ph.end - ph.start).toFixed(2) + " s";
        if (ph.evidence) t += ": " + ph.evidence;
        if (ph.source) t += " [" + ph.source + "]";
        var li = el("li", { text: t });
        if (ph.why) li.appendChild(el("div", { cls: "why", text: "why: " + ph.why }));
        if (ph.setting) li.appendChild(el("div", { cls: "why", text: "shorten: " + ph.setting }));
        if (ph.bound) li.appendChild(el("div", { cls: "why", text: "bound: " + (ph.bound.excess > 0 ? ph.bound.excess.toFixed(2) + " s BEYOND " : "within ") +
          "(" + ph.bound.low.toFixed(2) + " s, " + ph.bound.high.toFixed(2) + " s]: " + ph.bound.basis }));
        items.push(li);
      });
    });
    if (!items.length) return null;
    return el("details", null, [el("summary", { text: "the stalls' phases, explained" }), el("ul", { cls: "phases" }, items)]);
  }

  function renderTrial(tm, ti, root, open) {
    var sec = el("details", { cls: "trial", "data-trial": String(ti) });
    if (open) sec.setAttribute("open", "");
    sec.appendChild(el("summary", { cls: "trial-name", text: tm.name + (tm.client ? " — " + tm.client : "") }));
    sec.appendChild(el("p", { text: tm.heading }));
    if (tm.verdict) sec.appendChild(el("p", { cls: "verdict", text: tm.verdict }));
    root.appendChild(sec);
    if (tm.heat) {
      // Too many partitions for their table to come first: it follows
      // the map, folded.
      heatChart(tm, ti, tm.heat, sec);
      sec.appendChild(el("details", null, [el("summary", { text: "the figures of each of the " + tm.lanes.length + " partitions" }),
        figuresTable(tm.figures, ti, "partition")]));
    } else {
      sec.appendChild(figuresTable(tm.figures, ti, "partition"));
    }
    var pl = phasesList(tm);
    if (pl) sec.appendChild(pl);
    var group = syncGroup();
    if (!tm.heat) {
      sec.appendChild(el("p", { cls: "hint", text: "Drag to zoom the time axis, wheel to zoom, Shift+wheel to pan, double-click to reset. Red band: ack stall at the fault; orange: receive stall; the strip on top: the stall's phases (outlined red when one ran past its bound), the green line under it the bound its settings allow; dashed lines: the timeline's events" + (tm.group ? "; purple bar: the group reader's processing stall" : "") + (tm.txn ? "; green bar: the read_committed stall" : "") + "." }));
      tm.lanes.forEach(function (ln) { laneChart(tm, ti, ln, group, sec); });
    }
    if (tm.group) commitChart("group", tm, ti, group, sec);
    if (tm.txn) commitChart("txn", tm, ti, group, sec);
    (tm.replicas || []).forEach(function (rs) { replicaChart(tm, rs, group, sec); });
    group.span.apply(null, trialSpan(tm));
    sec.appendChild(eventsTable(tm));
    (tm.notes || []).forEach(function (n) { sec.appendChild(el("p", { cls: "note", text: "note: " + n })); });
  }

  // trialSpan is the time span of a trial's lanes, in seconds since its
  // origin: from the first point of any lane to the last of any; a heat
  // map's span.
  function trialSpan(tm) {
    if (tm.heat) return [tm.heat.from, tm.heat.to];
    var min = Infinity, max = -Infinity;
    tm.lanes.forEach(function (ln) {
      ln.points.x.forEach(function (x) {
        if (x === null) return;
        if (x < min) min = x;
        if (x > max) max = x;
      });
    });
    return [min, max];
  }

  // overlayChart draws one partition's ack latency for every trial of a
  // run on time since each trial's fault.
  function overlayChart(pg, ol, group, root) {
    var tables = ol.series.map(function (s) {
      var ln = pg.trials[s.trial].lanes.filter(function (l) { return l.partition === ol.partition; })[0];
      return [ln.points.x, ln.points.ack_ms.map(function (v) { return v === null ? null : Math.max(v, 0.001); })];
    });
    var data = uPlot.join(tables);
    var series = [{ label: "s since the fault" }].concat(ol.series.map(function (s, i) {
      var c = COLOURS[i % COLOURS.length];
      return { label: s.label, stroke: c, paths: function () { return null; }, points: { show: true, size: 3, stroke: c, fill: c } };
    }));
    var holder = el("div", { cls: "chart" });
    root.appendChild(el("div", { cls: "overlay", "data-partition": String(ol.partition) }, [
      el("h3", { text: "p" + ol.partition + ": ack latency, " + ol.series.length + " trials overlaid" }), holder]));
    var u = new uPlot({
      width: width(root), height: 240,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      series: series,
      axes: [{ label: "seconds since the fault" }, { label: "ack latency (ms, log)", size: 60 }],
      cursor: { drag: { x: true, y: false, setScale: true } },
      hooks: {
        drawClear: [function (u) {
          ol.series.forEach(function (s, i) {
            if (s.stall) shade(u, s.stall.start, s.stall.end, "rgba(214,39,40,0.06)");
          });
        }],
        setScale: [function (u, key) { group.hook(u, key); }],
      },
    }, data, holder);
    wheelZoom(u);
    group.add(u);
    result.charts++;
  }

  // distributionChart draws one metric across scenarios: every trial a
  // point, the median a bar, the interval a whisker.
  function distributionChart(d, root, title, xs, names) {
    var n = 0;
    d.scenarios.forEach(function (s) { n = Math.max(n, s.values.length); });
    var x = xs || d.scenarios.map(function (_, i) { return i; });
    var data = [x, d.scenarios.map(function (s) { return s.median; })];
    var series = [{ label: xs ? title : "scenario", value: function (u, v) { return names ? (names[v] || "") : v; } },
      { label: "median", stroke: "#000", width: 2, paths: xs ? undefined : function () { return null; }, points: { show: true, size: 9, stroke: "#000", fill: "#fff" } }];
    for (var j = 0; j < n; j++) {
      data.push(d.scenarios.map(function (s) { return j < s.values.length ? s.values[j] : null; }));
      // Across scenarios the trials are drawn side by side by the hook
      // below, so that equal values do not hide each other; the series
      // stay for the legend and the cursor.
      series.push({ label: "trial " + (j + 1), stroke: COLOURS[j % COLOURS.length], paths: function () { return null; }, points: { show: !!xs, size: 5, stroke: COLOURS[j % COLOURS.length], fill: COLOURS[j % COLOURS.length] } });
    }
    var holder = el("div", { cls: "chart" });
    root.appendChild(el("div", { cls: xs ? "sweep" : "distribution", "data-metric": d.metric }, [el("h3", { text: title }), holder]));
    var xAxis = { label: xs ? d.sweep : "scenario" };
    var xScale = { time: false };
    if (!xs) {
      xScale.range = function () { return [-0.5, d.scenarios.length - 0.5]; };
      xAxis.splits = function () { return x; };
      xAxis.values = function (u, splits) { return splits.map(function (i) { return names[i] || ""; }); };
    }
    var u = new uPlot({
      width: width(root), height: 260, scales: { x: xScale }, series: series,
      axes: [xAxis, { label: d.metric + (d.unit ? " (" + d.unit + ")" : ""), size: 60 }],
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = "#000";
          ctx.lineWidth = 1.5 * devicePixelRatio;
          d.scenarios.forEach(function (s, i) {
            var cx = u.valToPos(x[i], "x", true), lo = u.valToPos(s.low, "y", true), hi = u.valToPos(s.high, "y", true);
            var w = 6 * devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(cx, lo); ctx.lineTo(cx, hi);
            ctx.moveTo(cx - w, lo); ctx.lineTo(cx + w, lo);
            ctx.moveTo(cx - w, hi); ctx.lineTo(cx + w, hi);
            ctx.stroke();
            if (xs) return;
            s.values.forEach(function (v, j) {
              var px = cx + (12 + 6 * j) * devicePixelRatio;
              ctx.fillStyle = COLOURS[j % COLOURS.length];
              ctx.beginPath();
              ctx.arc(px, u.valToPos(v, "y", true), 2.5 * devicePixelRatio, 0, 2 * Math.PI);
              ctx.fill();
            });
          });
          ctx.restore();
        }],
      },
    }, data, holder);
    result.charts++;
    return u;
  }

  function benchTable(b) {
    var head = el("tr", null, ["metric", "scenario", "trials", "median", "interval"].map(function (h) { return el("th", { text: h }); }));
    var rows = [];
    b.distributions.forEach(function (d) {
      d.scenarios.forEach(function (s) {
        var key = "bench." + d.metric + "." + s.scenario;
        result.figures.push({ key: key + ".median", value: s.median, text: fmtValue(s.median, d.unit) });
        rows.push(el("tr", null, [el("td", { text: d.metric }), el("td", { text: s.scenario }), el("td", { text: String(s.values.length) }),
          el("td", { cls: "fig", "data-key": key + ".median", "data-value": String(s.median), text: fmtValue(s.median, d.unit) }),
          el("td", { text: fmtValue(s.low, d.unit) + " – " + fmtValue(s.high, d.unit) })]));
      });
    });
    return el("table", { cls: "figures" }, [el("thead", null, [head]), el("tbody", null, rows)]);
  }

  // tuneTable is a tune's answer as its text has it: a setting a row, its
  // SIGKILL stall, its fences per hiccup, * on the Pareto front, > the
  // recommendation.
  function tuneTable(t) {
    var heads = ["", "session ms", "heartbeat ms", "sigkill stall (leader)", "n"];
    t.hiccups.forEach(function (h) { heads.push(h + ": fenced", "leader moves"); });
    heads.push("fenced, every hiccup");
    var rows = t.settings.map(function (s) {
      var key = "tune." + s.name;
      var cells = [el("td", { text: s.pick ? ">" : (s.front ? "*" : "") }), el("td", { text: String(s.session_ms) }), el("td", { text: String(s.heartbeat_ms) }),
        s.stall.n > 0 ? el("td", { cls: "fig", "data-key": key + ".stall.median", "data-value": String(s.stall.median), text: stallText(s.stall) }) : el("td", { text: stallText(s.stall) }),
        el("td", { text: s.stall.n + "/" + s.stall.attempted })];
      if (s.stall.n > 0) result.figures.push({ key: key + ".stall.median", value: s.stall.median, text: stallText(s.stall) });
      s.risks.forEach(function (k) {
        cells.push(el("td", { text: k.fenced + " of " + k.n, title: k.evidence || "" }), el("td", { text: String(k.leader_moves) }));
      });
      cells.push(el("td", { text: s.fenced + " of " + s.counted + (s.counted ? " (" + Math.round(100 * s.fence_share) + " %)" : "") }));
      return el("tr", { cls: s.pick ? "pick" : (s.front ? "front" : "") }, cells);
    });
    return el("table", { cls: "figures tune" }, [el("thead", null, [el("tr", null, heads.map(function (h) { return el("th", { text: h }); }))]), el("tbody", null, rows)]);
  }

  function stallText(st) {
    if (st.n === 0) return "—";
    if (st.intervalless) return st.median.toFixed(2) + " s (no interval)";
    return st.median.toFixed(2) + " s [" + st.low.toFixed(2) + ", " + st.high.toFixed(2) + "]";
  }

  // tuneText says a setting on hover.
  function tuneText(s) {
    return s.name + " (session " + s.session_ms + " ms, heartbeat " + s.heartbeat_ms + " ms): sigkill stall " + stallText(s.stall) +
      ", " + s.stall.n + " valid of " + s.stall.attempted + "; fenced the healthy broker in " + s.fenced + " of " + s.counted + " hiccup trials" +
      (s.pick ? "; the recommendation" : (s.front ? "; on the Pareto front" : "")) + (s.placed ? "" : "; too few trials to place it");
  }

  // tuneChart draws the trade: a setting a point, its SIGKILL stall's
  // median (the interval a whisker) against the share of its hiccup
  // trials that fenced; the Pareto front joined, the recommendation
  // ringed, a setting with too few trials to place hollow. A setting
  // without a valid SIGKILL trial has no point: the table says so.
  function tuneChart(t, root) {
    var pts = t.settings.filter(function (s) { return s.stall.n > 0; });
    var order = pts.slice().sort(function (a, b) { return a.fence_share - b.fence_share || a.stall.median - b.stall.median; });
    var data = [order.map(function (s) { return 100 * s.fence_share; }), order.map(function (s) { return s.stall.median; })];
    var top = 0, right = 0;
    pts.forEach(function (s) { top = Math.max(top, s.stall.high); right = Math.max(right, 100 * s.fence_share); });
    right = Math.min(100, Math.max(10, right * 1.15));
    var info = el("div", { cls: "info", text: "hover a setting" });
    var holder = el("div", { cls: "chart" });
    root.appendChild(el("div", { cls: "tune-chart" }, [
      el("h3", { text: "the trade: sigkill stall against the share of hiccup trials that fenced the healthy broker" }), holder, info,
      el("p", { cls: "hint", text: "a setting a point, the stall's median with its 95 % interval as a whisker; the dashed line joins the Pareto front (filled); the ring is the recommendation; a hollow point has too few trials to be placed." })]));
    var xy = function (u, s) { return [u.valToPos(100 * s.fence_share, "x", true), u.valToPos(s.stall.median, "y", true)]; };
    var u = new uPlot({
      width: width(root), height: 340,
      scales: { x: { time: false, range: function () { return [-right * 0.05, right]; } }, y: { range: function () { return [0, top * 1.15 || 1]; } } },
      series: [{ label: "fenced (%)" }, { label: "sigkill stall (s)", stroke: "#777", paths: function () { return null; }, points: { show: false } }],
      axes: [{ label: "hiccup trials that fenced the healthy broker (%)" }, { label: "sigkill stall, leader (s)", size: 60 }],
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, dpr = devicePixelRatio;
          ctx.save();
          var front = pts.filter(function (s) { return s.front; }).sort(function (a, b) { return a.fence_share - b.fence_share; });
          ctx.strokeStyle = "#1f77b4";
          ctx.lineWidth = 1.5 * dpr;
          ctx.setLineDash([6 * dpr, 4 * dpr]);
          ctx.beginPath();
          front.forEach(function (s, i) { var p = xy(u, s); if (i === 0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]); });
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.font = (11 * dpr) + "px system-ui, sans-serif";
          ctx.textAlign = "left";
          ctx.textBaseline = "bottom";
          pts.forEach(function (s) {
            var p = xy(u, s), lo = u.valToPos(s.stall.low, "y", true), hi = u.valToPos(s.stall.high, "y", true), w = 5 * dpr;
            var c = s.pick ? "#2ca02c" : (s.front ? "#1f77b4" : "#777");
            ctx.strokeStyle = c;
            ctx.fillStyle = c;
            ctx.lineWidth = 1.5 * dpr;
            ctx.beginPath();
            ctx.moveTo(p[0], lo); ctx.lineTo(p[0], hi);
            ctx.moveTo(p[0] - w, lo); ctx.lineTo(p[0] + w, lo);
            ctx.moveTo(p[0] - w, hi); ctx.lineTo(p[0] + w, hi);
            ctx.stroke();
            ctx.beginPath();
            ctx.arc(p[0], p[1], 4.5 * dpr, 0, 2 * Math.PI);
            if (s.placed) ctx.fill(); else { ctx.fillStyle = "#fff"; ctx.fill(); ctx.stroke(); ctx.fillStyle = c; }
            if (s.pick) {
              ctx.beginPath();
              ctx.arc(p[0], p[1], 9 * dpr, 0, 2 * Math.PI);
              ctx.stroke();
            }
            ctx.fillText(s.session_ms + " ms" + (s.pick ? " (recommended)" : ""), p[0] + 12 * dpr, p[1] - 4 * dpr);
          });
          ctx.restore();
        }],
      },
    }, data, holder);
    u.over.addEventListener("mousemove", function (e) {
      var best = null, dist = 15;
      pts.forEach(function (s) {
        var d = Math.hypot(u.valToPos(100 * s.fence_share, "x") - e.offsetX, u.valToPos(s.stall.median, "y") - e.offsetY);
        if (d < dist) { dist = d; best = s; }
      });
      if (best) info.textContent = tuneText(best);
    });
    result.charts++;
    result.tune = { points: pts.map(function (s) { return s.name; }), front: pts.filter(function (s) { return s.front; }).map(function (s) { return s.name; }),
      pick: (pts.filter(function (s) { return s.pick; })[0] || {}).name || "" };
    tuneDrawn = { u: u, info: info, pts: pts };
  }

  function renderTune(t, root) {
    tuneChart(t, root);
    var missing = t.settings.filter(function (s) { return s.stall.n === 0; }).map(function (s) { return s.name; });
    if (missing.length) root.appendChild(el("p", { cls: "note", text: "not drawn, no valid sigkill trial: " + missing.join(", ") }));
    root.appendChild(tuneTable(t));
    root.appendChild(el("p", { cls: "hint", text: "* on the Pareto front (no other setting has a shorter stall without more fences; a setting with too few trials to call it safe is not placed); > the recommendation. A fence count's controller line shows on hover." }));
    root.appendChild(el("pre", { cls: "answer", text: t.answer.join("\n") }));
  }

  function main() {
    var pg = JSON.parse(document.getElementById("kbf-data").textContent);
    var root = document.getElementById("kbf-page");
    root.textContent = "";
    result.kind = pg.kind;
    if (pg.kind === "tune") {
      renderTune(pg.tune, root);
      return;
    }
    if (pg.kind === "bench") {
      var b = pg.bench;
      root.appendChild(benchTable(b));
      b.distributions.forEach(function (d) {
        distributionChart(d, root, d.metric + (d.unit ? " (" + d.unit + ")" : "") + ": every trial a point, the median a ring, the interval a whisker",
          null, d.scenarios.map(function (s) { return s.scenario; }));
      });
      (b.sweeps || []).forEach(function (s) {
        distributionChart({ metric: s.metric, unit: s.unit, sweep: s.sweep, scenarios: s.points }, root,
          s.metric + " against " + s.sweep, s.points.map(function (p) { return p.x; }), null);
      });
      return;
    }
    if (pg.kind === "run") {
      var group = syncGroup();
      root.appendChild(el("h2", { text: "summary of " + pg.trials.length + " trials" }));
      root.appendChild(figuresTable(pg.summary || [], "summary", "measure"));
      // A trial drawn as a heat map has no lanes to overlay.
      if (pg.overlay) {
        root.appendChild(el("h2", { text: "trials overlaid, time since each trial's fault" }));
        pg.overlay.forEach(function (ol) { overlayChart(pg, ol, group, root); });
      }
      root.appendChild(el("h2", { text: "each trial" }));
    }
    pg.trials.forEach(function (tm, i) { renderTrial(tm, i, root, pg.kind === "trial" || i === 0); });
  }

  // selfTestHeat moves the mouse to the middle of the heat map's longest
  // gap, and to each mark on the first row, and reports what the page
  // said.
  function selfTestHeat(d) {
    var hm = d.hm, row = -1, gap = null;
    hm.rows.forEach(function (r, i) {
      (r.gaps || []).forEach(function (g) {
        if (Math.min(g[1], hm.to) > Math.max(g[0], hm.from) && (gap === null || g[1] - g[0] > gap[1] - gap[0])) {
          row = i;
          gap = g;
        }
      });
    });
    // A mouse is at whole pixels of the window: the next one on from
    // (x, y), inside a row one pixel high.
    var box = d.canvas.getBoundingClientRect();
    var at = function (x, y) {
      d.canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: Math.ceil(box.left + x), clientY: Math.ceil(box.top + y) }));
      return d.info.textContent;
    };
    var out = { marks: [] };
    if (gap) {
      out.partition = hm.rows[row].partition;
      out.gap = gap;
      out.cell = at(d.xOf((Math.max(gap[0], hm.from) + Math.min(gap[1], hm.to)) / 2), d.top + row * d.rowH);
    }
    (hm.marks || []).forEach(function (m) { out.marks.push(at(d.xOf(m.t), d.top)); });
    result.heat.hover = out;
  }

  // selfTest hovers, in every lane, the first point of the stall (or the
  // first point) and the first marker, and reports what the lane showed:
  // the page's hover, checked by the browser test (open the page with
  // #selftest).
  // selfTestTune moves the mouse onto each setting's point and reports
  // what the page said of it.
  function selfTestTune(d) {
    var box = d.u.over.getBoundingClientRect();
    result.tune.hover = d.pts.map(function (s) {
      d.u.over.dispatchEvent(new MouseEvent("mousemove", { clientX: box.left + d.u.valToPos(100 * s.fence_share, "x"), clientY: box.top + d.u.valToPos(s.stall.median, "y") }));
      return d.info.textContent;
    });
  }

  function selfTest() {
    if (heatDrawn) selfTestHeat(heatDrawn);
    if (tuneDrawn) selfTestTune(tuneDrawn);
    result.hover = drawn.map(function (d) {
      var pts = d.ln.points, i = 0;
      if (d.ln.stall) {
        for (i = 0; i < pts.x.length - 1 && pts.x[i] < d.ln.stall.start; i++);
      }
      var y = pts.ack_ms[i] !== null ? pts.ack_ms[i] : pts.recv_ms[i];
      d.u.setCursor({ left: d.u.valToPos(pts.x[i], "x"), top: d.u.valToPos(Math.max(y || 1, 0.001), "y") });
      var point = d.info.textContent, marker = "";
      var ms = d.markers();
      if (ms.length) {
        ms[0].dispatchEvent(new MouseEvent("mouseenter"));
        marker = d.info.textContent;
      }
      return { partition: d.ln.partition, point: point, marker: marker };
    });
    // Zoom the first lane into its stall: the trial's other lanes follow.
    var first = drawn[0];
    if (first) {
      var ln = first.ln, from = ln.stall ? ln.stall.start : ln.points.x[0], to = ln.stall ? ln.stall.end : ln.points.x[ln.points.x.length - 1];
      first.u.setScale("x", { min: from, max: to });
      // uPlot applies a new scale in a microtask, and the other lanes
      // follow in theirs: read the axes once those have run.
      setTimeout(function () {
        result.zoom = { min: from, max: to, lanes: drawn.map(function (d) { return [d.u.scales.x.min, d.u.scales.x.max]; }) };
        publish();
      }, 0);
    }
  }

  function publish() {
    // The time to build the page and its charts, the first time; the
    // checks after it are the test's, not the page's.
    if (result.render_ms === undefined) result.render_ms = Math.round(performance.now() - t0);
    var out = document.getElementById("kbf-result");
    if (!out) {
      out = el("pre", { id: "kbf-result", hidden: "" });
      document.body.appendChild(out);
    }
    out.textContent = JSON.stringify(result);
    document.body.setAttribute("data-kbf-rendered", result.errors.length ? "error" : "ok");
  }

  try { main(); } catch (e) { result.errors.push(String((e && e.stack) || e)); }
  publish();
  // Once more after uPlot's microtasks have drawn the charts.
  queueMicrotask(function () {
    queueMicrotask(function () {
      if (location.hash === "#selftest") {
        try { selfTest(); } catch (e) { result.errors.push("self-test: " + String((e && e.stack) || e)); }
      }
      publish();
    });
  });
})();
