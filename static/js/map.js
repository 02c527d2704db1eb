// Image maps: Leaflet with CRS.Simple over the map's picture, one marker per pin. The data
// comes from the page's <script type="application/json"> block named by the map element's
// data-map attribute (JSON blocks are not executed, so the CSP allows them). The server also
// lists the pins as links, so the page works without this script.
//
// For an editor (the page has [data-map-editor]) the map edits itself: a click on the image
// adds a pin, a pin drags to move (or, focused, moves with the arrow keys), and a pin's popup
// is the pin panel (label, the document it opens, remove). Every change goes through the
// write path (LoreWrite); the map then follows the document like everyone else's, through
// live.js's swaps, updating its markers in place so a pin being moved or a focused pin is
// never pulled from under the hand.
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

  var box = document.querySelector("[data-map-editor]");
  var editor = box && window.LoreWrite ? makeEditor(box) : null;

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
      st = el._loreweaveMap = { map: map, overlay: null, key: "", markers: {} };
      if (editor) editor.attach(st, el);
      // A map whose box changes width (a phone turned, a window resized) shows the whole image again.
      var width = el.clientWidth;
      if (window.ResizeObserver) new ResizeObserver(function () {
        if (el.clientWidth === width || !el.clientWidth) return;
        width = el.clientWidth;
        map.invalidateSize();
        map.fitBounds([[0, 0], [st.h, st.w]]);
      }).observe(el);
    } else {
      st.map.invalidateSize();
    }
    st.w = w; st.h = h;
    var key = url + " " + w + "x" + h;
    if (st.key !== key) {
      if (st.overlay) st.overlay.remove();
      st.overlay = L.imageOverlay(url, bounds, { alt: el.getAttribute("aria-label") || "Map" }).addTo(st.map);
      st.map.fitBounds(bounds);
      st.key = key;
    }
    syncMarkers(st, data.pins || []);
    if (editor) editor.refresh(st);
  }

  // syncMarkers brings the markers in line with the pins: new ones added, gone ones removed,
  // the others moved and relabelled in place, except one the editor is moving right now.
  function syncMarkers(st, pins) {
    var seen = {};
    st.pins = {};
    pins.forEach(function (pin) {
      seen[pin.id] = true;
      st.pins[pin.id] = pin;
      var at = [st.h - Number(pin.y), Number(pin.x)];
      var m = st.markers[pin.id];
      if (!m) {
        m = L.marker(at, { title: pin.label, alt: pin.label, keyboard: true, draggable: !!editor, autoPan: true });
        m.pinId = pin.id;
        if (editor) editor.wire(st, m);
        else m.bindPopup(popup(pin));
        m.addTo(st.map);
        st.markers[pin.id] = m;
      } else {
        if (!m.moving && !m.getLatLng().equals(at)) m.setLatLng(at);
        if (!editor) m.setPopupContent(popup(pin));
        m.options.title = m.options.alt = pin.label;
        var icon = m.getElement();
        if (icon) { icon.title = pin.label; icon.alt = pin.label; }
      }
    });
    Object.keys(st.markers).forEach(function (id) {
      if (!seen[id]) { st.markers[id].remove(); delete st.markers[id]; }
    });
  }

  // makeEditor returns the map editor over its section of the page.
  function makeEditor(box) {
    var cfg = box.dataset;
    var post = window.LoreWrite.poster(cfg.contentUrl, cfg.csrf);
    var q = function (id) { return box.querySelector('[data-testid="' + id + '"]'); };
    var mapError = q("map-error"), panel = q("pin-editor"), labelInput = q("pin-label");
    var linkInput = q("pin-link"), results = q("pin-link-results"), linkNow = q("pin-link-current");
    var where = q("pin-where"), pinError = q("pin-error"), unlink = q("pin-unlink");
    var removeDialog = box.querySelector("#pin-remove-dialog");
    var cur = null; // the map's state (setup's st) once there is an image
    var selected = ""; // the pin the panel shows
    var wanted = ""; // a pin just added, to open once the map shows it
    var names = {}; // document id → name, for the panel's link line
    var removing = ""; // a pin this editor is removing

    function say(el, msg) { el.textContent = msg || ""; el.hidden = !msg; }
    function write(ops, errorEl) {
      say(errorEl, "");
      return post(ops).catch(function (err) {
        // A pin someone else removed while it was open here (its removal reaches the map on
        // the stream) is named in words, not by the server's id.
        say(errorEl, err.code === "not_found_in_document" ? "Someone else removed this pin meanwhile: the change was not saved." : err.message);
        throw err;
      });
    }
    function clamp(v, hi) { return Math.round(Math.min(Math.max(v, 0), hi)); }
    function pixel(st, ll) { return { x: clamp(ll.lng, st.w), y: clamp(st.h - ll.lat, st.h) }; }

    function add(st, p) {
      write([{ op: "map.addPin", x: p.x, y: p.y, label: "New pin" }], mapError).then(function (res) {
        wanted = res.created && res.created[0] ? res.created[0].id : "";
        openWanted();
      }, function () {});
    }
    function openWanted() {
      if (wanted && cur && cur.markers[wanted]) {
        select(wanted);
        wanted = "";
        labelInput.focus();
        labelInput.select();
      }
    }

    function move(st, m) {
      var p = pixel(st, m.getLatLng());
      m.setLatLng([st.h - p.y, p.x]);
      write([{ op: "map.movePin", id: m.pinId, x: p.x, y: p.y }], mapError).then(function () { m.moving = false; }, function () {
        m.moving = false;
        var pin = st.pins[m.pinId];
        if (pin) m.setLatLng([st.h - pin.y, pin.x]);
      });
      if (m.pinId === selected) showWhere(p);
    }

    function showWhere(p) { where.textContent = "At " + p.x + ", " + p.y + " px on the image."; }

    // select opens the panel in the pin's popup (id "" closes it).
    function select(id) {
      var m = cur && cur.markers[id];
      if (!m) {
        var open = cur && cur.markers[selected];
        selected = "";
        if (open) open.closePopup();
        return;
      }
      fill(m);
      m.openPopup();
    }
    // fill readies the panel for m's popup before it opens, so that the popup is laid out
    // (and the map panned to show it) with the panel as it will be.
    function fill(m) {
      selected = m.pinId;
      panel.hidden = false;
      show(true);
    }
    function opened(m) {
      if (selected !== m.pinId) fill(m);
    }
    function closed(m) {
      if (selected !== m.pinId) return;
      selected = "";
      // A pin removed under the open panel (by someone else: our own removal clears removing).
      if (cur && !cur.pins[m.pinId] && removing !== m.pinId) say(mapError, "The pin you had open was removed by someone else.");
    }

    // show fills the panel from the selected pin; fields being typed in keep their text.
    function show(fresh) {
      var pin = cur && cur.pins[selected];
      if (!pin) return;
      panel.querySelector("h3").textContent = "Pin: " + pin.label;
      if (fresh || document.activeElement !== labelInput) labelInput.value = pin.label;
      if (fresh) { say(pinError, ""); linkInput.value = ""; closeResults(); }
      showWhere(pin);
      unlink.disabled = !pin.documentId;
      linkNow.textContent = "";
      if (!pin.documentId) { linkNow.textContent = "Not linked to a document yet."; return; }
      var a = document.createElement("a");
      a.href = cfg.documentPage.replace("{id}", encodeURIComponent(pin.documentId));
      a.textContent = names[pin.documentId] || "the linked document";
      linkNow.append("Opens ", a, ".");
      if (!names[pin.documentId]) {
        var docId = pin.documentId;
        fetch(cfg.documentApi.replace("{id}", encodeURIComponent(docId)), { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : null; })
          .then(function (d) { if (d && d.name) { names[docId] = d.name; if (cur && cur.pins[selected] && cur.pins[selected].documentId === docId) a.textContent = d.name; } })
          .catch(function () {});
      }
    }

    labelInput.addEventListener("change", function () {
      var pin = cur && cur.pins[selected], label = labelInput.value.trim();
      if (!pin || label === pin.label) return;
      if (!label) { say(pinError, "A pin needs a label."); return; }
      write([{ op: "map.updatePin", id: pin.id, label: label }], pinError).catch(function () {});
    });
    labelInput.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); labelInput.dispatchEvent(new Event("change")); }
    });

    // The link picker: a combobox over the world's search, as the name is typed.
    var found = [], active = -1, asked = 0, timer = 0;
    function closeResults() {
      results.hidden = true; results.textContent = ""; found = []; active = -1;
      linkInput.setAttribute("aria-expanded", "false");
      linkInput.removeAttribute("aria-activedescendant");
    }
    function mark(i) {
      active = i;
      Array.from(results.children).forEach(function (li, j) { li.setAttribute("aria-selected", j === i ? "true" : "false"); });
      if (i >= 0) linkInput.setAttribute("aria-activedescendant", results.children[i].id);
      else linkInput.removeAttribute("aria-activedescendant");
    }
    function searchNow() {
      var text = linkInput.value;
      if (!text.trim()) { closeResults(); return; }
      var n = ++asked;
      var url = cfg.searchUrl + (cfg.searchUrl.indexOf("?") < 0 ? "?" : "&") + "perPage=8&q=" + encodeURIComponent(text);
      fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
        .then(function (r) {
          if (n !== asked) return;
          results.textContent = "";
          found = r.ok && r.body.items ? r.body.items : [];
          if (!r.ok) { say(pinError, r.body && r.body.error ? r.body.error.message : "The search did not answer."); closeResults(); return; }
          found.forEach(function (hit, i) {
            var li = document.createElement("li");
            li.id = "pin-link-option-" + i;
            li.setAttribute("role", "option");
            li.dataset.testid = "pin-link-option";
            var name = document.createElement("span");
            name.textContent = hit.name;
            var type = document.createElement("span");
            type.className = "muted";
            type.textContent = " " + hit.documentType;
            li.append(name, type);
            li.addEventListener("mousedown", function (ev) { ev.preventDefault(); choose(i); });
            results.appendChild(li);
          });
          if (!found.length) {
            var none = document.createElement("li");
            none.className = "muted";
            none.textContent = "No document of this world matches.";
            results.appendChild(none);
          }
          results.hidden = false;
          linkInput.setAttribute("aria-expanded", "true");
          mark(found.length ? 0 : -1);
        })
        .catch(function () { say(pinError, "The search could not be reached; check the connection."); });
    }
    function choose(i) {
      var hit = found[i], pin = cur && cur.pins[selected];
      if (!hit || !pin) return;
      names[hit.id] = hit.name;
      closeResults();
      linkInput.value = "";
      write([{ op: "map.updatePin", id: pin.id, documentId: hit.id }], pinError).catch(function () {});
    }
    linkInput.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(searchNow, 150); });
    linkInput.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown" && found.length) { ev.preventDefault(); mark((active + 1) % found.length); }
      else if (ev.key === "ArrowUp" && found.length) { ev.preventDefault(); mark((active - 1 + found.length) % found.length); }
      else if (ev.key === "Enter") { ev.preventDefault(); if (active >= 0) choose(active); }
      else if (ev.key === "Escape" && !results.hidden) { ev.preventDefault(); closeResults(); }
    });
    linkInput.addEventListener("blur", function () { setTimeout(closeResults, 100); });

    unlink.addEventListener("click", function () {
      write([{ op: "map.updatePin", id: selected, documentId: "" }], pinError).catch(function () {});
    });
    // Done, or Escape in the panel, closes it and puts the focus back on the pin.
    function done() {
      var m = cur && cur.markers[selected];
      if (!m) return;
      m.closePopup();
      if (m.getElement()) m.getElement().focus();
    }
    q("pin-done").addEventListener("click", done);
    panel.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && results.hidden) { ev.preventDefault(); done(); }
    });
    q("pin-remove").addEventListener("click", function () {
      var pin = cur && cur.pins[selected];
      if (!pin) return;
      removeDialog.querySelector("[data-pin-name]").textContent = pin.label;
      removeDialog.returnValue = "";
      removeDialog.onclose = function () {
        if (removeDialog.returnValue !== "remove") return;
        removing = pin.id;
        write([{ op: "map.removePin", id: pin.id }], pinError).then(function () { select(""); }, function () {});
      };
      removeDialog.showModal();
    });
    q("pin-add-middle").addEventListener("click", function () {
      if (!cur) { say(mapError, "Set an image first: pins are placed on it."); return; }
      add(cur, pixel(cur, cur.map.getCenter()));
    });

    window.LoreWrite.chooser(box.querySelector("[data-asset-chooser]"), function (asset) {
      if (!(asset.width > 0 && asset.height > 0)) return Promise.reject(new Error("That file is not an image this map can use."));
      return post([{ op: "map.setImage", url: asset.url, width: asset.width, height: asset.height }]);
    });

    box.hidden = false;
    return {
      // attach makes a new map editable: a click on the image adds a pin there.
      attach: function (st, el) {
        cur = st;
        el.setAttribute("aria-describedby", "map-help");
        st.map.on("click", function (ev) {
          // The click that ends a pin's drag is not a click on the map.
          if (Date.now() - (st.dropped || 0) < 400) return;
          var ll = ev.latlng;
          if (ll.lat < 0 || ll.lat > st.h || ll.lng < 0 || ll.lng > st.w) {
            say(mapError, "Click on the image to place a pin there.");
            return;
          }
          add(st, pixel(st, ll));
        });
      },
      // wire makes a marker movable by drag and by arrow keys, and opens the panel on it.
      wire: function (st, m) {
        m.on("click", function () { fill(m); }); // before the popup's own click handler
        m.bindPopup(function () { return panel; }, { minWidth: 240, maxWidth: 320, autoPanPadding: [20, 20] });
        m.on("popupopen", function () { opened(m); });
        m.on("popupclose", function () { closed(m); });
        m.on("dragstart", function () { m.moving = true; });
        m.on("dragend", function () { st.dropped = Date.now(); move(st, m); });
        m.on("add", function () {
          var icon = m.getElement();
          var timer = 0;
          icon.addEventListener("keydown", function (ev) {
            if (ev.key === "Enter") { setTimeout(function () { if (selected === m.pinId) labelInput.focus(); }); return; }
            var d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
            if (!d) return;
            ev.preventDefault();
            ev.stopPropagation();
            var step = Math.max(1, Math.round(Math.min(st.w, st.h) / 100)) * (ev.shiftKey ? 10 : 1);
            var p = pixel(st, m.getLatLng());
            p = { x: clamp(p.x + d[0] * step, st.w), y: clamp(p.y + d[1] * step, st.h) };
            m.moving = true;
            m.setLatLng([st.h - p.y, p.x]);
            if (m.pinId === selected) showWhere(p);
            clearTimeout(timer);
            timer = setTimeout(function () { move(st, m); }, 350);
          });
        });
      },
      // refresh follows a change of the document: the panel shows the pin as it is now.
      refresh: function (st) {
        cur = st;
        openWanted();
        if (selected) show(false);
      },
    };
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
