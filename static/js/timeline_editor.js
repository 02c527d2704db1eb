// The timeline editor: add an event, edit or remove one, live for everyone watching (the
// page's list is kept current by live.js). Dates are typed as people write them and read by
// the server (/dates), which answers how the pages will print the date: that line shows under
// the field before anything is saved. No JavaScript Date is involved: dates are integer
// milliseconds across the whole range the API allows.
(function () {
  "use strict";
  var root = document.querySelector("[data-timeline-editor]");
  if (!root) return;
  var cfg = root.dataset;
  var post = window.LoreWrite.poster(cfg.contentUrl, cfg.csrf);

  // fields wraps one set of event fields (adding, or the edit dialog's).
  function fields(box) {
    var f = {
      label: box.querySelector("[name=label]"),
      date: box.querySelector("[name=date]"),
      precision: box.querySelector("[name=precision]"),
      description: box.querySelector("[name=description]"),
      shown: box.querySelector("[role=status]"),
      error: box.querySelector(".field-error"),
      read: null, // the date as last read: {dateMs, precision, shown}
    };
    var hint = f.shown.textContent, timer = 0, asked = 0;
    // readDate asks the server how it reads the date; resolves to the reading or rejects.
    f.readDate = function () {
      var text = f.date.value.trim();
      if (!text) { f.read = null; f.shown.textContent = hint; return Promise.reject(new Error("Give the event a date.")); }
      var n = ++asked;
      var url = "/dates?text=" + encodeURIComponent(text) + (f.precision.value ? "&precision=" + encodeURIComponent(f.precision.value) : "");
      return fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (res) { return res.json().then(function (b) { return { ok: res.ok, body: b }; }); })
        .then(function (r) {
          if (n !== asked) return f.readDate();
          if (!r.ok) {
            f.read = null;
            f.shown.textContent = r.body && r.body.error ? r.body.error.message : "That date could not be read.";
            throw new Error(f.shown.textContent);
          }
          f.read = r.body;
          f.shown.textContent = "Shown as: " + r.body.shown + " (" + r.body.precision + ")";
          return r.body;
        });
    };
    function later() {
      clearTimeout(timer);
      timer = setTimeout(function () { f.readDate().catch(function () {}); }, 250);
    }
    f.date.addEventListener("input", later);
    f.precision.addEventListener("change", later);
    f.showError = function (msg) { f.error.textContent = msg || ""; f.error.hidden = !msg; };
    f.clear = function () {
      f.label.value = ""; f.date.value = ""; f.precision.value = ""; f.description.value = "";
      f.read = null; f.shown.textContent = hint; f.showError("");
    };
    return f;
  }

  var add = fields(root.querySelector('[data-event-fields="add"]'));
  var addButton = root.querySelector("[data-testid=event-add]");
  addButton.addEventListener("click", function () {
    if (!add.label.value.trim()) { add.showError("Give the event a label."); add.label.focus(); return; }
    addButton.disabled = true;
    add.readDate()
      .then(function (d) {
        return post([{ op: "timeline.addEvent", label: add.label.value.trim(), dateMs: d.dateMs, precision: d.precision, description: add.description.value }]);
      })
      .then(function () { add.clear(); add.label.focus(); })
      .catch(function (err) { add.showError(err.message); })
      .then(function () { addButton.disabled = false; });
  });

  var dialog = root.querySelector("#event-dialog");
  var edit = fields(dialog);
  var editing = null; // {id, before}
  var removeDialog = root.querySelector("#event-remove-dialog");

  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-edit-event], [data-remove-event]");
    if (!btn) return;
    var data = btn.closest(".event-actions").dataset;
    if (btn.hasAttribute("data-edit-event")) {
      editing = { id: btn.getAttribute("data-edit-event"), before: data, button: btn.getAttribute("data-edit-event") };
      edit.label.value = data.label || "";
      edit.date.value = data.when || "";
      edit.precision.value = data.precision || "";
      edit.description.value = data.description || "";
      edit.showError("");
      edit.read = { dateMs: Number(data.dateMs), precision: data.precision, shown: data.when };
      edit.shown.textContent = "Shown as: " + data.when + " (" + data.precision + ")";
      dialog.showModal();
    } else {
      var id = btn.getAttribute("data-remove-event");
      removeDialog.querySelector("[data-event-name]").textContent = data.label || "";
      removeDialog.returnValue = "";
      removeDialog.onclose = function () {
        if (removeDialog.returnValue !== "remove") return;
        post([{ op: "timeline.removeEvent", id: id }]).catch(function (err) { add.showError(err.message); });
      };
      removeDialog.showModal();
    }
  });

  // Save keeps the dialog open until the server accepts the change, and says why it did not.
  // An event someone else removed meanwhile is added back, as written in the dialog, once
  // the writer saves again after being told.
  dialog.querySelector("[data-testid=event-save]").addEventListener("click", function (ev) {
    ev.preventDefault();
    if (!editing) return;
    var b = editing.before, op = { op: "timeline.updateEvent", id: editing.id };
    var label = edit.label.value.trim();
    if (!label) { edit.showError("Give the event a label."); return; }
    if (editing.removed) {
      edit.readDate()
        .then(function (d) {
          return post([{ op: "timeline.addEvent", label: label, dateMs: d.dateMs, precision: d.precision, description: edit.description.value }]);
        })
        .then(function () { editing = null; dialog.close("saved"); })
        .catch(function (err) { edit.showError(err.message); });
      return;
    }
    if (label !== b.label) op.label = label;
    if (edit.description.value !== (b.description || "")) op.description = edit.description.value;
    var dateChanged = edit.date.value.trim() !== b.when || edit.precision.value !== b.precision;
    (dateChanged ? edit.readDate() : Promise.resolve(null))
      .then(function (d) {
        if (d) { op.dateMs = d.dateMs; op.precision = d.precision; }
        if (Object.keys(op).length === 2) return null;
        return post([op]);
      })
      .then(function () { editing = null; dialog.close("saved"); })
      .catch(function (err) {
        if (err.code === "not_found_in_document") {
          editing.removed = true;
          edit.showError("Someone else removed this event while you were editing it. Save again to add it back as written here, or Cancel.");
          return;
        }
        edit.showError(err.message);
      });
  });

  root.hidden = false;
})();
