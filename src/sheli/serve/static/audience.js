/* The audience screen: read-only, for a projector. The diagram of the step (the
   server draws it: GET /api/diagram/{seq}.svg), the 經 passage with the step's words marked,
   what is said, the 筭 right (上射) and left (下射) of the round as they fall — one rod a 筭,
   two together for a 純 — each announcement as the engine words it (右賢於左… / 左右鈞), and
   who drinks. Nothing here can change the event. In English (the button, key l, #lang=en in
   the address), the state's English is shown instead: the step's sentence, each
   announcement's; the screen's own words come with the page (#english). */

import { $, el, fill, live, statusLine, markedPassage, nameOf, roundName, diagramLoader } from "/static/api.js";
import { beatIndicator } from "/static/drum.js";
import { frameActing } from "/static/frame.js";
import { houFigure } from "/static/hou.js";
import { votePanel } from "/static/wuwu.js";

const event = JSON.parse($("event-data").textContent || "{}");
// the connection's state in the screen's language (EN.live …, the catalogue's English)
const status = statusLine($("status"), () =>
  english()
    ? { live: `● ${EN.live}`, reconnecting: `○ ${EN.reconnecting}`, revoked: `✕ ${EN.revoked}` }
    : null,
);
// framed on the bodies that act, to the shape of the screen's figure (frame.js)
const figure = $("diagram");
const main = document.querySelector("main");
/** The figure's widest: this share of the screen's width; narrower where the framed picture
    is (a shot's 侯道 is tall), the passage and the tally taking the rest. */
const DIAGRAM_MOST = 0.55;
/** In English the words are some twice as long (the text's terms after them, in brackets):
    the figure leaves them more of the width, so that they fit the screen at their size. */
const DIAGRAM_MOST_EN = 0.45;
/** At a shot the 侯道 (tall) takes at most this share of the pictures' width; the archer at
    his 物, near, the rest. */
const RANGE_MOST = 0.45;
const near = $("near");
let nearUrl = null;
let shooting = false; // the step shown is a shot: the range, and the archer near beside it
const showDiagram = diagramLoader(figure, {
  // framed to the widest the figure may be, then the figure cut to the picture's shape, so
  // that neither the framing nor the picture's shape leaves an empty band (live.css)
  transform: (svg) => {
    const info = {};
    const narrow = window.matchMedia("(max-width: 760px)").matches;
    const most = narrow ? figure.clientWidth : (english() ? DIAGRAM_MOST_EN : DIAGRAM_MOST) * main.clientWidth;
    const high = narrow ? 0.7 * window.innerHeight : figure.clientHeight;
    const twin = shooting && !narrow;
    const room = twin ? RANGE_MOST * most : most;
    const out = frameActing(svg, Math.max(0.2, room / Math.max(1, high)) || 16 / 9, info);
    const [, , w, h] = info.box || [0, 0, 16, 9];
    const width = Math.round(Math.min(room, (high * w) / h));
    figure.dataset.frame = JSON.stringify(info); // what is framed, for the tests
    near.hidden = !twin;
    figure.style.flex = twin ? `0 0 ${width}px` : "";
    if (!narrow) main.style.setProperty("--diagram-w", `${twin ? Math.round(most) : width}px`);
    figure.dataset.lang = lang; // the language it is framed for (its width), for the tests
    // the side is as wide as the figure leaves it: its lines are fitted again
    requestAnimationFrame(() => last && fitLines());
    if (twin) {
      // the same drawing framed on the archer alone, in the width the 侯道 leaves
      const gap = parseFloat(getComputedStyle($("pictures")).columnGap) || 0;
      const aspect = Math.max(0.2, (most - width - gap) / Math.max(1, high));
      const next = URL.createObjectURL(new Blob([frameActing(svg, aspect, null, { flights: false })], { type: "image/svg+xml" }));
      fill(near, el("img", { src: next, alt: "the archer at his 物" }));
      if (nearUrl) URL.revokeObjectURL(nearUrl);
      nearUrl = next;
    }
    return out;
  },
});
const drum = beatIndicator($("beat"));
const shown = { right: 0, left: 0, round: null };
const hou = houFigure($("hou"));
const vote = votePanel($("vote"), () => (english() ? EN : null));

