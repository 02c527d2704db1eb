// The animator editor: choose the model (upload one or use one of the world's), and the clip
// list follows the model's own animations; the clip buttons of the page make a clip the one
// that plays, live for everyone watching (live.js swaps the page's body and updates the kept
// <model-viewer>'s src and animation-name, which model-viewer follows).
//
// The model is the truth about its clips: whenever a model finishes loading on an editor's
// page, whether just chosen here or already set when the page opened (say through the API),
// and its animations differ from the stored list, the editor saves the model's list. Nothing
// is asked: a list that disagrees with the model only names clips that cannot play. Two
// editors watching may both save the same list; the second write changes nothing that shows.
(function () {
  "use strict";
  var root = document.querySelector("[data-animator-editor]");
  if (!root) return;
  var post = window.LoreWrite.poster(root.dataset.contentUrl, root.dataset.csrf);
  var chooser = root.querySelector("[data-asset-chooser]");
  var clipError = root.querySelector("[data-testid=animator-clip-error]");
  var waiting = null; // the model just chosen: {url, resolve, reject}, settled once it is read

  function showClipError(msg) { clipError.textContent = msg || ""; clipError.hidden = !msg; }

  function storedClips() {
    return Array.from(document.querySelectorAll("#doc-body [data-clip]")).map(function (li) { return li.dataset.clip; });
  }

  // syncClips saves the loaded model's animations as the clip list when they differ.
  function syncClips(viewer) {
    var clips = Array.from(viewer.availableAnimations || []);
    if (clips.join("\n") === storedClips().join("\n")) return Promise.resolve();
    return post([{ op: "animator.setClips", clips: clips.map(function (id) { return { id: id }; }) }]);
  }

  // A model-viewer's load and error events do not bubble: listen while they go down.
  function settle(ev) {
    var viewer = ev.target;
    if (viewer.tagName !== "MODEL-VIEWER") return;
    var w = waiting && viewer.getAttribute("src") === waiting.url ? waiting : null;
    if (w) waiting = null;
    if (ev.type === "error") {
      if (w) w.reject(new Error("The model was saved but could not be read, so its clips are unknown: is it a valid glTF 2.0 file?"));
      return;
    }
    syncClips(viewer).then(function () { if (w) w.resolve(); }, function (err) {
      if (w) w.reject(err); else showClipError("The model’s clips could not be saved: " + err.message);
    });
  }
  document.addEventListener("load", settle, true);
  document.addEventListener("error", settle, true);

  window.LoreWrite.chooser(chooser, function (asset) {
    var viewer = document.querySelector("#doc-body model-viewer");
    var same = viewer && viewer.getAttribute("src") === asset.url && viewer.loaded;
    var read = new Promise(function (resolve, reject) {
      var w = waiting = { url: asset.url, resolve: resolve, reject: reject };
      // The page shows the model once the change comes back over the event stream; if it
      // does not (the connection is down), say so rather than wait for ever.
      setTimeout(function () {
        if (waiting !== w) return;
        waiting = null;
        reject(new Error("The model is saved, but it has not loaded here to read its clips: reload the page to read them."));
      }, 60000);
    });
    return post([{ op: "animator.setModel", url: asset.url, name: asset.name || "" }]).then(function () {
      if (same) { waiting = null; return syncClips(viewer); }
      chooser.querySelector("[data-chooser-status]").textContent = "Reading the model’s clips…";
      return read;
    }, function (err) { waiting = null; throw err; });
  });

  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-play-clip]");
    if (!btn || btn.getAttribute("aria-pressed") === "true") return;
    showClipError("");
    post([{ op: "animator.setActiveClip", clipId: btn.dataset.playClip }]).catch(function (err) {
      showClipError("The clip could not be chosen: " + err.message);
    });
  });

  var loaded = document.querySelector("#doc-body model-viewer");
  if (loaded && loaded.loaded) settle({ type: "load", target: loaded });
  root.hidden = false;
})();
