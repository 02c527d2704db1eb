// Organising a world from its page, for editors (only their pages load this file). It
// enhances plain forms and links the server renders (views/world_edit.templ and
// views/document_actions.templ), which work without it:
//   - a document's Rename button turns its name into a field in the tree; Move and Delete open
//     their form in a <dialog>. The forms come from the actions' own pages, so the server
//     renders them (with the folders the document may move into) and there is one copy of each;
//   - a form is posted with fetch and the server answers as it answers a browser: a redirect
//     to the world page on success (whose fresh tree replaces the one shown), or the form
//     again with the refusal next to the control;
//   - a document can be dragged onto a folder, or onto the top-level zone, to move it;
//   - documents that arrive live (live.js) get their buttons from a <template>, and the new
//     document form's folder list follows the tree.
// Nothing here builds HTML from strings.
(function () {
  "use strict";

  var tree = document.getElementById("documents");
  var template = document.getElementById("doc-actions-template");
  var dialog = document.getElementById("organise-dialog");
  if (!tree || !template || !dialog || typeof dialog.showModal !== "function") return;
  var dialogBody = dialog.querySelector("[data-organise-dialog-body]");
  var status = document.querySelector("[data-organise-status]");
  var problem = document.querySelector("[data-organise-error]");
  var dropTop = document.querySelector("[data-drop-top]");
  var parentSelect = document.getElementById("new-doc-parent");
  var heading = document.getElementById("docs-title");
  var csrfInput = document.querySelector('input[name="csrf"]');

  // A refused create form is answered on the address it posted to: show the world page's
  // own, so that reloading the page neither posts again nor lands on an address with no page.
  var live = document.querySelector("[data-world-live]");
  if (live && /\/(documents|eras|projects)$/.test(window.location.pathname)) {
    var era = live.dataset.era || "";
    history.replaceState(null, "", "/w/" + encodeURIComponent(live.dataset.slug || "") + (era ? "?era=" + encodeURIComponent(era) : ""));
  }

  // ---- messages --------------------------------------------------------------------------

  function say(text) {
    if (problem) problem.hidden = true;
    if (status) status.textContent = text;
  }

  function complain(text, code) {
    if (status) status.textContent = "";
    if (!problem) return;
    problem.textContent = text;
    if (code) problem.dataset.code = code; else delete problem.dataset.code;
    problem.hidden = false;
  }

  // refusalOf reads what a page the server answered with says went wrong: a form's refusal,
  // or an error page's message.
  function refusalOf(doc, fallback) {
    var err = doc.querySelector('[data-testid="form-error"]');
    if (err) return { text: err.textContent.trim(), code: err.dataset.code || "" };
    var page = doc.querySelector('[data-testid="error-page"] p');
    return { text: page ? page.textContent.trim() : fallback, code: "" };
  }

  // ---- the tree --------------------------------------------------------------------------

  function item(id) {
    return tree.querySelector('li[data-id="' + CSS.escape(id) + '"]');
  }

  function nameOf(li) {
    return li ? li.dataset.name || "" : "";
  }

  function parentOf(li) {
    var p = li.parentElement && li.parentElement.closest('li[data-testid="document"]');
    return p ? p.dataset.id : "";
  }

  // equip gives a document that arrived live the buttons the server gives the others.
  function equip(li) {
    var id = li.dataset.id;
    if (!id || li.querySelector(":scope > .doc-actions")) return;
    var actions = template.content.firstElementChild.cloneNode(true);
    [actions].concat(Array.from(actions.querySelectorAll("*"))).forEach(function (el) {
      ["id", "href", "aria-labelledby"].forEach(function (name) {
        var v = el.getAttribute(name);
        if (v && v.indexOf("__ID__") >= 0) el.setAttribute(name, v.split("__ID__").join(id));
      });
    });
    if (li.dataset.type !== "folder") {
      var newIn = actions.querySelector('[data-organise="new-in"]');
      if (newIn) newIn.remove();
    }
    var link = li.querySelector(":scope > a");
    if (link && !link.id) link.id = "doc-" + id;
    var after = li.querySelector(":scope > .doc-type") || link;
    if (after) after.after(actions); else li.prepend(actions);
    li.draggable = true;
  }

  // syncFolders keeps the new document form's folder list the tree's folders, in tree order.
  function syncFolders() {
    if (!parentSelect) return;
    var keep = parentSelect.value;
    var options = [parentSelect.options[0]];
    tree.querySelectorAll('li[data-type="folder"]').forEach(function (li) {
      var path = [];
      for (var p = li; p && p !== tree; p = p.parentElement) {
        if (p.matches('li[data-type="folder"]')) path.unshift(nameOf(p));
      }
      var o = document.createElement("option");
      o.value = li.dataset.id;
      o.textContent = path.join(" › ");
      options.push(o);
    });
    parentSelect.replaceChildren.apply(parentSelect, options);
    parentSelect.value = keep;
    if (parentSelect.value !== keep) parentSelect.value = "";
  }

  new MutationObserver(function () {
    tree.querySelectorAll('li[data-testid="document"]').forEach(equip);
    syncFolders();
  }).observe(tree, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-name"] });

  // showTree puts the tree of a world page the server answered with in place of the page's.
  function showTree(doc) {
    var fresh = doc.getElementById("documents");
    if (!fresh) return;
    tree.replaceChildren.apply(tree, Array.from(fresh.childNodes).map(function (n) { return document.importNode(n, true); }));
    var empty = tree.children.length === 0;
    tree.hidden = empty;
    var msg = document.querySelector('[data-empty-for="documents"]');
    if (msg) msg.hidden = !empty;
  }

  // ---- talking to the server -------------------------------------------------------------

  function fetchPage(url, init) {
    var opts = { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } };
    if (init) { opts.method = init.method; opts.body = init.body; }
    return fetch(url, opts).then(function (res) {
      return res.text().then(function (html) {
        return { res: res, doc: new DOMParser().parseFromString(html, "text/html") };
      });
    });
  }

  function formIn(doc, kind) {
    var f = doc.querySelector('form[data-organise-form="' + kind + '"]');
    return f ? document.importNode(f, true) : null;
  }

  // post sends a form body; done() runs when the server accepted it (it redirects to the
  // world page, whose tree is then shown), refused(page) when it answered with a refusal.
  function post(url, body, done, refused) {
    return fetchPage(url, { method: "POST", body: body }).then(function (r) {
      if (r.res.ok && r.res.redirected) {
        showTree(r.doc);
        done();
      } else {
        refused(r.doc);
      }
    });
  }

  function focusProblem(form) {
    var el = form.querySelector('[aria-invalid="true"]') || form.querySelector('input[type="radio"]:checked') || form.querySelector('button[type="submit"]');
    if (el) el.focus();
  }

  // submit posts one of the action forms. A refusal swaps in the server's form, which says
  // what went wrong next to the control.
  function submit(form, done) {
    var kind = form.dataset.organiseForm;
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    post(form.action, new URLSearchParams(new FormData(form)), done, function (doc) {
      var again = formIn(doc, kind);
      if (!again) {
        var why = refusalOf(doc, "That change could not be made.");
        if (button) button.disabled = false;
        inlineProblem(form, why.text);
        return;
      }
      form.replaceWith(again);
      focusProblem(again);
    }).catch(function () {
      if (button) button.disabled = false;
      inlineProblem(form, "Could not reach the server: check your connection and try again.");
    });
  }

  function inlineProblem(form, text) {
    var p = form.querySelector("[data-organise-problem]");
    if (!p) {
      p = document.createElement("p");
      p.className = "form-error";
      p.setAttribute("role", "alert");
      p.dataset.organiseProblem = "";
      form.appendChild(p);
    }
    p.textContent = text;
  }

  // ---- rename, in the tree ---------------------------------------------------------------

  function renameForm(li) {
    return li.querySelector(':scope > form[data-organise-form="rename"]');
  }

  function stopRenaming(focus) {
    tree.querySelectorAll("li.renaming").forEach(function (li) {
      var form = renameForm(li);
      if (form) form.remove();
      li.classList.remove("renaming");
      if (focus) {
        var b = document.getElementById("act-rename-" + li.dataset.id);
        if (b) b.focus();
      }
    });
  }

  function startRenaming(li, link) {
    fetchPage(link.href).then(function (r) {
      var form = formIn(r.doc, "rename");
      if (!form) { window.location.href = link.href; return; }
      stopRenaming(false);
      li.classList.add("renaming");
      var actions = li.querySelector(":scope > .doc-actions");
      actions.after(form);
      var input = form.querySelector('input[name="name"]');
      input.focus();
      input.select();
    }).catch(function () { window.location.href = link.href; });
  }

  // ---- move and delete, in a dialog ------------------------------------------------------

  var opener = null;

  function openDialog(link, kind) {
    fetchPage(link.href).then(function (r) {
      var form = formIn(r.doc, kind);
      if (!form) { window.location.href = link.href; return; }
      stopRenaming(false);
      dialogBody.replaceChildren(form);
      var title = form.querySelector("h2[id]");
      if (title) dialog.setAttribute("aria-labelledby", title.id);
      opener = link;
      dialog.showModal();
      var first = kind === "move" ? form.querySelector('input[type="radio"]:checked') : form.querySelector("[data-organise-cancel]");
      if (first) first.focus();
    }).catch(function () { window.location.href = link.href; });
  }

  dialog.addEventListener("close", function () {
    dialogBody.replaceChildren();
    var back = opener && (opener.isConnected ? opener : document.getElementById(opener.id));
    opener = null;
    if (back) {
      back.focus();
    } else if (heading) {
      heading.focus();
    }
  });

  // ---- drag and drop ---------------------------------------------------------------------

  var dragging = null;
  var over = null;

  // dropTarget is where a drop at ev would file the dragged document: a folder (hovering a
  // document inside one counts), or the top level.
  function dropTarget(ev) {
    var el = ev.target instanceof Element ? ev.target : null;
    if (!el) return null;
    if (dropTop && dropTop.contains(el)) return { el: dropTop, parent: "" };
    var folder = el.closest('li[data-type="folder"]');
    if (folder && tree.contains(folder)) return { el: folder, parent: folder.dataset.id };
    if (tree.contains(el)) return { el: tree, parent: "" };
    return null;
  }

  function allowed(t) {
    if (!t || !dragging) return false;
    if (t.parent !== "" && (t.el === dragging || dragging.contains(t.el))) return false;
    return parentOf(dragging) !== t.parent;
  }

  function highlight(el) {
    if (over === el) return;
    if (over) over.classList.remove("drop-here");
    over = el;
    if (over) over.classList.add("drop-here");
  }

  function endDrag() {
    if (dragging) dragging.classList.remove("dragging");
    dragging = null;
    highlight(null);
    if (dropTop) dropTop.hidden = true;
  }

  tree.addEventListener("dragstart", function (ev) {
    var li = ev.target instanceof Element ? ev.target.closest('li[data-testid="document"]') : null;
    if (!li || li.classList.contains("renaming")) return;
    dragging = li;
    ev.dataTransfer.effectAllowed = "move";
    ev.dataTransfer.setData("text/plain", nameOf(li));
    li.classList.add("dragging");
    if (dropTop) dropTop.hidden = parentOf(li) === "";
  });

  document.addEventListener("dragover", function (ev) {
    if (!dragging) return;
    var t = dropTarget(ev);
    if (allowed(t)) {
      ev.preventDefault();
      ev.dataTransfer.dropEffect = "move";
      highlight(t.el);
    } else {
      highlight(null);
    }
  });

  document.addEventListener("drop", function (ev) {
    if (!dragging) return;
    var t = dropTarget(ev);
    var ok = allowed(t);
    var li = dragging;
    endDrag();
    if (!ok) return;
    ev.preventDefault();
    move(li, t.parent);
  });

  tree.addEventListener("dragend", endDrag);

  function move(li, parentId) {
    var link = li.querySelector(':scope > .doc-actions [data-organise="move"]');
    if (!link) return;
    var name = nameOf(li);
    var where = parentId ? "“" + nameOf(item(parentId)) + "”" : "the top level";
    var body = new URLSearchParams();
    body.set("csrf", csrfInput ? csrfInput.value : "");
    body.set("parentId", parentId);
    post(link.href, body, function () {
      say("Moved “" + name + "” to " + where + ".");
    }, function (doc) {
      var why = refusalOf(doc, "“" + name + "” could not be moved.");
      complain(why.text, why.code);
    }).catch(function () {
      complain("Could not reach the server: check your connection and try again.", "");
    });
  }

  // ---- wiring ----------------------------------------------------------------------------

  document.addEventListener("click", function (ev) {
    var el = ev.target instanceof Element ? ev.target : null;
    if (!el) return;
    var link = el.closest("a[data-organise]");
    if (link && tree.contains(link)) {
      if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return; // a new tab
      ev.preventDefault();
      var li = link.closest("li");
      switch (link.dataset.organise) {
        case "rename": startRenaming(li, link); break;
        case "move": case "delete": openDialog(link, link.dataset.organise); break;
        case "new-in": fileNewIn(li); break;
      }
      return;
    }
    var cancel = el.closest("[data-organise-cancel]");
    if (cancel && dialog.contains(cancel)) {
      ev.preventDefault();
      dialog.close();
    } else if (cancel && tree.contains(cancel)) {
      ev.preventDefault();
      stopRenaming(true);
    }
  });

  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && ev.target instanceof Element && ev.target.closest('li.renaming form[data-organise-form="rename"]')) {
      ev.preventDefault();
      stopRenaming(true);
    }
  });

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.organiseForm) return;
    var kind = form.dataset.organiseForm;
    var li = form.closest("li");
    if (kind === "rename" && li && tree.contains(li)) {
      ev.preventDefault();
      var id = li.dataset.id;
      var name = form.querySelector('input[name="name"]').value.trim();
      submit(form, function () {
        say("Renamed to “" + name + "”.");
        var b = document.getElementById("act-rename-" + id);
        if (b) b.focus();
      });
    } else if (dialog.contains(form)) {
      ev.preventDefault();
      var what = nameOf(opener && opener.closest("li"));
      submit(form, function () {
        if (kind === "move") {
          var choice = form.querySelector('input[name="parentId"]:checked');
          var label = choice && choice.closest("label").querySelector(".folder-name");
          say("Moved “" + what + "” to " + (choice && choice.value ? "“" + label.textContent + "”" : "the top level") + ".");
        } else {
          say("Deleted “" + what + "”.");
        }
        dialog.close();
      });
    }
  });

  // fileNewIn points the new document form at a folder and moves to it.
  function fileNewIn(li) {
    var name = document.getElementById("new-doc-name");
    if (parentSelect) parentSelect.value = li.dataset.id;
    if (name) {
      name.scrollIntoView({ block: "center" });
      name.focus();
    }
    say("New documents go in “" + nameOf(li) + "”.");
  }
})();
