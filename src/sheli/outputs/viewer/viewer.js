/* sheli viewer. Everything it shows is in the JSON of #sheli-data (see docs/viewer.md):
   no network, no other file. Text is always put in with textContent, never as HTML; only
   the diagrams (drawn and escaped by sheli's diagram layer) go in as markup. */
"use strict";
(async function () {
  // the page's data is read once; its text is then let go (a big event's is megabytes)
  const D = JSON.parse(document.getElementById("sheli-data").textContent);
  document.getElementById("sheli-data").textContent = "";
  const N = D.steps.length;
  const $ = (id) => document.getElementById(id);
  const stage = $("stage");

  // ---- the two scripts: T is the traditional table, S the simplified one (null = same)
  let script = D.meta.lang === "zh-Hans" ? "s" : "t";
  const str = (i) => (i == null || i < 0 ? null : script === "s" && D.S[i] != null ? D.S[i] : D.T[i]);
  // ---- English (docs/viewer.md, "In English"): D.E is gzipped JSON in base64, inflated
  // when English is first shown: L the interface strings, t the English strings, s each
  // step's sentence (a number in t), x the English of strings of the table T by their
  // number, p each passage's translation and the reading it follows. A string of T without
  // English is shown whole in brackets: nothing of the text's script stands outside them.
  let lang = D.meta.lang === "en" ? "en" : "zh";
  let EN = null;
  let enLoading = null;
  function english() {
    if (!enLoading)
      enLoading = inflate(bytesOf(D.E)).then((t) => {
        EN = JSON.parse(t);
        return EN;
      });
    return enLoading;
  }
  const en = (i) => (i == null || i < 0 ? null : EN.x[i] != null ? EN.x[i] : `(${D.T[i]})`);
  // a string of the table in the language shown
  const tx = (i) => (lang === "en" ? en(i) : str(i));
  const LABELS = {
    t: { section: "賈疏", round: "番", role: "人", only: "只看此人", tally: "獲",
      right: "右", left: "左", hits: "中/發", none: "尚無", notCounted: "獲而未釋獲",
      announce: "釋獲者告", all: "全部", play: "播放", pause: "暫停", holds: "執",
      dress: "服", at: "位", as: "如", step: "步", assumed: "假定" },
    s: { section: "贾疏", round: "番", role: "人", only: "只看此人", tally: "获",
      right: "右", left: "左", hits: "中/发", none: "尚无", notCounted: "获而未释获",
      announce: "释获者告", all: "全部", play: "播放", pause: "暂停", holds: "执",
      dress: "服", at: "位", as: "如", step: "步", assumed: "假定" },
  };
  const L = (k) => (lang === "en" ? EN.L[k] : LABELS[script][k]);
  const langName = () => (lang === "en" ? "en" : script === "s" ? "zh-Hans" : "zh-Hant");

  // ---- diagrams (docs/viewer.md, "The diagrams inside"): in #sheli-svg, one blob per
  // chunk of steps (or more chunks a blob), each in base64, one a line: a head in 4-byte
  // numbers (the length of the first gzip stream, the number of chunks, each chunk's first
  // step and steps), then two gzip streams (inflated by the browser itself: no network):
  // its table of parts, each ended by a NUL, and its chunks, a line of JSON [start, steps]
  // each. A chunk's first step lists its parts; each other keeps the parts that differ
  // from the step before. At load each line is decoded to its bytes (smaller than its
  // text) and only its head read; a blob is inflated when one of its steps is shown, and the last CACHE blobs inflated are kept, so that memory and the
  // time to the first diagram do not grow with the number of steps.
  const CACHE = 4;
  function inflate(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  function bytesOf(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    return bytes;
  }
  // the lines of #sheli-svg, and for each step its line (-1: none) and its chunk's first step
  // each line is kept as its bytes (three quarters of its base64), the text let go
  let SVGTEXT = document.getElementById("sheli-svg").textContent;
  document.getElementById("sheli-svg").textContent = ""; // (kept here, not twice)
  const LINES = [];
  const lineOf = new Int32Array(N).fill(-1);
  const firstOf = new Int32Array(N);
  for (let at = 0; at < SVGTEXT.length; ) {
    let end = SVGTEXT.indexOf("\n", at);
    if (end < 0) end = SVGTEXT.length;
    const line = SVGTEXT.slice(at, end).trim();
    at = end + 1;
    if (!line) continue;
    const bytes = bytesOf(line);
    const head = new DataView(bytes.buffer);
    const k = head.getUint32(4);
    const headLen = 8 + 8 * k;
    for (let c = 0; c < k; c++) {
      const start = head.getUint32(8 + 8 * c);
      const count = head.getUint32(12 + 8 * c);
      for (let j = start; j < start + count && j < N; j++) {
        lineOf[j] = LINES.length;
        firstOf[j] = start;
      }
    }
    LINES.push({ bytes, headLen, tableLen: head.getUint32(0) });
  }
  SVGTEXT = null;
  // the blobs inflated, the most recently used last: line -> {p: Promise, v: its value}
  const cache = new Map();
  const counts = { inflated: 0 };
  async function unpack(L) {
    const bytes = L.bytes;
    const a = L.headLen;
    const [table, chunks] = await Promise.all([
      inflate(bytes.subarray(a, a + L.tableLen)),
      inflate(bytes.subarray(a + L.tableLen)),
    ]);
    const parts = table.split("\0");
    parts.pop();
    const steps = new Map();
    for (const line of chunks.split("\n")) {
      if (!line) continue;
      const [start, st] = JSON.parse(line);
      st.forEach((e, j) => steps.set(start + j, e));
    }
    return { parts, steps };
  }
  // the cache's entry of step i's blob (null: no diagram), inflating it if need be
  function blobOf(i) {
    const k = i >= 0 && i < N ? lineOf[i] : -1;
    if (k < 0) return null;
    let e = cache.get(k);
    if (e) cache.delete(k); // put back at the end: the most recently used
    else {
      counts.inflated++;
      e = { p: null, v: null };
      e.p = unpack(LINES[k]).then(
        (v) => (e.v = v),
        (err) => {
          cache.delete(k);
          throw err;
        },
      );
    }
    cache.set(k, e);
    while (cache.size > CACHE) cache.delete(cache.keys().next().value);
    return e;
  }

  // rebuilding a step's list of parts is cached for stepping on
  let cacheI = -1;
  let cacheIds = null;
  function idsAt(B, i) {
    if (i === cacheI) return cacheIds;
    let k0;
    let ids;
    if (cacheI >= 0 && cacheI < i && firstOf[cacheI] === firstOf[i]) {
      k0 = cacheI;
      ids = cacheIds;
    } else {
      k0 = firstOf[i];
      ids = B.steps.get(k0);
    }
    for (let k = k0 + 1; k <= i; k++) {
      const [p, s, mid] = B.steps.get(k);
      ids = ids.slice(0, p).concat(mid, s ? ids.slice(ids.length - s) : []);
    }
    cacheI = i;
    cacheIds = ids;
    return ids;
  }
  function svgOf(B, i) {
    if (!B || !B.steps.has(i)) return "";
    return idsAt(B, i).map((n) => B.parts[n]).join("\n").replace(/^\s*<\?xml[^>]*\?>\s*/, "");
  }
  // a step's SVG: at once if its blob is inflated, else a Promise of it
  function svgAt(i) {
    const e = blobOf(i);
    if (!e) return "";
    return e.v ? svgOf(e.v, i) : e.p.then((v) => svgOf(v, i));
  }
  // the blob of a step near the edge of this one's, inflated ahead for stepping on
  function ahead(i) {
    for (const j of [i + 16, i - 16])
      if (j >= 0 && j < N && lineOf[j] !== lineOf[i] && lineOf[j] >= 0) blobOf(j).p.catch(() => {});
  }

  // ---- state
  let cur = 0;
  let playing = false;
  let anim = null;
  let chosen = ""; // the role filter: "" | "a:<actor id>" | "r:<role id>"

  const castByActor = new Map(D.cast.map((c) => [c.a, c]));
  function chosenActors() {
    if (!chosen) return null;
    const id = Number(chosen.slice(2));
    if (chosen[0] === "a") return new Set([id]);
    return new Set(D.cast.filter((c) => c.r === id).map((c) => c.a));
  }
  function matches(i) {
    const set = chosenActors();
    return !set || set.has(D.steps[i].a);
  }

  // ---- menus
  function fillMenus() {
    const sec = $("section");
    const rnd = $("round");
    const role = $("role");
    const keepS = sec.value;
    const keepR = rnd.value;
    const keepRole = role.value;
    sec.textContent = "";
    D.sectionSegs.forEach(([n, i], k) => {
      const o = document.createElement("option");
      const topic = D.sections[n] ? tx(D.sections[n].t) : "";
      o.value = String(k);
      o.dataset.step = String(i);
      o.dataset.section = String(n);
      o.textContent = `§${n} ${topic}`;
      sec.appendChild(o);
    });
    rnd.textContent = "";
    D.roundSegs.forEach(([r, i], k) => {
      const o = document.createElement("option");
      o.value = String(k);
      o.dataset.step = String(i);
      o.dataset.round = String(r);
      o.textContent = `${tx(D.rounds[r])} (${D.steps[i].q})`;
      rnd.appendChild(o);
    });
    role.textContent = "";
    const none = document.createElement("option");
    none.value = "";
    none.textContent = "—";
    role.appendChild(none);
    const byRole = new Map();
    for (const c of D.cast) {
      if (!byRole.has(c.r)) byRole.set(c.r, []);
      byRole.get(c.r).push(c);
    }
    for (const [r, members] of byRole) {
      const g = document.createElement("optgroup");
      g.label = tx(r);
      if (members.length > 1) {
        const o = document.createElement("option");
        o.value = `r:${r}`;
        o.textContent = lang === "en" ? `${L("all")} ${tx(r)} (${members.length})` : `${L("all")}${str(r)} (${members.length})`;
        g.appendChild(o);
      }
      for (const c of members) {
        const o = document.createElement("option");
        o.value = `a:${c.a}`;
        const named = c.n >= 0 && str(c.n) !== str(c.a);
        if (lang === "en") o.textContent = named ? `${tx(c.a)}, ${tx(c.n)}` : tx(c.a);
        else o.textContent = named ? `${str(c.a)}（${str(c.n)}）` : str(c.a);
        g.appendChild(o);
      }
      role.appendChild(g);
    }
    if (keepS) sec.value = keepS;
    if (keepR) rnd.value = keepR;
    role.value = keepRole;
    for (const el of document.querySelectorAll("[data-l]")) el.textContent = L(el.dataset.l);
    $("script").textContent = script === "t" ? "简" : "繁";
    $("lang").textContent = lang === "en" ? "中文" : "EN";
    $("lang").setAttribute("aria-pressed", String(lang === "en"));
    $("title").textContent = tx(D.meta.title) || D.meta.titleText;
    document.title = `${$("title").textContent} · sheli`;
    document.documentElement.lang = langName();
    document.body.dataset.lang = langName();
  }
  function segIndex(segs, i) {
    let k = 0;
    while (k + 1 < segs.length && segs[k + 1][1] <= i) k++;
    return k;
  }

  // ---- the text pane
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function showText(i) {
    const st = D.steps[i];
    const E = lang === "en";
    const who = $("who");
    who.textContent = "";
    if (E) who.appendChild(el("span", "sentence", EN.t[EN.s[i]])); // the words said are in it
    else {
      who.appendChild(el("span", "actor", str(st.a)));
      who.appendChild(document.createTextNode(` ${str(st.v)}`));
    }
    const says = $("says");
    says.hidden = st.y < 0 || E;
    says.textContent = st.y < 0 || E ? "" : `「${str(st.y)}」`;
    const ann = $("announce");
    ann.hidden = !st.an;
    ann.textContent = !st.an ? "" : E ? `${L("announce")}: ${en(st.y)}` : `${L("announce")}：${str(st.y)}`;
    const bits = [];
    // in English the place and the facing are in the sentence
    if (st.p >= 0 && !E) bits.push(`${L("at")}：${str(st.p)}`);
    if (st.h >= 0) bits.push(E ? `${L("holds")}: ${en(st.h)}` : `${L("holds")}：${str(st.h)}`);
    if (st.d >= 0) bits.push(E ? `${L("dress")}: ${en(st.d)}` : `${L("dress")}：${str(st.d)}`);
    $("state").textContent = bits.join(E ? "; " : "　");
    $("stepnote").textContent = st.n >= 0 ? tx(st.n) : "";
    // what the step rests on that the text does not say (the spec's assumptions), by what
    // it says: D.A [what, why] in the spec's words, EN.a in English
    const assumed = $("assumed");
    assumed.textContent = "";
    assumed.hidden = !st.u;
    for (const k of st.u || []) {
      const [what, why] = E ? EN.a[k] : [str(D.A[k][0]), str(D.A[k][1])];
      const li = el("li", null, `${L("assumed")}${E ? ": " : "："}${what} `);
      li.appendChild(el("small", null, why));
      assumed.appendChild(li);
    }

    const ps = D.passages[st.c];
    $("pid").textContent = st.c;
    const sec = D.sections[st.s];
    $("sec").textContent = sec ? `§${st.s} ${tx(sec.t)}` : "";
    const jing = $("jing");
    jing.textContent = "";
    const text = ps ? str(ps.t) : "";
    const words = str(st.j) || "";
    let at = words ? text.indexOf(words) : -1;
    let len = words.length;
    // the words in another form than the passage's (矦/侯, 竝/並): where the data says, in
    // the passage's own characters, as long as the script shown keeps the passage's length
    if (at < 0 && st.m && ps && text.length === D.T[ps.t].length) [at, len] = st.m;
    if (at >= 0) {
      jing.appendChild(document.createTextNode(text.slice(0, at)));
      jing.appendChild(el("mark", null, text.slice(at, at + len)));
      jing.appendChild(document.createTextNode(text.slice(at + len)));
    } else {
      jing.appendChild(document.createTextNode(text));
      if (words) {
        jing.appendChild(document.createElement("br"));
        jing.appendChild(el("mark", null, words));
      }
    }
    const ten = $("jingen");
    const pe = E ? EN.p[st.c] : null;
    ten.hidden = !pe || !pe.length;
    ten.textContent = "";
    if (pe && pe.length) {
      ten.appendChild(document.createTextNode(pe[0]));
      if (pe[1]) ten.appendChild(el("small", "reading", `${L("reading")}: ${pe[1]}`));
    }
    const as = $("as");
    as.hidden = !st.as;
    if (!st.as) as.textContent = "";
    else if (E) {
      as.textContent = `${L("as")} ${st.as[0]}: ${en(st.as[1]) || ""} ${en(st.as[2]) || ""}`.trim();
    } else
      as.textContent = `${L("as")} ${st.as[0]}：${str(st.as[1]) || ""} ${str(st.as[2]) ? `（${str(st.as[2])}）` : ""}`;
    const notes = $("notes");
    notes.textContent = "";
    for (const [ed, kind, body] of ps ? ps.n : []) {
      const k = str(kind);
      const d = el("div", `note k-${D.T[kind]}`);
      d.appendChild(el("span", "ed", `${k} · ${str(ed)}`));
      d.appendChild(document.createTextNode(str(body)));
      notes.appendChild(d);
    }
    showTally(D.tallies[st.t]);
  }
  function showTally(t) {
    const tab = $("tallytab");
    tab.textContent = "";
    const rounds = Object.keys(t.rounds);
    if (!rounds.length) {
      const tr = el("tr");
      tr.appendChild(el("td", null, L("none")));
      tab.appendChild(tr);
    } else {
      const head = el("tr");
      for (const h of [L("round"), L("right"), L("left"), L("hits")]) head.appendChild(el("th", null, h));
      tab.appendChild(head);
      for (const r of rounds) {
        const v = t.rounds[r];
        const tr = el("tr");
        tr.dataset.round = r;
        tr.appendChild(el("th", null, tx(D.rounds[r])));
        if (r === "1") {
          // round 1 records hits but releases no 筭 (xiangshe:150 獲而未釋獲)
          const td = el("td", null, L("notCounted"));
          td.colSpan = 2;
          tr.appendChild(td);
        } else {
          tr.appendChild(el("td", "right", String(v.right)));
          tr.appendChild(el("td", "left", String(v.left)));
        }
        tr.appendChild(el("td", "hits", `${v.hits}/${v.shots}`));
        tab.appendChild(tr);
      }
    }
    const done = $("done");
    done.textContent = "";
    for (const d of t.done) {
      const li =
        lang === "en"
          ? el("li", null, `${tx(D.rounds[d.round])}: ${annEn(d.announcement)} (${L("right")} ${d.right}, ${L("left")} ${d.left})`)
          : el("li", null, `${str(D.rounds[d.round])}：${script === "s" ? simp(d.announcement) : d.announcement}（${L("right")}${d.right} ${L("left")}${d.left}）`);
      done.appendChild(li);
    }
  }
  // announcements are in the string table (the 釋獲者's words are a step's says)
  const tIndex = new Map(D.T.map((s, i) => [s, i]));
  function simp(s) {
    const i = tIndex.get(s);
    return i == null ? s : str(i);
  }
  function annEn(s) {
    const i = tIndex.get(s);
    return i == null ? `(${s})` : en(i);
  }

  // ---- the diagram and the walk from the step before
  function persons(svg) {
    const m = new Map();
    for (const g of svg.querySelectorAll("g.person[data-actor]")) m.set(g.dataset.actor, g);
    return m;
  }
  // the diagram draws a role that is several people (衆賓, 弟子) member by member: its head
  // as the cast's actor, each other member as one not in the cast (衆賓2, with the head's
  // data-role); he is one of the chosen when his head is, or when his role is chosen whole
  const castNames = new Set(D.cast.map((c) => D.T[c.a]));
  function chosenBy(names, roles, name, g) {
    if (names.has(name)) return true;
    if (castNames.has(name)) return false;
    return names.has(name.replace(/\d+$/, "")) || roles.has(g.dataset.role);
  }
  function mark(svg, i) {
    const set = chosenActors();
    const names = set ? new Set([...set].map((a) => D.T[a])) : null;
    const roles = new Set(chosen[0] === "r" ? [D.T[Number(chosen.slice(2))]] : []);
    svg.classList.toggle("dim", !!names);
    const actor = D.T[D.steps[i].a];
    for (const g of svg.querySelectorAll("g.person[data-actor]")) {
      const name = g.dataset.actor;
      g.classList.toggle("current", name === actor);
      g.classList.toggle("hl", !!names && chosenBy(names, roles, name, g));
    }
  }
  // the walk of this act: the diagram draws the actor's path as polyline.actor-path, in
  // its own coordinates, ending where his figure stands
  function walks(svg) {
    const out = [];
    for (const pl of svg.querySelectorAll("polyline.actor-path[data-actor]")) {
      const pts = pl.getAttribute("points").trim().split(/[\s,]+/).map(Number);
      if (pts.length >= 4 && pts.every(Number.isFinite)) out.push([pl.dataset.actor, pts]);
    }
    return out;
  }
  // the diagram of step i: at once if its blob is inflated, else when it is (and if the
  // viewer is still at i); a Promise then
  function showDiagram(i, animate, duration) {
    if (anim) {
      cancelAnimationFrame(anim);
      anim = null;
    }
    const got = svgAt(i);
    ahead(i);
    if (typeof got === "string") return drawDiagram(i, got, animate, duration);
    stage.classList.add("loading");
    return got.then((svg) => {
      if (cur === i) drawDiagram(i, svg, animate, duration);
    });
  }
  // a diagram far taller than the stage (the whole range, 堂 to 侯, 300 尺 long: the first
  // steps) is drawn at the stage's width, not shrunk to its height where no label can be
  // read, and the stage scrolls to the step's actor; any other fits the stage whole. The
  // drawing's page is wider than such a plan (the range is narrow): it is cut to the plan
  // and what is drawn round it (labels, the scale bar), so that the plan, not the paper
  // beside it, takes the stage's width; the page's head (the cite, the act, the words:
  // the side says them) is left out, as the cut would halve it.
  const TALL = 1.4;
  function fit(svg) {
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const sticky = getComputedStyle(stage).position === "sticky"; // not on a phone, nor zoomed
    const tall = sticky && vb && vb.width > 0 && stage.clientWidth > 0 &&
      vb.height / vb.width > (TALL * stage.clientHeight) / stage.clientWidth;
    stage.classList.toggle("tall", !!tall);
    if (!tall) return;
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const part of svg.querySelectorAll(":scope > g.plan, :scope > g.scale-bar")) {
      const b = part.getBBox();
      if (b.width > 0) [x0, x1] = [Math.min(x0, b.x), Math.max(x1, b.x + b.width)];
    }
    const pad = 4;
    x0 = Math.max(vb.x, x0 - pad);
    x1 = Math.min(vb.x + vb.width, x1 + pad);
    if (x1 > x0) {
      svg.setAttribute("viewBox", `${x0} ${vb.y} ${x1 - x0} ${vb.height}`);
      svg.setAttribute("width", String(x1 - x0)); // its height: auto follows this shape
    }
    const g = svg.querySelector("g.person.current");
    if (!g) return;
    const r = g.getBoundingClientRect();
    const box = stage.getBoundingClientRect();
    stage.scrollTop += r.top - box.top - (box.height - r.height) / 2;
  }
  // ---- the diagram in English (docs/viewer.md, "In English"): the diagrams are drawn
  // once, in the text's terms; in English each of their words is given the English the
  // drawing in English gives it (EN.g, by the words drawn: a fixture, a person, what he
  // holds, the act), a member of a role by his role's (衆賓2: other guest 2), and whatever
  // has none stands in brackets. A person's label is then laid out for its longer words.
  const CJK = /[\u2e80-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u{20000}-\u{3ffff}]/u;
  function bracketed(s) {
    let out = "";
    let run = "";
    let depth = 0;
    for (const ch of s) {
      if (depth === 0 && CJK.test(ch)) {
        run += ch;
        continue;
      }
      if (run) out += `(${run})`;
      run = "";
      if (ch === "(") depth++;
      else if (ch === ")" && depth > 0) depth--;
      out += ch;
    }
    return run ? `${out}(${run})` : out;
  }
  // the formats of the counts and measures (EN.f: [the drawing's, the English]) as
  // patterns, the numbers they hold read back and put into the English
  let FORMATS = null;
  function formats() {
    if (!FORMATS)
      FORMATS = EN.f.map(([zh, en]) => {
        const names = [];
        const src = zh
          .split(/(\{\w+\})/)
          .map((p) => {
            const m = /^\{(\w+)\}$/.exec(p);
            if (!m) return p.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
            names.push(m[1]);
            return m[1] === "said" ? "(.+)" : "([\\d.]+)";
          })
          .join("");
        return [new RegExp(src, "g"), names, en];
      });
    return FORMATS;
  }
  function countsEn(s) {
    for (const [re, names, en] of formats())
      s = s.replace(re, (...m) =>
        names.reduce((out, n, k) => out.replace(`{${n}}`, n === "said" ? `(${m[k + 1]})` : m[k + 1]), en),
      );
    return s;
  }
  function wordEn(s) {
    if (!CJK.test(s)) return s;
    const g = EN.g[s];
    if (g != null) return g;
    const m = /^(.*?)(\d+)$/.exec(s);
    if (m && EN.g[m[1]] != null) return `${EN.g[m[1]]} ${m[2]}`;
    // things together (篚·爵), each its own English
    if (s.includes("·")) return s.split("·").map(wordEn).join("·");
    return bracketed(countsEn(s));
  }
  function diagramEnglish(svg, i) {
    const st = D.steps[i];
    for (const t of svg.querySelectorAll("text")) {
      if (t.classList.contains("cite")) t.textContent = `${tx(D.meta.title)} §${st.s} ${st.c} #${st.q}`;
      else t.textContent = wordEn(t.textContent);
    }
    // a person's label: each line's words one after another, its box round them
    const view = svg.querySelector("rect.view");
    const planWest = view ? Number(view.getAttribute("x")) + 2 : -Infinity;
    for (const g of svg.querySelectorAll("g.person-label")) {
      const lines = new Map();
      for (const t of g.querySelectorAll("text")) {
        const y = t.getAttribute("y");
        if (!lines.has(y)) lines.set(y, []);
        lines.get(y).push(t);
      }
      const x0 = Number(g.querySelector("text").getAttribute("x"));
      let wide = 0;
      for (const ts of lines.values()) {
        let x = x0;
        for (const t of ts) {
          t.setAttribute("x", x.toFixed(2));
          x += t.getComputedTextLength() + 3;
        }
        wide = Math.max(wide, x - 3 - x0);
      }
      const box = g.querySelector("rect");
      if (!box) continue;
      // the longer words grow away from the person named: a label the drawing placed on
      // his west grows west (as far as the plan's edge, where the plan is cut), so that it
      // does not run over him and the labels on his east;
      // any other grows east, as it reads. The actor's label keeps its place (it grows
      // east) and is drawn last, over any other it meets.
      const was = Number(box.getAttribute("width"));
      const bx = Number(box.getAttribute("x"));
      const who = (g.getAttribute("data-for") || "").replace(/^person:/, "");
      const p = who && svg.querySelector(`g.person[data-actor="${CSS.escape(who)}"]`);
      const cx = p ? Number(p.getAttribute("data-cx")) : NaN;
      const actor = !!p && p.classList.contains("actor");
      const shift = !actor && bx + was <= cx ? Math.max(0, Math.min(wide + 4 - was, bx - planWest)) : 0;
      box.setAttribute("width", (wide + 4).toFixed(2));
      if (actor) g.parentNode.appendChild(g);
      if (!shift) continue;
      box.setAttribute("x", (bx - shift).toFixed(2));
      for (const t of g.querySelectorAll("text")) t.setAttribute("x", (Number(t.getAttribute("x")) - shift).toFixed(2));
    }
  }
  function drawDiagram(i, markup, animate, duration) {
    stage.classList.remove("loading");
    stage.innerHTML = markup;
    document.body.dataset.drawn = String(D.steps[i].q);
    const svg = stage.querySelector("svg");
    if (!svg) return;
    if (lang === "en") diagramEnglish(svg, i);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    mark(svg, i);
    drawGhosts(svg, i);
    if (timed) placeMovers();
    fit(svg);
    if (!animate) return;
    // each mover walks his path (in the diagram's own coordinates) into his new place:
    // he is wrapped in a group whose offset runs from (start - end) to zero
    const walkers = [];
    const ps = persons(svg);
    for (const [actor, pts] of walks(svg)) {
      const g = ps.get(actor);
      if (!g || pts.length < 4) continue;
      const w = document.createElementNS("http://www.w3.org/2000/svg", "g");
      w.setAttribute("class", "walk");
      g.parentNode.insertBefore(w, g);
      w.appendChild(g);
      const segs = [];
      let total = 0;
      for (let k = 0; k + 3 < pts.length; k += 2) {
        const len = Math.hypot(pts[k + 2] - pts[k], pts[k + 3] - pts[k + 1]);
        segs.push([pts[k], pts[k + 1], pts[k + 2], pts[k + 3], len]);
        total += len;
      }
      const ex = pts[pts.length - 2];
      const ey = pts[pts.length - 1];
      walkers.push({ w, segs, total, ex, ey });
    }
    if (!walkers.length) return;
    const t0 = performance.now();
    const step = (now) => {
      const f = Math.min(1, (now - t0) / duration);
      for (const { w, segs, total, ex, ey } of walkers) {
        let d = f * total;
        let x = ex;
        let y = ey;
        for (const [x0, y0, x1, y1, len] of segs) {
          if (d <= len || len === 0) {
            const u = len ? d / len : 1;
            x = x0 + (x1 - x0) * u;
            y = y0 + (y1 - y0) * u;
            break;
          }
          d -= len;
        }
        w.setAttribute("transform", `translate(${(x - ex).toFixed(2)} ${(y - ey).toFixed(2)})`);
      }
      anim = f < 1 ? requestAnimationFrame(step) : null;
      if (!anim) for (const { w } of walkers) w.removeAttribute("transform");
    };
    step(t0);
    anim = requestAnimationFrame(step);
  }

  // ---- moving
  function go(i, opts = {}) {
    i = Math.max(0, Math.min(N - 1, i));
    // (playing, the walkers of the instant walk instead)
    const animate = !!opts.animate && i === cur + 1 && !opts.keepClock && !playing;
    cur = i;
    if (!opts.keepClock) {
      // a step chosen: the clock goes to its start, and playing goes on from there
      clock = START[i];
      timed = playing;
    }
    showClock();
    const st = D.steps[i];
    const shown = showDiagram(i, animate, opts.duration || 500);
    showText(i);
    showDiffs(i);
    $("pos").textContent = `${L("step")} ${st.q} / ${D.steps[N - 1].q}`;
    $("scrub").value = String(i);
    $("section").value = String(segIndex(D.sectionSegs, i));
    $("round").value = String(segIndex(D.roundSegs, i));
    document.body.dataset.seq = String(st.q);
    document.body.dataset.section = String(st.s);
    document.body.dataset.round = String(st.r);
    if (!opts.keepHash) setHash(st.q);
    return shown;
  }
  // the address follows the step once stepping pauses (HASH_DELAY ms after the last step):
  // history.replaceState costs more than the rest of a step's handler, so it is not done on
  // every step of a run of keys or of play
  const HASH_DELAY = 300;
  let hashTimer = null;
  // the language, when not the one the page opens in, follows the step: #815&lang=en
  const hashOf = (q) => `#${q}${langName() !== (D.meta.lang || "zh-Hant") ? `&lang=${langName()}` : ""}`;
  function setHash(q) {
    clearTimeout(hashTimer);
    hashTimer = setTimeout(() => {
      hashTimer = null;
      if (location.hash !== hashOf(q)) history.replaceState(null, "", hashOf(q));
    }, HASH_DELAY);
  }
  function nextIndex(i, dir) {
    for (let k = i + dir; k >= 0 && k < N; k += dir) if (!$("only").checked || matches(k)) return k;
    return i;
  }
  // ---- the rite in time (docs/viewer.md, "Playing the rite"): D.time.t and D.time.d are
  // each step's start and duration (seconds from the rite's start), D.time.w each walker's
  // walks: [actor (a string of T), [[step, x, y, t, x, y, t …] …]] (尺, seconds). Playing,
  // the clock runs at 1×, 4× or 16×; the step shown is the latest begun by the clock, and
  // everyone who walks at that instant is drawn where his path has him, above the plan.
  const TM = D.time || { t: new Array(N).fill(0), d: new Array(N).fill(0), w: [] };
  const START = Float64Array.from(TM.t);
  const ENDS = START.map((t, i) => t + TM.d[i]);
  const LONGEST = ENDS.reduce((m, e, i) => Math.max(m, e - START[i]), 0);
  const END = ENDS.reduce((m, e) => Math.max(m, e), 0);
  // the steps by their start, and by their number among those that start together
  const byStart = Int32Array.from(START.keys()).sort((a, b) => START[a] - START[b] || a - b);
  // the number in byStart of the last step begun by time T (-1: none)
  function begunBy(T) {
    let lo = 0;
    let hi = byStart.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (START[byStart[m]] <= T) lo = m + 1;
      else hi = m;
    }
    return lo - 1;
  }
  // the step at the clock: the latest begun (the first step before the rite begins)
  const stepAt = (T) => {
    const k = begunBy(T);
    return k < 0 ? byStart[0] : byStart[k];
  };
  // the acts under way at T, in the order they began
  function running(T) {
    const out = [];
    for (let k = begunBy(T); k >= 0 && START[byStart[k]] >= T - LONGEST; k--) {
      const i = byStart[k];
      if (ENDS[i] > T || START[i] === T) out.push(i);
    }
    return out.reverse();
  }
  const TRACKS = TM.w.map(([a, walks]) => ({
    name: D.T[a],
    walks: walks.map((w) => ({ i: w[0], p: w.slice(1) })),
  }));
  // where a walker is at T (尺): along the walk under way, or where the last one left him
  // (before his first, where it starts); and whether he is walking
  function trackAt(tr, T) {
    const ws = tr.walks;
    let k = -1;
    while (k + 1 < ws.length && ws[k + 1].p[2] <= T) k++;
    if (k < 0) return { x: ws[0].p[0], y: ws[0].p[1], walking: false };
    const p = ws[k].p;
    const n = p.length;
    if (T >= p[n - 1]) return { x: p[n - 3], y: p[n - 2], walking: false };
    for (let j = 0; j + 5 < n; j += 3)
      if (T <= p[j + 5]) {
        const u = p[j + 5] > p[j + 2] ? (T - p[j + 2]) / (p[j + 5] - p[j + 2]) : 1;
        return { x: p[j] + (p[j + 3] - p[j]) * u, y: p[j + 1] + (p[j + 4] - p[j + 1]) * u, walking: true };
      }
    return { x: p[n - 3], y: p[n - 2], walking: false };
  }
  // where the diagram of step i draws him: where his last walk up to i left him
  function trackAsOf(tr, i) {
    let w = null;
    for (const v of tr.walks) if (v.i <= i) w = v;
    if (!w) return { x: tr.walks[0].p[0], y: tr.walks[0].p[1] };
    return { x: w.p[w.p.length - 3], y: w.p[w.p.length - 2] };
  }
  let clock = 0;
  let timed = false; // the diagram shows the instant of the clock (playing, or paused in it)
  let raf = null;
  let lastFrame = 0;
  const speed = () => Number($("speed").value);
  const pad = (n) => String(n).padStart(2, "0");
  function clockText(T) {
    const s = Math.floor(T);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
  }
  let runningKey = "";
  function showClock() {
    $("clock").textContent = clockText(clock);
    document.body.dataset.clock = clock.toFixed(2);
    const ul = $("running");
    const acts = timed ? running(clock) : [];
    const key = acts.join(" ") + lang + script;
    if (key === runningKey) return;
    runningKey = key;
    ul.textContent = "";
    ul.hidden = acts.length < 2; // one act: the step shown says it
    if (ul.hidden) return;
    for (const i of acts) {
      const st = D.steps[i];
      const li = el("li", i === cur ? "now" : null, lang === "en" ? EN.t[EN.s[i]] : `${str(st.a)} ${str(st.v)}`);
      li.dataset.step = String(i);
      ul.appendChild(li);
    }
  }
  // the walkers of the instant, drawn in a layer above the plan: each a copy of his figure
  // (his own hidden meanwhile), or a plain one where the diagram has none of him
  function placeMovers() {
    const svg = stage.querySelector("svg");
    if (!svg) return;
    let layer = svg.querySelector("g.movers");
    if (!timed) {
      if (layer) layer.remove();
      for (const g of svg.querySelectorAll("g.person.moved")) g.classList.remove("moved");
      return;
    }
    const o = (svg.getAttribute("data-origin") || "").split(" ").map(Number);
    const s = Number(svg.getAttribute("data-scale"));
    if (o.length < 4 || !(s > 0)) return;
    const px = (x, y) => [o[0] + (x - o[2]) * s, o[1] + (o[3] - y) * s];
    if (!layer) {
      layer = svgEl("g", { class: "movers", "clip-path": "url(#plan-clip)" });
      svg.appendChild(layer);
      layer.byName = new Map();
      layer.here = persons(svg);
    }
    const seen = new Set();
    for (const tr of TRACKS) {
      const at = trackAt(tr, clock);
      const drawn = trackAsOf(tr, cur);
      if (!at.walking && Math.hypot(at.x - drawn.x, at.y - drawn.y) < 0.05) continue;
      seen.add(tr.name);
      const own = layer.here.get(tr.name);
      let g = layer.byName.get(tr.name);
      if (!g) {
        if (own) {
          g = own.cloneNode(true);
          for (const line of g.querySelectorAll("line.spread")) line.remove();
          g.classList.add("moving");
          own.classList.add("moved");
          // his name walks with him (the diagram's labels stay where it placed them)
          const body = g.querySelector("circle.body") || g.querySelector("circle");
          if (body && !g.querySelector("text")) {
            const r = Number(body.getAttribute("r")) || 6;
            const t = svgEl("text", { class: "mover-name", x: body.getAttribute("cx"),
              y: Number(body.getAttribute("cy")) - r - 3, "font-size": 10, "text-anchor": "middle",
              fill: "#c0392b" });
            t.textContent = tr.name;
            g.appendChild(t);
          }
        } else {
          const body = svg.querySelector("g.person circle.body");
          const r = (body && Number(body.getAttribute("r"))) || 6;
          const [cx, cy] = px(drawn.x, drawn.y);
          g = svgEl("g", { class: "person moving", "data-actor": tr.name, "data-x": drawn.x, "data-y": drawn.y });
          g.appendChild(svgEl("circle", { class: "body", cx, cy, r, fill: "#fff", stroke: "#333" }));
          const t = svgEl("text", { x: cx, y: cy - r - 3, "font-size": 10, "text-anchor": "middle" });
          t.textContent = tr.name;
          g.appendChild(t);
        }
        const [x0, y0] = px(Number(g.dataset.x), Number(g.dataset.y));
        g.x0 = x0;
        g.y0 = y0;
        layer.byName.set(tr.name, g);
        layer.appendChild(g);
        // a group walks as its leading member (the log gives his path): the other members
        // (衆賓2 …) keep their places about him
        g.members = [];
        if (own && !castNames.has(`${tr.name}2`))
          for (const [name, m] of layer.here)
            if (name.startsWith(tr.name) && /^\d+$/.test(name.slice(tr.name.length))) {
              const c = m.cloneNode(true);
              for (const line of c.querySelectorAll("line.spread")) line.remove();
              c.classList.add("moving", "member");
              m.classList.add("moved");
              layer.appendChild(c);
              g.members.push([c, m]);
            }
      }
      const [x, y] = px(at.x, at.y);
      const move = `translate(${(x - g.x0).toFixed(2)} ${(y - g.y0).toFixed(2)})`;
      g.setAttribute("transform", move);
      for (const [c] of g.members) c.setAttribute("transform", move);
      g.dataset.at = `${at.x.toFixed(2)} ${at.y.toFixed(2)}`;
      g.classList.toggle("walking", at.walking);
    }
    for (const [name, g] of layer.byName)
      if (!seen.has(name)) {
        g.remove();
        for (const [c, m] of g.members) {
          c.remove();
          m.classList.remove("moved");
        }
        layer.byName.delete(name);
        const own = layer.here.get(name);
        if (own) own.classList.remove("moved");
      }
  }
  // the clock set to T: the step it has begun, and everyone where he is at T
  function setClock(T) {
    clock = Math.max(0, Math.min(END, T));
    timed = true;
    const i = stepAt(clock);
    const shown = i !== cur ? go(i, { keepClock: true }) : undefined;
    showClock();
    placeMovers();
    return shown;
  }
  function play(on) {
    playing = on;
    $("play").textContent = on ? "‖" : "▶";
    $("play").setAttribute("aria-label", on ? "pause" : "play");
    cancelAnimationFrame(raf);
    raf = null;
    if (on) {
      if (clock >= END) clock = 0;
      timed = true;
      lastFrame = performance.now();
      raf = requestAnimationFrame(frame);
    }
  }
  // the clock on by ms of the reader's time, at the speed chosen
  function advance(ms) {
    return setClock(clock + (ms / 1000) * speed());
  }
  function frame(now) {
    if (!playing) return;
    advance(Math.min(now - lastFrame, 250)); // a hidden tab's long frame is not a leap
    lastFrame = now;
    if (clock >= END) return play(false);
    raf = requestAnimationFrame(frame);
  }

  // ---- two readings (docs/viewer.md, "Two readings"): with D.diff, this run is B and the
  // other, A, is drawn as ghosts (faint, dashed, named) where its people stand otherwise at
  // the step of A that stands against this one; the steps where the runs differ are listed
  // and can be stepped through; each reading apart is shown with its sources.
  const X = D.diff || null;
  function unruns(runs) {
    const out = new Int32Array(N);
    runs.forEach(([at, v], k) => out.fill(v, at, k + 1 < runs.length ? runs[k + 1][0] : N));
    return out;
  }
  const ghostOf = X ? unruns(X.g) : null;
  const atOf = X ? unruns(X.at) : null;
  const diffSteps = X ? [...new Set(X.items.map((it) => it[0]))].sort((a, b) => a - b) : [];
  const SVGNS = "http://www.w3.org/2000/svg";
  const GHOST = "#7d3c98";
  const FACE = { N: [0, 1], S: [0, -1], E: [1, 0], W: [-1, 0], NE: [0.7071, 0.7071],
    NW: [-0.7071, 0.7071], SE: [0.7071, -0.7071], SW: [-0.7071, -0.7071] };
  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }
  function drawGhosts(svg, i) {
    if (!X || ghostOf[i] < 0) return;
    // plan (尺, y north) to the diagram's px, as the diagram itself gives them
    const o = (svg.getAttribute("data-origin") || "").split(" ").map(Number);
    const b = (svg.getAttribute("data-bounds") || "").split(" ").map(Number);
    const s = Number(svg.getAttribute("data-scale"));
    if (o.length < 4 || b.length < 4 || !(s > 0)) return;
    const body = svg.querySelector("g.person circle.body");
    const r = (body && Number(body.getAttribute("r"))) || 6;
    const here = persons(svg);
    const layer = svgEl("g", { class: "ghosts", "clip-path": "url(#plan-clip)" });
    for (const [actor, x, y, facing] of X.G[ghostOf[i]]) {
      if (x < b[0] || x > b[2] || y < b[1] || y > b[3]) continue;
      const cx = o[0] + (x - o[2]) * s;
      const cy = o[1] + (o[3] - y) * s;
      const g = svgEl("g", { class: "ghost", "data-actor": actor, "data-x": x, "data-y": y,
        "data-cx": cx.toFixed(2), "data-cy": cy.toFixed(2), "data-facing": facing, opacity: 0.75 });
      const me = here.get(actor);
      if (me) // where he stands in this run
        g.appendChild(svgEl("line", { class: "ghost-link", x1: cx, y1: cy, x2: me.dataset.cx,
          y2: me.dataset.cy, stroke: GHOST, "stroke-width": 0.8, "stroke-dasharray": "2 3" }));
      g.appendChild(svgEl("circle", { cx, cy, r, fill: "none", stroke: GHOST,
        "stroke-width": 1.2, "stroke-dasharray": "3 2" }));
      const f = FACE[facing];
      if (f) g.appendChild(svgEl("line", { x1: cx, y1: cy, x2: cx + f[0] * r * 1.6,
        y2: cy - f[1] * r * 1.6, stroke: GHOST, "stroke-width": 1.2, "stroke-dasharray": "2 1" }));
      const t = svgEl("text", { x: cx, y: cy - r - 3, "font-size": 10, "text-anchor": "middle",
        fill: GHOST });
      t.textContent = `${actor} (A)`;
      g.appendChild(t);
      layer.appendChild(g);
    }
    svg.appendChild(layer);
  }
  function showDiffs(i) {
    if (!X) return;
    $("ghostat").textContent = `A ${L("step")} ${D.steps[i].q + atOf[i]}`;
    const ul = $("stepdiffs");
    ul.textContent = "";
    for (const [k, kind, cite, what] of X.items)
      if (k === i) ul.appendChild(el("li", null, `${kind} · ${cite}：${what}`));
    const at = diffSteps.indexOf(i);
    $("difflist").value = at >= 0 ? String(at) : "";
  }
  function nextDiff(dir) {
    const k = dir > 0 ? diffSteps.find((j) => j > cur) : [...diffSteps].reverse().find((j) => j < cur);
    return k == null ? undefined : go(k);
  }
  function setupDiff() {
    if (!X) return;
    $("diffnav").hidden = false;
    $("reading").hidden = false;
    const list = $("difflist");
    const none = document.createElement("option");
    none.value = "";
    none.textContent = `${diffSteps.length} 異`;
    list.appendChild(none);
    diffSteps.forEach((j, k) => {
      const kinds = [...new Set(X.items.filter((it) => it[0] === j).map((it) => it[1]))];
      const o = document.createElement("option");
      o.value = String(k);
      o.textContent = `${D.steps[j].q} ${D.steps[j].c} ${kinds.join(" ")}`;
      list.appendChild(o);
    });
    list.onchange = (e) => {
      if (e.target.value !== "") go(diffSteps[Number(e.target.value)]);
      e.target.blur();
    };
    $("prevdiff").onclick = () => nextDiff(-1);
    $("nextdiff").onclick = () => nextDiff(1);
    const box = $("readings");
    const setting = (w, x) =>
      `${w}: ${x.venue}; ${(x.readings || []).join(", ") || "—"}; ` +
      (Object.entries(x.options || {}).map(([k, v]) => `${k}=${v}`).join(", ") || "—");
    box.appendChild(el("p", "rd", setting("B (drawn)", X.b)));
    box.appendChild(el("p", "rd", setting("A (ghosts)", X.a)));
    for (const q of X.readings) {
      box.appendChild(el("h3", null, q.group));
      for (const rd of q.runs) {
        const d = el("div", `rd run-${rd.run}`);
        d.appendChild(el("b", null, rd.run.toUpperCase()));
        d.appendChild(el("code", null, rd.id));
        d.appendChild(document.createTextNode(` ${rd.text}`));
        const ul = el("ul");
        for (const src of rd.sources) ul.appendChild(el("li", null, src));
        d.appendChild(ul);
        box.appendChild(d);
      }
    }
  }

  // ---- search (docs/viewer.md, "Search"): a passage by its id (139, xiangshe:139), words of
  // a passage, of a step's 經 words or of what is said (traditional or simplified, and
  // English once shown), or a person (an actor, a role, a cast name). Each hit is a step:
  // the first of its passage, or the person's first in each passage he acts in.
  const MAX_HITS = 80;
  const firstOfPassage = new Map();
  D.steps.forEach((s, i) => {
    if (!firstOfPassage.has(s.c)) firstOfPassage.set(s.c, i);
  });
  const forms = (i) => {
    if (i == null || i < 0) return [];
    const out = [D.T[i]];
    if (D.S[i] != null) out.push(D.S[i]);
    if (EN && EN.x[i] != null) out.push(EN.x[i].toLowerCase());
    return out;
  };
  const has = (i, q) => forms(i).some((f) => f.includes(q));
  function search(query) {
    const q = query.trim();
    const ql = q.toLowerCase();
    const hits = [];
    if (!q) return hits;
    const seen = new Set();
    const add = (i, why) => {
      if (hits.length < MAX_HITS && !seen.has(i)) {
        seen.add(i);
        hits.push([i, why]);
      }
    };
    if (/^([a-z]+:)?\d+$/i.test(q))
      for (const [c, i] of firstOfPassage) if (c === q || c.endsWith(`:${q}`)) add(i, "pid");
    const people = new Set(D.cast.filter((c) => [c.a, c.r, c.n].some((k) => has(k, q) || has(k, ql))).map((c) => c.a));
    D.steps.forEach((s, i) => {
      if (people.has(s.a) && firstOfPassage.get(s.c) <= i && !hits.some(([j]) => D.steps[j].c === s.c && D.steps[j].a === s.a))
        add(i, "who");
    });
    for (const [c, i] of firstOfPassage) {
      const ps = D.passages[c];
      if (ps && has(ps.t, q)) add(i, "text");
      else if (lang === "en" && EN && EN.p[c] && EN.p[c][0] && EN.p[c][0].toLowerCase().includes(ql)) add(i, "text");
    }
    D.steps.forEach((s, i) => {
      if (has(s.j, q) || has(s.y, q)) add(i, "words");
    });
    return hits;
  }
  function showFound() {
    const box = $("found");
    const hits = search($("find").value);
    box.textContent = "";
    box.hidden = !$("find").value.trim();
    if (box.hidden) return hits;
    box.appendChild(el("p", "count", `${hits.length}${hits.length >= MAX_HITS ? "+" : ""}`));
    for (const [i, why] of hits) {
      const st = D.steps[i];
      const b = el("button", `hit ${why}`);
      b.type = "button";
      b.setAttribute("role", "option");
      b.dataset.step = String(i);
      b.appendChild(el("span", "q", `${st.q}`));
      b.appendChild(el("span", "c", st.c));
      b.appendChild(el("span", "who", `${tx(st.a)} ${lang === "en" ? "" : str(st.v)}`.trim()));
      const ps = D.passages[st.c];
      const text = ps ? str(ps.t) : "";
      b.appendChild(el("span", "t", text.length > 28 ? `${text.slice(0, 28)}…` : text));
      b.onclick = () => pick(i);
      box.appendChild(b);
    }
    return hits;
  }
  function pick(i) {
    $("found").hidden = true;
    $("find").blur();
    return go(i);
  }
  $("find").addEventListener("input", showFound);
  $("find").addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      const hits = showFound();
      if (hits.length) pick(hits[0][0]);
      e.preventDefault();
    } else if (e.key === "Escape") {
      $("found").hidden = true;
      $("find").blur();
    } else if (e.key === "ArrowDown") {
      const b = $("found").querySelector("button");
      if (b) b.focus();
      e.preventDefault();
    }
  });
  $("found").addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key === "ArrowDown" && t.nextElementSibling) t.nextElementSibling.focus();
    else if (e.key === "ArrowUp") (t.previousElementSibling && t.previousElementSibling.tagName === "BUTTON" ? t.previousElementSibling : $("find")).focus();
    else if (e.key === "Escape") {
      $("found").hidden = true;
      $("find").focus();
    } else return;
    e.preventDefault();
    e.stopPropagation();
  });
  document.addEventListener("click", (e) => {
    if (!e.target.closest || !e.target.closest("#found, #find")) $("found").hidden = true;
  });

  // ---- wiring
  $("first").onclick = () => go(0);
  $("last").onclick = () => go(N - 1);
  $("prev").onclick = () => go(nextIndex(cur, -1));
  $("next").onclick = () => go(nextIndex(cur, 1), { animate: true });
  $("play").onclick = () => play(!playing);
  $("scrub").max = String(N - 1);
  $("scrub").oninput = (e) => go(Number(e.target.value));
  // after a choice in a menu the keys step again (a focused menu would take the arrows)
  $("section").onchange = (e) => {
    go(Number(e.target.selectedOptions[0].dataset.step));
    e.target.blur();
  };
  $("round").onchange = (e) => {
    go(Number(e.target.selectedOptions[0].dataset.step));
    e.target.blur();
  };
  $("role").onchange = (e) => {
    chosen = e.target.value;
    const svg = stage.querySelector("svg");
    if (svg) mark(svg, cur);
    if ($("only").checked && chosen && !matches(cur)) go(nextIndex(cur, 1));
    e.target.blur();
  };
  $("speed").onchange = (e) => e.target.blur();
  const zoom = () => {
    const on = document.body.classList.toggle("zoom");
    $("zoom").setAttribute("aria-pressed", String(on));
  };
  $("zoom").onclick = zoom;
  $("only").onchange = () => {
    if ($("only").checked && chosen && !matches(cur)) go(nextIndex(cur, 1));
  };
  $("script").onclick = () => {
    script = script === "t" ? "s" : "t";
    document.body.dataset.script = script;
    fillMenus();
    go(cur, { keepHash: true });
    setHash(D.steps[cur].q);
  };
  // the language: "en" or "zh-Hant"/"zh-Hans" (the script as chosen); English is inflated
  // the first time it is shown
  async function setLang(to) {
    if (to === "en") await english();
    else if (to === "zh-Hans" || to === "zh-Hant") script = to === "zh-Hans" ? "s" : "t";
    lang = to === "en" ? "en" : "zh";
    document.body.dataset.script = script;
    fillMenus();
    return go(cur, { keepHash: true });
  }
  const toggleLang = () => setLang(lang === "en" ? (script === "s" ? "zh-Hans" : "zh-Hant") : "en").then(() => setHash(D.steps[cur].q));
  $("lang").onclick = toggleLang;
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "checkbox" && t.type !== "range")))
      return;
    if (t && t.closest && t.closest("#found")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    let done = true;
    if (e.key === "ArrowRight") go(nextIndex(cur, 1), { animate: true });
    else if (e.key === "ArrowLeft") go(nextIndex(cur, -1));
    else if (e.key === " ") play(!playing);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(N - 1);
    else if (e.key === "z") zoom();
    else if (e.key === "l") toggleLang();
    else if (e.key === "/") $("find").focus();
    else if (X && (e.key === "n" || e.key === "p")) nextDiff(e.key === "n" ? 1 : -1);
    else if (e.key === "PageDown") {
      const k = segIndex(D.sectionSegs, cur);
      if (k + 1 < D.sectionSegs.length) go(D.sectionSegs[k + 1][1]);
    } else if (e.key === "PageUp") {
      const k = segIndex(D.sectionSegs, cur);
      const start = D.sectionSegs[k][1];
      go(cur > start ? start : D.sectionSegs[Math.max(0, k - 1)][1]);
    } else done = false;
    if (done) e.preventDefault();
  });
  // a space on a focused button must not also click it
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && e.target && e.target.tagName === "BUTTON") e.preventDefault();
  });
  // #815 or #815&lang=en: the step, and the language if it is given
  function hashLang() {
    const m = /[&?]lang=([A-Za-z-]+)/.exec(location.hash);
    return m && ["en", "zh-Hant", "zh-Hans"].includes(m[1]) ? m[1] : null;
  }
  // #xiangshe:139: the first step of that passage (a scholar's reference, not a step)
  function fromHash() {
    clearTimeout(hashTimer); // a link followed wins over a step not yet in the address
    const key = decodeURIComponent(location.hash.slice(1).split("&")[0]);
    const q = Number(key);
    const i = q ? D.steps.findIndex((s) => s.q === q) : key.includes(":") ? D.steps.findIndex((s) => s.c === key) : -1;
    return i >= 0 ? go(i, { keepHash: true }) || true : false;
  }
  window.addEventListener("hashchange", async () => {
    const to = hashLang();
    if (to && to !== langName()) await setLang(to);
    fromHash();
  });

  // a figure's name on hover or tap (a crowd, 衆耦 waiting at 堂西, has one label for all:
  // each member is named here), from the figure's data-name or data-actor
  const tip = document.createElement("div");
  tip.id = "tip";
  tip.hidden = true;
  document.body.append(tip);
  function nameTip(e) {
    const g = e.target && e.target.closest ? e.target.closest("g.person[data-actor]") : null;
    if (!g) {
      tip.hidden = true;
      return;
    }
    const name = g.dataset.name || g.dataset.actor;
    tip.textContent = lang === "en" ? annEn(name) : simp(name);
    tip.style.left = `${e.clientX + 12}px`;
    tip.style.top = `${e.clientY + 12}px`;
    tip.hidden = false;
  }
  stage.addEventListener("pointerover", nameTip);
  stage.addEventListener("click", nameTip);
  stage.addEventListener("pointerleave", () => (tip.hidden = true));

  // the sticky diagram sits below the header, whose height depends on how it wraps
  const bar = $("bar");
  // (and on anything that changes it: the fonts arriving, another language's labels, the
  // two readings' menu): a stale height let the header cover the diagram's head
  const setBar = () => document.documentElement.style.setProperty("--bar", `${bar.offsetHeight}px`);
  window.addEventListener("resize", setBar);
  if (window.ResizeObserver) new ResizeObserver(setBar).observe(bar);

  const first = hashLang() || D.meta.lang;
  if (first === "en") await english();
  if (first === "en") lang = "en";
  else if (first === "zh-Hans") script = "s";
  document.body.dataset.script = script;
  fillMenus();
  setupDiff();
  setBar();
  if (!stage.querySelector("svg")) stage.textContent = "…"; // (the page's first diagram stays)
  await (fromHash() || go(0, { keepHash: true }));
  // for scripts and tests: the current step, a way to reach one, any step's SVG (a
  // Promise), and how many blobs were inflated and are kept
  window.sheli = {
    data: D,
    go,
    svg: async (i) => svgAt(i),
    get index() {
      return cur;
    },
    blobs: () => ({ lines: LINES.length, inflated: counts.inflated, kept: cache.size }),
    // the rite's time: the clock (seconds), setting it (a Promise when a diagram is on its
    // way), moving it on by ms of the reader's time at the speed chosen, and the rite's end
    get clock() {
      return clock;
    },
    setClock: async (T) => setClock(T),
    advance: async (ms) => advance(ms),
    end: END,
    // what the search box finds for a query: [step index, why] (pid, who, text, words)
    search,
    // the language shown ("en", "zh-Hant", "zh-Hans") and a way to choose it (a Promise)
    get lang() {
      return langName();
    },
    setLang,
    // with two runs: the steps where they differ (indices), and a jump to the next/previous
    diff: X ? { steps: diffSteps, next: () => nextDiff(1), prev: () => nextDiff(-1) } : null,
  };
  document.body.dataset.ready = "1";
})();
