/* The live pages in English (docs/serve.md, "In English"): the director's, the scorers',
   the performers' and the home page. The pages are written in the text's terms, as the rest
   of the interface; in English every word a reader sees is put as the English 儀注 puts it,
   the English first and the text's term after it in brackets:
   - a string of the interface by its English in the gettext catalogue (GET /english.json:
     "ui", the catalogue's entries for these pages, by their message ids);
   - a label the page gives in both (禮 rite, 設射禮 · create an event) as "rite (禮)";
   - any other run of the text's script by the catalogue's English where it is a word of the
     pages (步 1 / 73: step 1 / 73), else by the glossary's English of its terms ("terms":
     司射 → director of archery (司射)), or alone in brackets where it has none.
   The 經 (.jing) stays as the text gives it. What the scripts write later is put in English
   as it comes (a MutationObserver), so the pages' scripts stay as they are. The switch: the
   button (#page-lang), key l, or #lang=en in the address; the choice is kept in this
   browser (localStorage). Back to the text's terms, the page is loaded again. */

const CJK = /[\u2e80-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u{20000}-\u{3ffff}]/u;
// full-width punctuation as the English writes it (「」 stay: they quote the text)
const PUNCT = { "：": ": ", "，": ", ", "、": ", ", "；": "; ", "。": ". ", "（": " (", "）": ")", "　": " " };
const SKIP = "script, style, textarea, .jing, #page-lang, [data-no-english]";
const KEY = "sheli.lang";

let W = null; // {ui: {message id: English}, terms: {term: English}}
const set = new WeakMap(); // text node → the English this module put in it

// a term of the text: listed, or read as the listed terms it is made of (上耦上射: upper pair,
// upper archer), a number kept; null when some part has no English
function termEn(run) {
  if (W.terms[run] != null) return W.terms[run];
  const out = [];
  let rest = run;
  while (rest) {
    const num = /^[0-9]+/.exec(rest);
    if (num) {
      out.push(num[0]);
      rest = rest.slice(num[0].length);
      continue;
    }
    let end = rest.length;
    while (end > 0 && W.terms[rest.slice(0, end)] == null) end--;
    if (!end) return null;
    out.push(W.terms[rest.slice(0, end)]);
    rest = rest.slice(end);
  }
  return out.join(" ");
}

// each run of the text's script outside brackets, as its English with the run in brackets
function glossed(s) {
  let out = "";
  let run = "";
  let depth = 0;
  const flush = () => {
    if (!run) return;
    // a word of the interface (步 1 / 73, ◀◀ 前節), a term, or the text's words alone
    const ui = W.ui[run];
    const en = ui != null || run[0] === "「" ? null : termEn(run);
    out += ui ?? (en ? `${en} (${run})` : `(${run})`);
    run = "";
  };
  for (const ch of s) {
    if (depth === 0 && CJK.test(ch) && !(ch in PUNCT)) {
      run += ch;
      continue;
    }
    flush();
    if (ch in PUNCT && depth === 0) {
      out += PUNCT[ch];
      continue;
    }
    if (ch === "(") depth++;
    else if (ch === ")" && depth > 0) depth--;
    out += ch;
  }
  flush();
  return out.replace(/ {2,}/g, " ").replace(/ \)/g, ")").replace(/\( /g, "(");
}

/** A string of a page in English (unchanged where nothing of the text's script is outside
 * brackets). */
