// Live pages. The world page keeps its document tree, eras and projects in step with the
// world's event stream; a document page swaps in a fresh body and breadcrumbs from the server
// after every change to the document (content, or a rename or move of it or a folder above
// it), shows who is watching it, and says so when it is deleted.
//
// Streams are plain EventSource connections (same origin, so the session cookie goes along).
// A page resumes from the point it was rendered at (?lastEventId=), so no write falls between
// the server's render and the connection; on a reconnect the browser sends Last-Event-ID.
// Everything shown comes from textContent or from HTML the server rendered: nothing here
// builds HTML from strings.
(function () {
  "use strict";

  function setStatus(text) {
    var el = document.querySelector("[data-live-status]");
    if (el && el.textContent !== text) el.textContent = text;
  }

  function withParam(url, name, value) {
    return url + (url.indexOf("?") < 0 ? "?" : "&") + name + "=" + encodeURIComponent(value);
  }

  // Open streams, closed when the page is hidden: a page kept in the back/forward cache
  // must not hold a connection (browsers allow six per server), and reopened, resuming
  // after the last event seen, when it is shown again.
  var streams = [];

  // follow opens an event stream resuming after the event id `since` ("" for none), and
  // calls handlers[eventName](data) with each event's parsed JSON data, and reopened() (when
  // given) each time the stream connects again after a break: what is not replayed (a
  // document stream's metadata events) may have been missed.
  function follow(url, since, handlers, reopened) {
    if (!window.EventSource || !url) return;
    var s = { url: url, last: since, handlers: handlers, reopened: reopened, connected: false, es: null };
    streams.push(s);
    open(s);
  }

  // retryLater runs attempt after delay, or at once when the browser says it is online again
  // (the editors' writes): a writer back from a dropped connection does not wait out the
  // back-off to see "saved".
  var retries = [];
  function retryLater(attempt, delay) {
    var r = { attempt: attempt };
    r.timer = setTimeout(function () { retries.splice(retries.indexOf(r), 1); attempt(); }, delay);
    retries.push(r);
  }
  window.addEventListener("online", function () {
    var now = retries;
    retries = [];
    now.forEach(function (r) { clearTimeout(r.timer); r.attempt(); });
  });

  // Back online, a stream that is waiting to reconnect does so at once, not when its
  // browser's retry delay is up.
  window.addEventListener("online", function () {
    streams.forEach(function (s) {
      if (s.es && s.es.readyState !== EventSource.OPEN) {
        s.es.close();
        open(s);
      }
    });
  });

  // stopAll closes every stream for good: the page has nothing left to follow.
  function stopAll() {
    streams.forEach(function (s) {
      if (s.es) s.es.close();
    });
    streams = [];
  }

  function open(s) {
    var es = new EventSource(s.last === "" ? s.url : withParam(s.url, "lastEventId", s.last));
    s.es = es;
    es.addEventListener("open", function () {
      setStatus("Live");
      if (s.connected && s.reopened) s.reopened();
      s.connected = true;
    });
    es.addEventListener("error", function () {
      if (es.readyState === EventSource.CLOSED) explainClosed();
      else setStatus("Reconnecting…");
    });
    Object.keys(s.handlers).forEach(function (name) {
      es.addEventListener(name, function (ev) {
        if (ev.lastEventId) s.last = ev.lastEventId;
        var data;
        try { data = JSON.parse(ev.data); } catch (e) { return; }
        s.handlers[name](data);
      });
    });
  }

  // explainClosed says why a stream was refused for good. The server refuses a stream when
  // the reader lost access (removed from the world, signed out): a reload would not catch up,
  // it would be refused too, so the page itself is asked again and the answer told.
  function explainClosed() {
    fetch(location.href, { credentials: "same-origin", cache: "no-store", redirect: "manual", headers: { Accept: "text/html" } })
      .then(function (res) {
        if (res.status === 404 || res.status === 403) {
          stopAll();
          showPresence([]);
          setStatus("Not live: your access to this world was removed");
        } else if (res.type === "opaqueredirect" || res.status === 401) {
          stopAll();
          setStatus("Not live: you were signed out; sign in again to see changes");
        } else {
          setStatus("Not live: reload the page to catch up");
        }
      })
      .catch(function () { setStatus("Not live: reload the page to catch up"); });
  }

  window.addEventListener("pagehide", function () {
    streams.forEach(function (s) {
      if (s.es) s.es.close();
      s.es = null;
    });
  });
  window.addEventListener("pageshow", function (ev) {
    if (!ev.persisted) return;
    streams.forEach(function (s) {
      if (!s.es) open(s);
    });
  });

  function byDataID(root, id) {
    return root.querySelector('li[data-id="' + CSS.escape(id) + '"]');
  }

  // toggleEmpty shows a list, or its "nothing yet" message when it has no items.
  function toggleEmpty() {
    document.querySelectorAll("[data-empty-for]").forEach(function (msg) {
      var list = document.getElementById(msg.getAttribute("data-empty-for"));
      if (!list) return;
      var empty = list.children.length === 0;
      list.hidden = empty;
      msg.hidden = !empty;
    });
  }

  // compareDocs orders a folder's documents as the server does (app/web/worlds.go): folders
  // first, then by name ignoring case, then by name and id.
  function compareDocs(a, b) {
    var fa = a.type === "folder" ? 0 : 1, fb = b.type === "folder" ? 0 : 1;
    if (fa !== fb) return fa - fb;
    var la = a.name.toLowerCase(), lb = b.name.toLowerCase();
    if (la !== lb) return la < lb ? -1 : 1;
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }

  function docKey(li) {
    return { type: li.dataset.type || "", name: li.dataset.name || "", id: li.dataset.id || "" };
  }

  // ---- World page ------------------------------------------------------------------------

  function initWorld(root) {
    var slug = root.dataset.slug || "";
    var era = root.dataset.era || "";
    var chain = [""];
    try { chain = JSON.parse(root.dataset.eraChain || '[""]'); } catch (e) { /* main line */ }
    var tree = document.getElementById("documents");
    var eras = document.getElementById("eras");
    var projects = document.getElementById("projects");
    if (!tree) return;

    function docHref(id) {
      var href = "/w/" + encodeURIComponent(slug) + "/d/" + encodeURIComponent(id);
      return era ? withParam(href, "era", era) : href;
    }

    function makeItem(doc) {
      var li = document.createElement("li");
      li.dataset.testid = "document";
      li.dataset.id = doc.id;
      var a = document.createElement("a");
      a.href = docHref(doc.id);
      a.dataset.testid = "document-link";
      var type = document.createElement("span");
      type.className = "doc-type";
      li.append(a, " ", type);
      return li;
    }

    function setItem(li, doc) {
      li.dataset.type = doc.documentType || "";
      li.dataset.name = doc.name || "";
      li.querySelector(":scope > a").textContent = doc.name || "";
      li.querySelector(":scope > .doc-type").textContent = doc.documentType || "";
    }

    // listFor returns the list a document filed under parentId goes in (the top level when
    // the folder is not shown, or when li itself is that folder or one of its ancestors).
    function listFor(parentId, li) {
      var folder = parentId ? byDataID(tree, parentId) : null;
      if (!folder || li.contains(folder)) return tree;
      var ul = folder.querySelector(":scope > ul");
      if (!ul) {
        ul = document.createElement("ul");
        folder.appendChild(ul);
      }
      return ul;
    }

    function dropIfEmpty(ul) {
      if (ul && ul !== tree && ul.children.length === 0) ul.remove();
    }

    function place(li, parentId) {
      var from = li.parentElement;
      var ul = listFor(parentId, li);
      var key = docKey(li), before = null;
      for (var c = ul.firstElementChild; c; c = c.nextElementSibling) {
        if (c !== li && compareDocs(key, docKey(c)) < 0) { before = c; break; }
      }
      if (before !== li.nextElementSibling || from !== ul) ul.insertBefore(li, before);
      if (from !== ul) dropIfEmpty(from);
    }

    // created adds a new document when it belongs to an era this page shows.
    function created(doc) {
      if (!doc || !doc.id || chain.indexOf(doc.eraId || "") < 0) return;
      var li = byDataID(tree, doc.id) || makeItem(doc);
      setItem(li, doc);
      place(li, doc.parentId || "");
      toggleEmpty();
    }

    // changed follows a rename or a move (metadata is the same in every era).
    function changed(doc) {
      var li = doc && doc.id ? byDataID(tree, doc.id) : null;
      if (!li) return;
      setItem(li, doc);
      place(li, doc.parentId || "");
    }

    // remove takes a document's item off the list. If the keyboard was in it (its rename box,
    // say), the page says what happened and the focus goes to the list's heading rather than
    // to nowhere.
    function remove(li) {
      var from = li.parentElement, hadFocus = li.contains(document.activeElement);
      li.remove();
      dropIfEmpty(from);
      toggleEmpty();
      if (!hadFocus) return;
      var said = document.querySelector("[data-organise-status]"), heading = document.getElementById("docs-title");
      if (said) said.textContent = "“" + (li.dataset.name || "The document") + "” was deleted meanwhile.";
      if (heading) heading.focus();
    }

    // deleted removes a document once the server confirms it is gone from this page's era:
    // a deletion in another era (or one forked from this one) leaves it visible here.
    function deleted(doc) {
      var li = doc && doc.id ? byDataID(tree, doc.id) : null;
      if (!li) return;
      var url = (root.dataset.documentsApi || "") + encodeURIComponent(doc.id);
      fetch(era ? withParam(url, "era", era) : url, { credentials: "same-origin", cache: "no-store" })
        .then(function (res) {
          if (res.status === 404) remove(li);
        })
        .catch(function () { /* keep it; a reload will tell */ });
    }

    function addEra(e) {
      if (!eras || !e || !e.id || byDataID(eras, e.id)) return;
      var li = document.createElement("li");
      li.dataset.id = e.id;
      li.dataset.testid = "era";
      var a = document.createElement("a");
      a.href = withParam("/w/" + encodeURIComponent(slug), "era", e.id);
      a.textContent = e.name || "";
      li.appendChild(a);
      eras.appendChild(li);
    }

    function addProject(p) {
      if (!projects || !p || !p.id || byDataID(projects, p.id)) return;
      var li = document.createElement("li");
      li.dataset.id = p.id;
      li.dataset.testid = "project";
      var kind = document.createElement("span");
      kind.className = "badge";
      kind.textContent = p.kind || "";
      // A project of a tool's app kind has its page in the app (a wiki's address is its own).
      var name = p.name || "";
      if (p.kind && p.kind !== "wiki") {
        name = document.createElement("a");
        name.href = "/w/" + encodeURIComponent(slug) + "/p/" + encodeURIComponent(p.id);
        name.dataset.testid = "project-open";
        name.textContent = p.name || "";
      }
      li.append(name, " ", kind);
      projects.appendChild(li);
      toggleEmpty();
    }

    // worldUpdated shows the world's new name (heading and tab title), genre and theme.
    function worldUpdated(w) {
      if (!w) return;
      var h = document.querySelector("[data-testid=world-name]");
      if (h && w.name && h.textContent !== w.name) {
        var was = h.textContent;
        h.textContent = w.name;
        if (document.title.indexOf(was) === 0) document.title = w.name + document.title.slice(was.length);
      }
      var genre = document.querySelector("[data-world-genre]");
      if (genre) {
        genre.textContent = w.genre ? w.genre + " · " : "";
        genre.hidden = !w.genre;
      }
      if (w.theme) document.documentElement.dataset.theme = w.theme;
    }

    // eraRenamed and eraDeleted keep the era list (and the era badge) in step.
    function eraRenamed(e) {
      var li = eras && e && e.id ? byDataID(eras, e.id) : null;
      var a = li && li.querySelector("a");
      if (a) a.textContent = e.name || "";
      var badge = document.querySelector("[data-testid=current-era]");
      if (badge && e && e.id === era) badge.textContent = "era: " + (e.name || "");
    }

    function eraDeleted(e) {
      var li = eras && e && e.id ? byDataID(eras, e.id) : null;
      if (li) li.remove();
      if (e && chain.indexOf(e.id) >= 0 && e.id !== "") {
        stopAll();
        setStatus("Not live: this era was deleted");
      }
    }

    // projectUpdated renames a project in the list; projectDeleted takes it away.
    function projectUpdated(p) {
      var li = projects && p && p.id ? byDataID(projects, p.id) : null;
      if (!li || !p.name) return;
      var open = li.querySelector("[data-testid=project-open]");
      if (open) open.textContent = p.name;
      else if (li.firstChild && li.firstChild.nodeType === Node.TEXT_NODE) li.firstChild.nodeValue = p.name;
      var settings = li.querySelector("[data-testid=project-settings]");
      if (settings) settings.setAttribute("aria-label", "Settings of " + p.name);
    }

    function projectDeleted(p) {
      var li = projects && p && p.id ? byDataID(projects, p.id) : null;
      if (li) li.remove();
      toggleEmpty();
    }

    // worldDeleted: the owner moved the world to the trash; its stream has ended.
    function worldDeleted() {
      stopAll();
      root.dataset.deleted = "";
      setStatus("Not live: this world was deleted");
    }

    // reload re-reads the lists from the server, when the stream says too much was missed.
    function reload() {
      fetch(window.location.href, { credentials: "same-origin", cache: "no-store" })
        .then(function (res) {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.text();
        })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html");
          [tree, eras, projects].forEach(function (el) {
            var next = el && fresh.getElementById(el.id);
            if (next) el.replaceChildren.apply(el, Array.from(next.childNodes).map(function (n) { return document.importNode(n, true); }));
          });
          toggleEmpty();
        })
        .catch(function () { setStatus("Not live: reload the page to catch up"); });
    }

    follow(root.dataset.stream, root.dataset.seq || "", {
      "document.created": function (ev) { created(ev.document); },
      "document.renamed": function (ev) { changed(ev.document); },
      "document.moved": function (ev) { changed(ev.document); },
      "document.deleted": function (ev) { deleted(ev.document); },
      "era.created": function (ev) { addEra(ev.era); },
      "project.created": function (ev) { addProject(ev.project); },
      "world.updated": function (ev) { worldUpdated(ev.world); },
      "world.deleted": worldDeleted,
      "era.renamed": function (ev) { eraRenamed(ev.era); },
      "era.deleted": function (ev) { eraDeleted(ev.era); },
      "project.updated": function (ev) { projectUpdated(ev.project); },
      "project.deleted": function (ev) { projectDeleted(ev.project); },
      "reset": reload,
    });
  }

  // ---- Document page ---------------------------------------------------------------------

  // refreshBacklinks fetches the page's "Linked from" again (a write elsewhere linked or
  // unlinked this document) and puts it in place, one request at a time.
  var backlinksLoading = false, backlinksAgain = false;
  function refreshBacklinks() {
    var cur = document.getElementById("doc-backlinks");
    var url = cur && cur.dataset.backlinksUrl;
    if (!url) return;
    if (backlinksLoading) { backlinksAgain = true; return; }
    backlinksLoading = true;
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.text(); })
      .then(function (html) {
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        var fresh = tpl.content.querySelector("#doc-backlinks");
        var now = document.getElementById("doc-backlinks");
        if (fresh && now) {
          var active = document.activeElement;
          var href = active && now.contains(active) ? active.getAttribute("href") : null;
          now.replaceWith(fresh);
          if (href) {
            var again = fresh.querySelector('a[href="' + CSS.escape(href) + '"]');
            if (again) again.focus({ preventScroll: true });
          }
        }
      })
      .catch(function () { /* the old list stays; the next change or a reload brings it */ })
      .then(function () {
        backlinksLoading = false;
        if (backlinksAgain) { backlinksAgain = false; refreshBacklinks(); }
      });
  }

  function initials(name) {
    var parts = String(name || "").trim().split(/[\s@._-]+/).filter(Boolean);
    if (parts.length === 0) return "?";
    var first = Array.from(parts[0]);
    var s = parts.length > 1 ? first[0] + Array.from(parts[parts.length - 1])[0] : first.slice(0, 2).join("");
    return s.toUpperCase();
  }

  // showPresence draws one avatar per viewer: initials on a circle in the viewer's colour.
  function showPresence(viewers) {
    var bar = document.querySelector("[data-presence-bar]");
    var list = bar && bar.querySelector("ul");
    if (!list) return;
    list.replaceChildren();
    viewers.forEach(function (v) {
      var li = document.createElement("li");
      li.dataset.testid = "viewer";
      li.dataset.id = v.id || "";
      li.title = v.name || "";
      var ini = document.createElement("span");
      ini.setAttribute("aria-hidden", "true");
      ini.textContent = initials(v.name);
      var name = document.createElement("span");
      name.className = "sr-only";
      name.textContent = v.name || "";
      li.append(ini, name);
      if (/^#[0-9a-fA-F]{3,8}$/.test(v.colour || "")) li.style.backgroundColor = v.colour; // CSSOM: allowed by the CSP
      list.appendChild(li);
    });
    bar.hidden = viewers.length === 0;
  }

  // syncAttributes gives a kept element the attributes of its fresh copy, leaving alone what
  // scripts manage on it (class, style, hidden).
  function syncAttributes(el, fresh) {
    var skip = { "class": true, "style": true, "hidden": true };
    Array.from(el.attributes).forEach(function (a) {
      if (!skip[a.name] && !fresh.hasAttribute(a.name)) el.removeAttribute(a.name);
    });
    Array.from(fresh.attributes).forEach(function (a) {
      if (!skip[a.name] && el.getAttribute(a.name) !== a.value) el.setAttribute(a.name, a.value);
    });
  }

  // swapCrumbs puts the fresh breadcrumbs in place of the page's, and the page title that
  // goes with them (data-title; the site's suffix after it is kept).
  function swapCrumbs(fresh) {
    var cur = document.getElementById("doc-crumbs");
    if (!cur || !fresh) return;
    var was = cur.dataset.title || "", now = fresh.dataset.title || "";
    if (now && now !== was) {
      document.title = was && document.title.indexOf(was) === 0 ? now + document.title.slice(was.length) : now;
    }
    cur.replaceWith(fresh);
  }

  // moveInto puts node before ref without disconnecting it where the browser can (a kept
  // <model-viewer> or map keeps its state), else with a plain move.
  function moveInto(node, ref) {
    var parent = ref.parentNode;
    if (typeof parent.moveBefore === "function") {
      try { parent.moveBefore(node, ref); return; } catch (e) { /* fall back */ }
    }
    parent.insertBefore(node, ref);
  }

  // locate describes where el sits under root so that find can pick out its counterpart in
  // a fresh copy of root: by id when it has one, else step by step down from root, each step
  // naming the child by its data-id, or else as the nth child of its tag and data-testid (so a
  // sibling of another kind appearing before it does not throw it off).
  function locate(root, el) {
    if (el.id) return { id: el.id };
    var steps = [];
    for (var n = el; n && n !== root; n = n.parentElement) {
      var step = { tag: n.tagName, key: n.dataset.id || "", testid: n.dataset.testid || "", nth: 0 };
      if (!step.key) {
        for (var sib = n.previousElementSibling; sib; sib = sib.previousElementSibling) {
          if (same(sib, step)) step.nth++;
        }
      }
      steps.unshift(step);
    }
    return { steps: steps };
  }

  function same(el, step) {
    return el.tagName === step.tag && (step.key ? el.dataset.id === step.key : !el.dataset.id && (el.dataset.testid || "") === step.testid);
  }

  function find(root, where) {
    if (where.id) {
      var byID = document.getElementById(where.id);
      return byID && root.contains(byID) ? byID : null;
    }
    var el = root;
    for (var i = 0; el && i < where.steps.length; i++) {
      var step = where.steps[i], nth = step.nth, found = null;
      for (var c = el.firstElementChild; c && !found; c = c.nextElementSibling) {
        if (same(c, step) && nth-- === 0) found = c;
      }
      el = found;
    }
    return el;
  }

  // pointOf and pointIn carry one end of a selection across a swap: a point in a text node is
  // found again only in a text node with the same text.
  function pointOf(root, node, offset) {
    if (node.nodeType !== Node.TEXT_NODE) return { at: locate(root, node), offset: offset, text: -1 };
    var nth = 0;
    for (var sib = node.previousSibling; sib; sib = sib.previousSibling) {
      if (sib.nodeType === Node.TEXT_NODE) nth++;
    }
    return { at: node.parentElement === root ? { steps: [] } : locate(root, node.parentElement), offset: offset, text: nth, data: node.data };
  }

  function pointIn(root, p) {
    var el = find(root, p.at);
    if (!el) return null;
    if (p.text < 0) return p.offset <= el.childNodes.length ? { node: el, offset: p.offset } : null;
    var nth = p.text;
    for (var c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.TEXT_NODE && nth-- === 0) return c.data === p.data ? { node: c, offset: p.offset } : null;
    }
    return null;
  }

  // isBackward tells a selection made from its end to its start (shift+arrows to the left).
  function isBackward(sel) {
    if (!sel.anchorNode || !sel.focusNode) return false;
    if (sel.anchorNode === sel.focusNode) return sel.focusOffset < sel.anchorOffset;
    return !!(sel.anchorNode.compareDocumentPosition(sel.focusNode) & Node.DOCUMENT_POSITION_PRECEDING);
  }

  function initDocument(root) {
    var body = function () { return root.querySelector("#doc-body"); };
    var shown = function () {
      var b = body();
      return b ? parseInt(b.dataset.version, 10) || 0 : 0;
    };
    var wanted = shown(), dirty = false, loading = false, gone = false;

    // swap replaces the body and the breadcrumbs with the server's fresh ones. Elements of the
    // body marked data-keep (the 3D model, the map) stay in place and only take the new
    // attributes; the scroll position and, where they can be found again, the keyboard focus
    // and the text selection are kept (see locate).
    function swap(html) {
      var cur = body();
      var tpl = document.createElement("template");
      tpl.innerHTML = html;
      var next = tpl.content.querySelector("#doc-body");
      if (!cur || !next) return;
      var kept = [];
      next.querySelectorAll("[data-keep][id]").forEach(function (fresh) {
        var old = cur.querySelector("#" + CSS.escape(fresh.id));
        if (!old || old.tagName !== fresh.tagName || !old.hasAttribute("data-keep")) return;
        var mark = document.createComment("kept");
        fresh.replaceWith(mark);
        kept.push({ old: old, fresh: fresh, mark: mark });
      });
      var x = window.scrollX, y = window.scrollY;
      var active = document.activeElement;
      var focusAt = active && active !== cur && cur.contains(active) ? locate(cur, active) : null;
      var sel = window.getSelection();
      var range = sel && sel.rangeCount ? sel.getRangeAt(0) : null;
      var selAt = range && cur.contains(range.startContainer) && cur.contains(range.endContainer) && !range.collapsed
        ? { start: pointOf(cur, range.startContainer, range.startOffset), end: pointOf(cur, range.endContainer, range.endOffset), backward: isBackward(sel) }
        : null;
      cur.parentNode.insertBefore(next, cur);
      kept.forEach(function (k) {
        syncAttributes(k.old, k.fresh);
        moveInto(k.old, k.mark);
        k.mark.remove();
      });
      cur.remove();
      swapCrumbs(tpl.content.querySelector("#doc-crumbs"));
      window.scrollTo(x, y);
      var f = focusAt && find(next, focusAt);
      if (f) f.focus({ preventScroll: true });
      if (selAt) {
        var a = pointIn(next, selAt.start), b = pointIn(next, selAt.end);
        if (a && b) {
          if (selAt.backward) sel.setBaseAndExtent(b.node, b.offset, a.node, a.offset);
          else sel.setBaseAndExtent(a.node, a.offset, b.node, b.offset);
        }
      }
      document.dispatchEvent(new CustomEvent("loreweave:swap", { detail: { root: next } }));
    }

    // pump fetches a fresh body when one is wanted, one request at a time.
    function pump() {
      if (gone || loading || (!dirty && wanted <= shown())) return;
      loading = true;
      dirty = false;
      fetch(root.dataset.bodyUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
        .then(function (res) {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.text();
        })
        .then(function (html) {
          if (!gone) swap(html);
          loading = false;
          pump();
        })
        .catch(function (err) {
          loading = false;
          if (String(err && err.message) === "HTTP 404") deleted();
          else if (!gone) setStatus("Could not show the latest changes: reload the page");
        });
    }

    // deleted ends the page's life: the document is gone from the era shown, its stream has
    // said so and closed, and reconnecting would only be refused.
    function deleted() {
      gone = true;
      stopAll();
      showPresence([]);
      root.dataset.deleted = "";
      setStatus("This document was deleted, or you can no longer see it");
    }

    function want(version) {
      if (typeof version === "number" && version > wanted) wanted = version;
      pump();
    }

    // refresh fetches the body and breadcrumbs even though the version shown is current.
    function refresh() {
      dirty = true;
      pump();
    }

    follow(root.dataset.stream, String(shown()), {
      ops: function (ev) {
        // The folder description and tool editors (folder_editor.js, tool_editor.js) take
        // the ops as they come.
        document.dispatchEvent(new CustomEvent("loreweave:ops", { detail: ev }));
        want(ev.version);
      },
      snapshot: function (ev) {
        // The tool editor (tool_editor.js) catches up from it.
        document.dispatchEvent(new CustomEvent("loreweave:snapshot", { detail: ev }));
        if (ev.version !== shown()) {
          dirty = true;
          want(ev.version);
        }
      },
      presence: function (ev) { if (!gone) showPresence(ev.viewers || []); },
      // A rename or move of the document or a folder above it: new heading, trail and title.
      metadata: refresh,
      backlinks: refreshBacklinks,
      deleted: deleted,
      // The world went to the trash, or the era shown was deleted: the stream has ended.
      "world.deleted": deleted,
      "era.deleted": deleted,
    }, function () {
      refresh();
      refreshBacklinks(); // what is not replayed may have been missed
    });

    // A folder page also lists the folder's documents: follow the world for those.
    var folderID = root.dataset.documentId;
    if (root.dataset.worldStream && folderID) {
      var touches = function (ev) {
        var d = ev.document;
        if (!d) return;
        var b = body();
        if (d.parentId === folderID || (b && byDataID(b, d.id))) refresh();
      };
      follow(root.dataset.worldStream, root.dataset.worldSeq || "", {
        "document.created": touches,
        "document.renamed": touches,
        "document.moved": touches,
        "document.deleted": touches,
        "reset": refresh,
      });
    }
  }

  // The editors (static/js/editor.js, tool_editor.js) borrow these; the card editor follows
  // its document itself.
  window.LoreLive = {
    showPresence: showPresence,
    retryLater: retryLater,
    refreshBacklinks: refreshBacklinks,
    // refreshCrumbs fetches a document's fragment and puts in its fresh breadcrumbs.
    refreshCrumbs: function (url) {
      fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
        .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.text(); })
        .then(function (html) {
          var tpl = document.createElement("template");
          tpl.innerHTML = html;
          swapCrumbs(tpl.content.querySelector("#doc-crumbs"));
        })
        .catch(function () { /* the old trail stays */ });
    },
  };

  var world = document.querySelector("[data-world-live]");
  if (world) initWorld(world);
  var doc = document.querySelector("[data-doc-live]");
  // A card editor's page follows its document itself (static/js/editor.js).
  if (doc && !document.querySelector("[data-card-editor]")) initDocument(doc);
})();
