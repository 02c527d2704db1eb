// The timeline axis: a timeline's events drawn on an axis scaled to time, with zoom and pan
// from millennia down to days. Dates are integer milliseconds from 1970 across the API's whole
// range (about ±285,000 years); calendar dates come from day counts (proleptic Gregorian, no
// year zero), never from JavaScript's Date, which ends near ±271,000 years. Events of coarse
// precision (a year, a century, ...) are drawn as spans. The list below stays the accessible
// view; the axis follows it as live.js refreshes it ("loreweave:swap").
(function () {
  "use strict";
  var box = document.querySelector("[data-timeline-axis]");
  if (!box) return;
  var SVG = "http://www.w3.org/2000/svg", DAY = 86400000, YEAR = 365.2425 * DAY;
  var MAX_MS = 1e11 * DAY; // the furthest a date may lie from 1970 (ops.MaxDateMs)
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  // daysFromCivil and civilFromDays convert between (year, month, day) and days since
  // 1970-01-01, for any year (H. Hinnant's algorithms; astronomical years: 0 is 1 BCE).
  function daysFromCivil(y, m, d) {
    y -= m <= 2 ? 1 : 0;
    var era = Math.floor(y / 400), yoe = y - era * 400;
    var doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
    var doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
    return era * 146097 + doe - 719468;
  }
  function civilFromDays(z) {
    z += 719468;
    var era = Math.floor(z / 146097), doe = z - era * 146097;
    var yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    var doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)), mp = Math.floor((5 * doy + 2) / 153);
    var m = mp + (mp < 10 ? 3 : -9);
    return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m: m, d: doy - Math.floor((153 * mp + 2) / 5) + 1 };
  }
  function yearLabel(y) {
    var n = y <= 0 ? 1 - y : y;
    // Thousands separators from five digits on, as the pages print years.
    return (n >= 10000 ? n.toLocaleString("en") : String(n)) + (y <= 0 ? " BCE" : "");
  }
  var spanYears = { millennium: 1000, century: 100, decade: 10, year: 1 };

  function events() {
    return Array.from(document.querySelectorAll('#doc-body li[data-testid="event"]')).map(function (li) {
      var start = Number(li.dataset.dateMs), p = li.dataset.precision, end = start;
      if (spanYears[p]) end = start + spanYears[p] * YEAR;
      else if (p === "month") end = start + 30 * DAY;
      return { id: li.dataset.id, label: li.dataset.label, start: start, end: end, li: li };
    }).filter(function (e) { return isFinite(e.start); });
  }

  var from = 0, to = 0, moved = false; // moved: the reader zoomed or panned; else it fits all
  function fit(evs) {
    if (!evs.length) { from = -YEAR; to = YEAR; return; }
    var lo = Math.min.apply(null, evs.map(function (e) { return e.start; }));
    var hi = Math.max.apply(null, evs.map(function (e) { return e.end; }));
    var pad = Math.max((hi - lo) * 0.08, 30 * DAY);
    from = lo - pad; to = hi + pad;
  }

  // ticks returns tick positions (ms) and labels for the range shown.
  function ticks(width) {
    var span = to - from, want = Math.max(2, Math.floor(width / 110)), out = [];
    var years = span / YEAR / want;
    if (years >= 1) {
      var step = 1;
      for (var k = 1; step < years; k++) step = [1, 2, 5][k % 3] * Math.pow(10, Math.floor(k / 3));
      // Ticks fall on round years as written: 50,000 BCE, 1, 50,000 (no year zero).
      var y0 = civilFromDays(Math.floor(from / DAY)).y, h0 = y0 <= 0 ? y0 - 1 : y0;
      for (var h = Math.ceil(h0 / step) * step; ; h += step) {
        if (h === 0) continue;
        var y = h < 0 ? h + 1 : h, ms = daysFromCivil(y, 1, 1) * DAY;
        if (ms > to) break;
        if (ms >= from) out.push({ ms: ms, label: yearLabel(y) });
        if (out.length > 200) break;
      }
    } else if (years * 12 >= 1) {
      var mstep = years * 12 > 3 ? 6 : years * 12 > 1 ? 3 : 1;
      var c = civilFromDays(Math.floor(from / DAY));
      for (var i = 0, yy = c.y, mm = c.m; i < 200; i++) {
        var t = daysFromCivil(yy, mm, 1) * DAY;
        if (t > to) break;
        if (t >= from && (mm - 1) % mstep === 0) out.push({ ms: t, label: MONTHS[mm - 1] + " " + yearLabel(yy) });
        if (++mm > 12) { mm = 1; yy++; }
      }
    } else {
      var dstep = Math.max(1, Math.ceil(span / DAY / want));
      for (var dd = Math.ceil(from / DAY / dstep) * dstep; dd * DAY <= to && out.length < 200; dd += dstep) {
        var cd = civilFromDays(dd);
        out.push({ ms: dd * DAY, label: cd.d + " " + MONTHS[cd.m - 1] + " " + yearLabel(cd.y) });
      }
    }
    return out;
  }

  function el(name, attrs, text) {
    var n = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text) n.textContent = text;
    return n;
  }

  var svg = box.querySelector("svg");
  function draw() {
    var evs = events();
    if (!moved) fit(evs);
    var width = Math.max(280, box.clientWidth), x = function (ms) { return (ms - from) / (to - from) * width; };
    // Lanes: each event goes in the first lane where it does not overlap the one before. A
    // label that would run off the right edge is written to the left of its dot.
    var lanes = [];
    evs.sort(function (a, b) { return a.start - b.start; }).forEach(function (e) {
      var left = x(e.start), end = Math.max(x(e.end), left + 8), text = e.label.length * 7 + 12;
      e.flip = end + text > width && left - text >= 0;
      var lo = e.flip ? left - text : left, hi = e.flip ? end : end + text;
      for (var l = 0; ; l++) if (!(l in lanes) || lanes[l] < lo) { lanes[l] = hi; e.lane = l; break; }
    });
    var height = 40 + Math.max(1, lanes.length) * 26;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("height", height);
    svg.replaceChildren();
    svg.append(el("line", { x1: 0, x2: width, y1: 22, y2: 22, class: "axis-line" }));
    ticks(width).forEach(function (t) {
      var tx = x(t.ms);
      svg.append(el("line", { x1: tx, x2: tx, y1: 16, y2: height, class: "axis-tick" }));
      if (tx + 3 + t.label.length * 6.5 <= width) svg.append(el("text", { x: tx + 3, y: 13, class: "axis-label" }, t.label));
    });
    evs.forEach(function (e) {
      var y = 38 + e.lane * 26, left = x(e.start), right = x(e.end);
      var g = el("g", { class: "axis-event", "data-id": e.id });
      // A period (a century, a year) is a span, however narrow at this zoom.
      if (e.end > e.start) g.append(el("rect", { x: left, y: y - 5, width: Math.max(right - left, 6), height: 10, rx: 3, class: "axis-span" }));
      g.append(el("circle", { cx: left, cy: y, r: 5, class: "axis-dot" }));
      g.append(e.flip
        ? el("text", { x: left - 9, y: y + 4, "text-anchor": "end", class: "axis-event-label" }, e.label)
        : el("text", { x: Math.max(left + 6, right) + 8, y: y + 4, class: "axis-event-label" }, e.label));
      g.addEventListener("click", function () { e.li.scrollIntoView({ block: "center" }); e.li.classList.add("flash"); setTimeout(function () { e.li.classList.remove("flash"); }, 1200); });
      svg.append(g);
    });
    var a = civilFromDays(Math.floor(from / DAY)), b = civilFromDays(Math.floor(to / DAY));
    svg.setAttribute("aria-label", "Timeline from " + yearLabel(a.y) + " to " + yearLabel(b.y) + ", " + evs.length + " events");
  }

  function zoom(factor, at) {
    moved = true;
    var mid = at === undefined ? (from + to) / 2 : at;
    var span = Math.min(Math.max((to - from) * factor, 2 * DAY), 2 * MAX_MS);
    from = mid - (mid - from) / (to - from) * span;
    to = from + span;
    draw();
  }
  function pan(fraction) { moved = true; var d = (to - from) * fraction; from += d; to += d; draw(); }

  box.querySelector("[data-axis=in]").addEventListener("click", function () { zoom(0.5); });
  box.querySelector("[data-axis=out]").addEventListener("click", function () { zoom(2); });
  box.querySelector("[data-axis=fit]").addEventListener("click", function () { moved = false; draw(); });
  svg.addEventListener("keydown", function (ev) {
    var keys = { ArrowLeft: function () { pan(-0.1); }, ArrowRight: function () { pan(0.1); }, "+": function () { zoom(0.5); }, "=": function () { zoom(0.5); }, "-": function () { zoom(2); } };
    if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
  });
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, from + (ev.clientX - r.left) / r.width * (to - from));
  }, { passive: false });
  var drag = null;
  svg.addEventListener("pointerdown", function (ev) {
    if (ev.target.closest(".axis-event")) return;
    moved = true;
    drag = { x: ev.clientX, from: from, to: to };
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var d = (ev.clientX - drag.x) / svg.getBoundingClientRect().width * (drag.to - drag.from);
    from = drag.from - d; to = drag.to - d;
    draw();
  });
  svg.addEventListener("pointerup", function () { drag = null; });
  document.addEventListener("loreweave:swap", draw);
  window.addEventListener("resize", draw);
  box.hidden = false;
  draw();
})();