export function english(text) {
  const key = text.trim();
  if (!key || !CJK.test(key)) return text;
  const lead = text.slice(0, text.indexOf(key));
  const tail = text.slice(lead.length + key.length);
  const ui = W.ui[key];
  if (ui != null) return lead + ui + tail;
  // a label in both: the text's words, then the English (禮 rite, 時 · timing, 新的射禮 (new
  // event)): the English first
  const paired = /^([^A-Za-z(]*[^\sA-Za-z(])\s*\(([A-Za-z][A-Za-z]+ [^()]*)\)$/u.exec(key);
  if (paired && CJK.test(paired[1])) return `${lead}${paired[2]} (${paired[1].trim()})${tail}`;
  const both = /^([^A-Za-z(]*?)\s*[·:]?\s+([A-Za-z][^]*)$/u.exec(key);
  if (both && CJK.test(both[1]) && !glossed(both[2]).includes("(" + both[1].trim())) {
    const zh = both[1].replace(/[·\s]+$/u, "").trim();
    const en = glossed(both[2]);
    const lone = /^[^\p{L}\p{N}]*/u.exec(zh)[0]; // a sign before the words (◀◀, ＋) stays first
    return `${lead}${lone}${en} (${zh.slice(lone.length).trim() || zh})${tail}`;
  }
  return lead + glossed(key) + tail;
}

function skip(node) {
  const p = node.parentElement;
  return !p || !!p.closest(SKIP);
}
function textNode(n) {
  if (skip(n) || set.get(n) === n.nodeValue) return;
  const en = english(n.nodeValue);
  if (en !== n.nodeValue) {
    n.nodeValue = en;
    set.set(n, en);
  }
}
const ATTRS = ["placeholder", "title", "aria-label"];
// an attribute a reader meets (a field's hint, a button's name), in English: set only when
// it changes, or setting it would be a change to answer again
function attribute(e, a) {
  const v = e.getAttribute(a);
  if (!v || !CJK.test(v)) return;
  const en = english(v);
  if (en !== v) e.setAttribute(a, en);
}
function element(e) {
  if (e.closest(SKIP)) return;
  for (const a of ATTRS) attribute(e, a);
  const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) textNode(n);
    else if (!n.closest(SKIP)) for (const a of ATTRS) attribute(n, a);
  }
}

function chosen() {
  const m = /(^|[#&])lang=(en|zh-Hant)\b/.exec(location.hash);
  if (m) return m[2];
  try {
    return localStorage.getItem(KEY) || "zh-Hant";
  } catch {
    return "zh-Hant";
  }
}
function keep(lang) {
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    /* a browser that keeps nothing: the address says it */
  }
}

async function toEnglish() {
  if (!W) {
    const r = await fetch("/english.json", { credentials: "same-origin" });
    W = await r.json();
  }
  document.documentElement.lang = "en";
  document.body.dataset.lang = "en";
  document.title = english(document.title);
  element(document.body);
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.type === "characterData") textNode(c.target);
      else if (c.type === "attributes") {
        if (!c.target.closest(SKIP)) attribute(c.target, c.attributeName);
      } else
        for (const n of c.addedNodes) {
          if (n.nodeType === Node.TEXT_NODE) textNode(n);
          else if (n.nodeType === Node.ELEMENT_NODE) element(n);
        }
    }
  }).observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ATTRS,
  });
  const b = document.getElementById("page-lang");
  if (b) {
    b.textContent = "中文";
    b.setAttribute("aria-pressed", "true");
    set.set(b.firstChild, "中文");
  }
  document.body.dataset.english = "1";
}

function toggle() {
  const to = document.body.dataset.lang === "en" ? "zh-Hant" : "en";
  keep(to);
  const hash = location.hash.replace(/(^#|&)lang=[A-Za-z-]+/, "").replace(/^#&/, "#");
  if (to === "en") {
    history.replaceState(null, "", `${location.pathname}${location.search}${hash && hash !== "#" ? `${hash}&` : "#"}lang=en`);
    return toEnglish();
  }
  // back to the text's terms: the page as the server gives it
  history.replaceState(null, "", `${location.pathname}${location.search}${hash === "#" ? "" : hash}`);
  location.reload();
  return null;
}

const button = document.getElementById("page-lang");
if (button) {
  button.onclick = toggle;
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key !== "l" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    toggle();
  });
  if (chosen() === "en") toEnglish();
}