// ---- the language: "zh-Hant" (the text's own) or "en"
const EN = JSON.parse($("english")?.textContent || "{}");
let lang = /(^|[#&])lang=en\b/.test(location.hash) && EN.tally ? "en" : "zh-Hant";
let last = null; // the state shown, drawn again when the language changes
const english = () => lang === "en";
const roundOf = (r) => (english() ? (EN[`round${r}`] ?? (r == null ? "" : `round ${r}`)) : roundName(r));
function setLang(to) {
  lang = to === "en" && EN.tally ? "en" : "zh-Hant";
  document.documentElement.lang = lang;
  document.body.dataset.lang = lang;
  $("lang").textContent = english() ? "中文" : "EN";
  $("lang").setAttribute("aria-pressed", String(english()));
  for (const node of document.querySelectorAll("[data-l]")) {
    if (node.dataset.zh == null) node.dataset.zh = node.textContent;
    node.textContent = english() ? EN[node.dataset.l] + (node.dataset.sep ? ": " : "") : node.dataset.zh;
  }
  const h1 = document.querySelector("header.bar h1");
  if (h1) {
    if (h1.dataset.zh == null) h1.dataset.zh = h1.textContent;
    h1.textContent = english() ? event.title_en || h1.dataset.zh : h1.dataset.zh;
  }
  const hash = english() ? "#lang=en" : "";
  if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname + location.search);
  status.again();
  showDiagram.again(); // framed anew to the width the language leaves it
  if (last) render(last);
}
$("lang").onclick = () => setLang(english() ? "zh-Hant" : "en");
document.addEventListener("keydown", (e) => {
  if (e.key === "l" && !e.altKey && !e.ctrlKey && !e.metaKey && !/^(INPUT|SELECT|TEXTAREA)$/.test(e.target?.tagName || ""))
    setLang(english() ? "zh-Hant" : "en");
});
window.addEventListener("hashchange", () => setLang(/(^|[#&])lang=en\b/.test(location.hash) ? "en" : "zh-Hant"));

/** The round's arrows on the 侯 where they struck (the marks the scorers tapped). */
function renderMarks(s) {
  const marks = s.marks || [];
  $("hou-card").hidden = !marks.length;
  if (!marks.length) return;
  const name = marks[marks.length - 1].hou || "";
  $("hou-name").textContent = english() && name ? `(${name})` : name;
  hou.show(name).then(() => hou.mark(marks.filter((m) => (m.hou || "") === name))).catch(() => {});
}

/** n rods in `node`, in 純 (twos) and a 奇; the ones beyond `before` fall in. */
function rods(node, n, before) {
  const groups = [];
  for (let i = 0; i < n; i += 2) {
    const g = el("span", { class: "chun" });
    for (let j = i; j < Math.min(n, i + 2); j++) g.append(el("span", { class: j >= before ? "rod new" : "rod" }));
    groups.push(g);
  }
  fill(node, ...groups);
}

/** The passage and the history show whole lines only, on a screen whose height is fixed (a
    projector: live.css): a history entry that does not fit whole is left out (the latest
    come first), and the history's box with it when none fits (no empty card, nor one cut at
    the screen's foot); the passage is cut to the lines its box then holds and scrolled to the
    step's words, a line of context above where it holds three lines or more. */
function fitLines() {
  const jing = $("jing");
  jing.style.maxHeight = "";
  const history = $("history");
  const historyBox = $("history-box");
  historyBox.hidden = false;
  for (const li of history.children) li.hidden = false;
  if (getComputedStyle(jing).overflowY !== "hidden") return; // a phone: the page scrolls
  const foot = $("side").getBoundingClientRect().bottom;
  const bottom = Math.min(foot, historyBox.getBoundingClientRect().bottom);
  let over = false;
  for (const li of history.children) li.hidden = over ||= li.getBoundingClientRect().bottom > bottom;
  historyBox.hidden = ![...history.children].some((li) => !li.hidden);
  const lh = parseFloat(getComputedStyle(jing).lineHeight) || 1;
  const lines = Math.max(1, Math.floor(jing.clientHeight / lh));
  jing.style.maxHeight = `${lines * lh}px`;
  // the line where the step's words begin (a mark broken over two lines: its first), and
  // no empty line under the passage's end: the box ends on its last line
  const first = jing.querySelector("mark")?.getClientRects()[0];
  const at = first ? first.top - jing.getBoundingClientRect().top + jing.scrollTop : 0;
  const end = Math.max(0, jing.scrollHeight - lines * lh);
  jing.scrollTop = Math.min(end, Math.max(0, at - (lines >= 3 ? lh : 0)));
}
window.addEventListener("resize", () => last && fitLines());

function render(s) {
  last = s;
  const E = english();
  const st = s.step || {};
  // the hall when they act in the hall; the range when an arrow flies (射: the 侯 with him)
  shooting = st.verb === "射";
  if (!shooting) near.hidden = true;
  showDiagram(st.seq, shooting ? "range" : "");
  $("round-name").textContent = roundOf(st.round ?? s.round);
  // in English the sentence says who does what, where, and the words said
  document.querySelector("#step .who").hidden = E;
  $("sentence").hidden = !E;
  $("sentence").textContent = E ? st.en || "" : "";
  $("actor").textContent = st.actor || "";
  const name = st.name || nameOf(s.event, st.actor) || nameOf(event, st.actor);
  $("actor-name").textContent = name ? `(${name})` : "";
  $("verb").textContent = st.verb || "";
  $("says").hidden = !st.says || E;
  $("says").textContent = st.says ? `「${st.says}」` : "";
  const p = s.passage || {};
  $("cite").textContent = p.cite || st.cite || "";
  $("section").textContent = st.section != null ? `${E ? EN.section : "賈疏"} §${st.section}` : "";
  markedPassage($("jing"), p.text || st.jing || "", st.jing);

  const t = s.tally || {};
  const round = t.round ?? null;
  const right = Number(t.right) || 0;
  const left = Number(t.left) || 0;
  if (round !== shown.round) {
    shown.right = 0;
    shown.left = 0;
  }
  $("tally-round").textContent = round ? roundOf(round) : "";
  const note = round === 1 ? ["notCounted", "獲而未釋獲", 150] : round === 3 ? ["drum", "不鼓不釋", 248] : null;
  $("tally-note").textContent = note ? `${E ? EN[note[0]] : note[1]} (xiangshe:${note[2]})` : "";
  // the count's announcement in English: its round's, in the announcements so far
  const told = t.announcement ? (s.announcements || []).find((a) => a.round === round) : null;
  const tEn = (told && told.en) || "";
  $("tally-en").hidden = !E || !tEn;
  $("tally-en").textContent = E ? tEn : "";
  $("right-count").textContent = String(right);
  $("left-count").textContent = String(left);
  rods($("right-rods"), right, shown.right);
  rods($("left-rods"), left, shown.left);
  Object.assign(shown, { right, left, round });

  const box = $("announce");
  box.hidden = !t.announcement;
  $("announce-text").textContent = (E ? tEn : t.announcement) || "";
  document.body.dataset.announcement = t.announcement || "";
  document.body.dataset.right = String(right);
  document.body.dataset.left = String(left);
  document.body.dataset.seq = String(st.seq ?? "");

  // who drinks: the last round's, large, each round in one line; the earlier rounds' drinks
  // and every announcement in the history, the latest first
  const rounds = [...new Set((s.drinks || []).map((d) => d.round))];
  const drinkLine = (r) => {
    const who = (s.drinks || []).filter((d) => d.round === r);
    const names = who.flatMap((d, i) => [
      i ? (E ? ", " : "、") : "",
      el("b", {}, E ? d.en || `(${d.who || ""})` : d.who || ""),
      d.name ? ` (${d.name})` : "",
    ]);
    // the round and 飲不勝者 said small, as the announcement's 釋獲者告: the names are the key
    return el(
      "li",
      { dataset: { round: String(r) } },
      el("span", { class: "soft" }, E ? `${roundOf(r)}: ${EN.drink}: ` : `${roundName(r)}：飲不勝者 `),
      el("span", { class: "who" }, ...names),
    );
  };
  const lastRound = rounds.length ? rounds[rounds.length - 1] : null;
  fill($("drinks"), ...(lastRound == null ? [] : [drinkLine(lastRound)]));
  $("drinks-box").hidden = lastRound == null;
  const saidLines = (s.announcements || []).map((a) => [
    a.round,
    0,
    E
      ? el("li", { dataset: { round: String(a.round) } }, `${roundOf(a.round)}: ${EN.announce}: `, el("b", {}, a.en || ""))
      : el("li", { dataset: { round: String(a.round) } }, `${roundName(a.round)}：釋獲者告 `, el("b", {}, a.text || "")),
  ]);
  const drunk = rounds.filter((r) => r !== lastRound).map((r) => [r, 1, drinkLine(r)]);
  // the latest first: a round's drink after its announcement
  fill($("history"), ...[...saidLines, ...drunk].sort((a, b) => b[0] - a[0] || b[1] - a[1]).map((x) => x[2]));
  renderMarks(s);
  vote.update(s);
  drum.update(s.drum);
  $("beat-box").hidden = !(s.drum && s.drum.running);
  fitLines();
  document.body.dataset.ready = "1";
}

// ---- a "next moment": the acts it passed over, played at the timeline's pace before its
// first step (the state's `play`: each act's `at` in seconds after the move, the whole at most
// 20 s, docs/serve.md); a state that comes meanwhile is shown at the end, a new move at once
let played = null; // the version of the move played (or being played)
let playing = null;
let timers = [];
let latest = null;
function onState(s) {
  latest = s;
  const p = s.play;
  if (p && playing === p.version) return; // shown when the play ends
  timers.forEach(clearTimeout);
  timers = [];
  playing = null;
  const since = p ? (s.server_ms ?? p.t_ms) - p.t_ms : 0;
  if (!p || p.version === played || !(p.frames || []).length || since >= p.seconds * 1000) {
    if (p) played = p.version;
    document.body.dataset.playing = "";
    return render(s);
  }
  played = playing = p.version;
  document.body.dataset.playing = "1";
  for (const f of p.frames) {
    const wait = f.at * 1000 - since;
    if (wait >= 0) timers.push(setTimeout(() => render({ ...s, step: f, passage: { cite: f.cite } }), wait));
  }
  timers.push(setTimeout(() => {
    playing = null;
    document.body.dataset.playing = "";
    render(latest);
  }, p.seconds * 1000 - since));
}

setLang(lang);
live(onState, status);
