// The editors' writes to the server, shared by the timeline, map and animator editors:
// content ops (one client id per page and a sequence number per request, so the server can
// tell a retry from a new write) and file uploads, both on the session with the page's CSRF
// token. Each resolves to the server's JSON answer or rejects with an Error whose message
// says in words what went wrong, for the editor to show next to the control.
(function () {
  "use strict";

  function send(url, csrf, init) {
    init.method = "POST";
    init.credentials = "same-origin";
    init.headers = init.headers || {};
    init.headers["X-CSRF-Token"] = csrf;
    return fetch(url, init).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (body) {
        if (!res.ok) {
          var msg = body && body.error ? body.error.message : "the server answered " + res.status;
          var err = new Error(msg.charAt(0).toUpperCase() + msg.slice(1));
          err.code = body && body.error ? body.error.code : ""; // the API's error code, for the editor to act on
          throw err;
        }
        return body;
      });
    }, function () { throw new Error("The server could not be reached; check the connection and try again."); });
  }

  window.LoreWrite = {
    // poster returns post(ops), which applies content ops to the document of contentUrl.
    poster: function (contentUrl, csrf) {
      var clientId = "w" + Math.random().toString(36).slice(2, 12);
      var seq = 0;
      return function post(ops) {
        return send(contentUrl, csrf, {
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ ops: ops, clientId: clientId, clientSeq: ++seq }),
        });
      };
    },
    // upload sends one file to uploadUrl and resolves to the stored asset ({id, url, ...}).
    upload: function (uploadUrl, csrf, file) {
      var form = new FormData();
      form.append("file", file);
      return send(uploadUrl, csrf, { body: form });
    },
    // chooser wires an asset chooser (views' assetChooser): a file picked is uploaded, a file
    // of the world chosen is taken as it is; use(asset) then gets {url, width, height, name}
    // and returns a promise (the write that puts it in place). Progress and errors show in
    // words next to the control.
    chooser: function (box, use) {
      var status = box.querySelector("[data-chooser-status]"), error = box.querySelector(".field-error");
      var file = box.querySelector("input[type=file]"), select = box.querySelector("select");
      var useButton = box.querySelector("button");
      function show(msg, failed) {
        status.textContent = failed ? "" : msg;
        error.textContent = failed ? msg : "";
        error.hidden = !failed;
      }
      function run(asset, doing) {
        show(doing);
        return asset.then(use).then(function () { show("Saved."); }, function (err) { show(err.message, true); });
      }
      file.addEventListener("change", function () {
        var f = file.files[0];
        if (!f) return;
        file.disabled = true;
        var uploaded = window.LoreWrite.upload(box.dataset.uploadUrl, box.dataset.csrf, f).then(function (a) {
          // The new file joins the world's files to choose from.
          var o = document.createElement("option");
          o.value = a.url; o.textContent = a.name || f.name;
          o.dataset.width = a.width || 0; o.dataset.height = a.height || 0; o.dataset.name = a.name || "";
          select.insertBefore(o, select.options[1] || null);
          select.closest(".chooser-existing").hidden = false;
          return a;
        });
        run(uploaded, "Uploading " + f.name + "…").then(function () { file.disabled = false; file.value = ""; });
      });
      useButton.addEventListener("click", function () {
        var o = select.selectedOptions[0];
        if (!o || !o.value) { show("Choose a file first.", true); select.focus(); return; }
        run(Promise.resolve({ url: o.value, width: Number(o.dataset.width), height: Number(o.dataset.height), name: o.dataset.name }), "Saving…");
      });
    },
  };
})();
