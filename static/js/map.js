// Image maps: Leaflet with CRS.Simple over the map's picture, one marker per pin. The data
// comes from the page's <script type="application/json"> block named by the map element's
// data-map attribute (JSON blocks are not executed, so the CSP allows them). The server also
// lists the pins as links, so the page works without this script.
(function () {
  "use strict";
  if (!window.L) return;

  // Only http(s) URLs and paths on this site are used (the server checks them too).
  function safeURL(u) {
    return typeof u === "string" && (/^https?:\/\//i.test(u) || /^\/(?![\/\\])/.test(u)) ? u : "";
  }

  function popup(pin) {
    var div = document.createElement("div");
    var href = safeURL(pin.href);
    var el = document.createElement(href ? "a" : "strong");
    if (href) el.href = href;
    el.textContent = pin.label || "";
    div.appendChild(el);
    return div;
  }

  function setup(el) {
    var block = document.getElementById(el.getAttribute("data-map"));
    if (!block) return;
    var data;
    try { data = JSON.parse(block.textContent); } catch (e) { return; }
    var img = data.image || {};
    var w = Number(img.width), h = Number(img.height), url = safeURL(img.url);
    if (!url || !(w > 0) || !(h > 0)) return;
    // CRS.Simple puts y up; pins count pixels down from the top left corner.
    var bounds = [[0, 0], [h, w]];
    var st = el._loreweaveMap;
    if (!st) {
      el.hidden = false;
      var map = L.map(el, { crs: L.CRS.Simple, minZoom: -10, maxZoom: 4, zoomSnap: 0.25, attributionControl: false });
      st = el._loreweaveMap = { map: map, overlay: null, key: "", pins: L.layerGroup().addTo(map) };
    } else {
      st.map.invalidateSize();
    }
    var key = url + " " + w + "x" + h;
    if (st.key !== key) {
      if (st.overlay) st.overlay.remove();
      st.overlay = L.imageOverlay(url, bounds, { alt: el.getAttribute("aria-label") || "Map" }).addTo(st.map);
      st.map.fitBounds(bounds);
      st.key = key;
    }
    st.pins.clearLayers();
    (data.pins || []).forEach(function (pin) {
      var label = pin.label || "";
      var m = L.marker([h - Number(pin.y), Number(pin.x)], { title: label, alt: label, keyboard: true });
      m.bindPopup(popup(pin));
      st.pins.addLayer(m);
    });
  }

  function init(root) {
    root.querySelectorAll("[data-map]").forEach(setup);
  }

  init(document);
  // live.js swaps in a fresh document body after every change; the kept map element updates.
  document.addEventListener("loreweave:swap", function (ev) {
    init((ev.detail && ev.detail.root) || document);
  });
})();
