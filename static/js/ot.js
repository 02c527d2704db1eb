// LoreOT: the browser's port of the text transformation in ops/ot.go (read its package
// comment for the algorithm). Both are held to the same test vectors,
// ops/testdata/ot_vectors.json, checked here by static/js/ot_test.mjs. A classic script with
// no dependencies: it defines window.LoreOT in a browser and module.exports under Node.
//
// Positions and lengths are UTF-16 code units, which is what JavaScript strings and
// CodeMirror count, so lengths are plain .length.
//
// An op is an array of components over the text it was made on, in order: a positive number
// n retains n units, a negative number -n deletes n units, a string is inserted. Canonical
// form, as in Go: no empty components, adjacent components of the same kind merged, an insert
// always placed before a delete it touches, no trailing retain. (Go may keep adjacent inserts
// as separate pieces; here they are joined, which gives the same splices.)
(function (root) {
  "use strict";

  var splitMessage = "falls inside a surrogate pair (one character such as an emoji counts as two units)";

  function isInsert(c) { return typeof c === "string"; }
  function isRetain(c) { return typeof c === "number" && c > 0; }
  function isDelete(c) { return typeof c === "number" && c < 0; }
  // size is how many units a component covers: of the old text, or of the new for an insert.
  function size(c) { return isInsert(c) ? c.length : Math.abs(c); }

  // splitsPair reports whether cutting s at n falls between the halves of a surrogate pair.
  function splitsPair(s, n) {
    if (n <= 0 || n >= s.length) return false;
    var hi = s.charCodeAt(n - 1), lo = s.charCodeAt(n);
    return hi >= 0xD800 && hi <= 0xDBFF && lo >= 0xDC00 && lo <= 0xDFFF;
  }

  // retain, insert and del append a component to op in canonical form, and return op.
  function retain(op, n) {
    if (n <= 0) return op;
    var k = op.length;
    if (k > 0 && isRetain(op[k - 1])) op[k - 1] += n; else op.push(n);
    return op;
  }
  // insert goes before a trailing delete, so that an insert always precedes the delete it
  // touches.
  function insert(op, s) {
    if (s === "") return op;
    var k = op.length;
    if (k > 0 && isDelete(op[k - 1])) {
      if (k > 1 && isInsert(op[k - 2])) op[k - 2] += s; else op.splice(k - 1, 0, s);
    } else if (k > 0 && isInsert(op[k - 1])) {
      op[k - 1] += s;
    } else {
      op.push(s);
    }
    return op;
  }
  function del(op, n) {
    if (n <= 0) return op;
    var k = op.length;
    if (k > 0 && isDelete(op[k - 1])) op[k - 1] -= n; else op.push(-n);
    return op;
  }
  // add appends any component.
  function add(op, c) {
    return isInsert(c) ? insert(op, c) : c > 0 ? retain(op, c) : del(op, -c);
  }
  // trim drops a trailing retain: the rest of the text is kept anyway.
  function trim(op) {
    if (op.length > 0 && isRetain(op[op.length - 1])) op.pop();
    return op;
  }

  // Cursor walks an op's components, handing out parts of them; past the last component it
  // retains forever (peek returns null).
  function Cursor(op) { this.op = op; this.i = 0; this.head = null; }
  Cursor.prototype.peek = function () {
    if (this.head === null && this.i < this.op.length) this.head = this.op[this.i++];
    return this.head;
  };
  // take uses up n units of the current component (all of it for n >= its size) and returns
  // that part. Splitting an insert inside a surrogate pair throws.
  Cursor.prototype.take = function (n) {
    var h = this.head;
    if (n >= size(h)) { this.head = null; return h; }
    if (isInsert(h)) {
      if (splitsPair(h, n)) throw new Error("LoreOT: a splice " + splitMessage);
      this.head = h.slice(n);
      return h.slice(0, n);
    }
    this.head = h > 0 ? h - n : h + n;
    return h > 0 ? n : -n;
  };

  // compose(a, b) returns the op a then b, b made on a's result. It throws if b cuts a
  // surrogate pair of text a inserted.
  function compose(a, b) {
    var out = [], ca = new Cursor(a), cb = new Cursor(b);
    for (;;) {
      var x = ca.peek(), y = cb.peek();
      if (x !== null && isDelete(x)) { add(out, ca.take(-x)); continue; }
      if (y !== null && isInsert(y)) { add(out, cb.take(y.length)); continue; }
      if (x === null && y === null) return trim(out);
      // Past one op's end it retains the rest: the other's component is copied.
      if (x === null) { add(out, cb.take(size(y))); continue; }
      if (y === null) { add(out, ca.take(size(x))); continue; }
      var n = Math.min(size(x), size(y)), part = ca.take(n);
      cb.take(n);
      if (isRetain(x) && isRetain(y)) retain(out, n);
      else if (isRetain(x)) del(out, n); // b deletes text a kept
      else if (isRetain(y)) insert(out, part); // b keeps text a inserted
      // else b deletes text a inserted: nothing.
    }
  }

  // transform(local, applied, localFirst) rebases two ops made on the same text over each
  // other and returns [localPrime, appliedPrime]: localPrime applies after applied,
  // appliedPrime after local, and both orders give the same text. When both insert at the
  // same position local's text comes first if localFirst, else applied's (the server and
  // every editor give ties to the smaller client id: ops/ot.go); an insert inside a range the
  // other op deleted survives, at the point of the deletion. Go's transform/transformInto.
  function transform(local, applied, localFirst) {
    var l2 = [], a2 = [], cl = new Cursor(local), ca = new Cursor(applied);
    for (;;) {
      var x = ca.peek(), y = cl.peek();
      if (x !== null && isInsert(x) && !(localFirst && y !== null && isInsert(y))) { ca.take(x.length); insert(a2, x); retain(l2, x.length); continue; }
      if (y !== null && isInsert(y)) { cl.take(y.length); insert(l2, y); retain(a2, y.length); continue; }
      if (x === null && y === null) return [trim(l2), trim(a2)];
      // Past its last component an op retains the rest of the text.
      var n = x === null ? size(y) : y === null ? size(x) : Math.min(size(x), size(y));
      if (x !== null) ca.take(n);
      if (y !== null) cl.take(n);
      var keptByApplied = x === null || isRetain(x), keptByLocal = y === null || isRetain(y);
      if (keptByApplied && keptByLocal) { retain(l2, n); retain(a2, n); }
      else if (keptByLocal) del(a2, n);
      else if (keptByApplied) del(l2, n);
      // else both deleted the units: they are gone from both.
    }
  }

  // fromSplices(splices) returns the canonical op of splices [{pos, del, ins}], each applying
  // to the text the previous one left. Ascending splices convert in one pass, others by
  // composing halves. It throws on a negative or non-integer pos or del, and on a splice that
  // cuts a surrogate pair of text inserted by an earlier splice.
  function fromSplices(splices) {
    splices.forEach(function (sp, i) {
      if (!(Number.isInteger(sp.pos) && sp.pos >= 0)) throw new Error("LoreOT: splices[" + i + "].pos must be a non-negative integer");
      if (!(Number.isInteger(sp.del) && sp.del >= 0)) throw new Error("LoreOT: splices[" + i + "].del must be a non-negative integer");
      if (typeof sp.ins !== "string") throw new Error("LoreOT: splices[" + i + "].ins must be a string");
    });
    var op = [], opBase = 0, opOut = 0; // what op covers of the old text, and of the new
    for (var i = 0; i < splices.length; i++) {
      var sp = splices[i];
      if (sp.del === 0 && sp.ins === "") continue;
      if (sp.pos < opOut) return composeSplices(splices);
      // The splice touches only text the op has not reached.
      var start = opBase + sp.pos - opOut;
      del(insert(retain(op, start - opBase), sp.ins), sp.del);
      opBase = start + sp.del;
      opOut = sp.pos + sp.ins.length;
    }
    return op;
  }

  // composeSplices composes splices in any order, halves first.
  function composeSplices(s) {
    if (s.length === 1) return del(insert(retain([], s[0].pos), s[0].ins), s[0].del);
    var half = s.length >> 1;
    return compose(composeSplices(s.slice(0, half)), composeSplices(s.slice(half)));
  }

  // toSplices(op) returns op as ascending splices [{pos, del, ins}] (pos in the text the
  // previous splices left), one per run of inserts and deletes, as Go's textOp.splices().
  function toSplices(op) {
    var out = [], pos = 0;
    for (var i = 0; i < op.length;) {
      if (isRetain(op[i])) { pos += op[i++]; continue; }
      var ins = "", d = 0;
      while (i < op.length && isInsert(op[i])) ins += op[i++];
      if (i < op.length && isDelete(op[i])) d = -op[i++];
      out.push({ pos: pos, del: d, ins: ins });
      pos += ins.length;
    }
    return out;
  }

  // transformSplices(local, applied, localFirst) is Go's TransformSplices: transform on
  // splices, returning [localPrimeSplices, appliedPrimeSplices], both ascending.
  function transformSplices(local, applied, localFirst) {
    var t = transform(fromSplices(local), fromSplices(applied), localFirst);
    return [toSplices(t[0]), toSplices(t[1])];
  }

  // apply(text, op) returns the text op makes of text. It throws if op reaches past the end of
  // text or cuts a surrogate pair.
  function apply(text, op) {
    var parts = [], at = 0;
    for (var i = 0; i < op.length; i++) {
      var c = op[i];
      if (isInsert(c)) { parts.push(c); continue; }
      var next = at + size(c);
      if (next > text.length) throw new Error("LoreOT: the edit's position " + next + " is past the end of the text (the text is " + text.length + " UTF-16 code units long)");
      if (splitsPair(text, next)) throw new Error("LoreOT: the edit's position " + next + " " + splitMessage);
      if (isRetain(c)) parts.push(text.slice(at, next));
      at = next;
    }
    parts.push(text.slice(at));
    return parts.join("");
  }

  // mapPos(op, pos, assoc) returns where position pos of the text op was made on ends up in
  // op's result: assoc < 0 keeps it before text inserted exactly at pos, assoc > 0 puts it
  // after (as transform does with a remote insert at the same place). A position inside a
  // deleted range goes to the deletion point, after any text inserted there.
  function mapPos(op, pos, assoc) {
    var base = 0, out = 0; // position in the old text and in the new
    for (var i = 0; i < op.length; i++) {
      var c = op[i];
      if (isInsert(c)) {
        if (pos === base && assoc < 0) return out;
        out += c.length;
      } else if (isRetain(c)) {
        if (pos < base + c) return out + pos - base;
        base += c;
        out += c;
      } else {
        if (pos < base - c) return out;
        base -= c;
      }
    }
    return out + pos - base;
  }

  // unmapPos(op, pos) returns where position pos of op's result was in the text op was made
  // on: a position inside inserted text goes to the insertion point. It tells the server
  // where a cursor is in text that still carries unacknowledged local edits.
  function unmapPos(op, pos) {
    var base = 0, out = 0;
    for (var i = 0; i < op.length; i++) {
      var c = op[i];
      if (isInsert(c)) {
        if (pos <= out + c.length) return base;
        out += c.length;
      } else if (isRetain(c)) {
        if (pos <= out + c) return base + pos - out;
        base += c;
        out += c;
      } else {
        if (pos === out) return base; // before the deleted text
        base -= c;
      }
    }
    return base + pos - out;
  }

  // diff(a, b) returns an op that turns text a into text b: the common start and end kept,
  // the middle replaced. It is how an editor that lost track of the history catches up.
  function diff(a, b) {
    var start = 0, max = Math.min(a.length, b.length);
    while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
    var end = 0;
    while (end < max - start && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)) end++;
    // Never cut a surrogate pair.
    if (start > 0 && splitsPair(a, start)) start--;
    if (end > 0 && splitsPair(a, a.length - end)) end--;
    return trim(del(insert(retain([], start), b.slice(start, b.length - end)), a.length - end - start));
  }

  // fromChangeSet(changes) returns the op of a CodeMirror 6 ChangeSet (duck-typed: only
  // iterChanges is used). CodeMirror joins lines with "\n".
  function fromChangeSet(changes) {
    var op = [], at = 0;
    changes.iterChanges(function (fromA, toA, fromB, toB, inserted) {
      del(insert(retain(op, fromA - at), inserted.toString()), toA - fromA);
      at = toA;
    });
    return trim(op);
  }

  // toChangeSpec(op) returns op as CodeMirror changes [{from, to, insert}], ascending, in the
  // coordinates of the text op was made on: view.dispatch({changes: toChangeSpec(op)}).
  function toChangeSpec(op) {
    var out = [], base = 0;
    for (var i = 0; i < op.length;) {
      if (isRetain(op[i])) { base += op[i++]; continue; }
      var ins = "", d = 0;
      while (i < op.length && isInsert(op[i])) ins += op[i++];
      if (i < op.length && isDelete(op[i])) d = -op[i++];
      out.push({ from: base, to: base + d, insert: ins });
      base += d;
    }
    return out;
  }

  var api = {
    fromSplices: fromSplices,
    toSplices: toSplices,
    compose: compose,
    transform: transform,
    transformSplices: transformSplices,
    apply: apply,
    mapPos: mapPos,
    unmapPos: unmapPos,
    diff: diff,
    fromChangeSet: fromChangeSet,
    toChangeSpec: toChangeSpec,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.LoreOT = api;
})(this);
