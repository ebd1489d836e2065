/* The audience screen: read-only, for a projector. The diagram of the step (the
   server draws it: GET /api/diagram/{seq}.svg), the 經 passage with the step's words marked,
   what is said, the 筭 right (上射) and left (下射) of the round as they fall — one rod a 筭,
   two together for a 純 — each announcement as the engine words it (右賢於左… / 左右鈞), and
   who drinks. Nothing here can change the event. */

import { $, el, fill, live, statusLine, markedPassage, nameOf, roundName, diagramLoader } from "/static/api.js";
import { beatIndicator } from "/static/drum.js";
import { frameActing } from "/static/frame.js";
import { houFigure } from "/static/hou.js";
import { votePanel } from "/static/wuwu.js";

const event = JSON.parse($("event-data").textContent || "{}");
const status = statusLine($("status"));
// framed on the bodies that act, to the shape of the screen's figure (frame.js)
const figure = $("diagram");
const showDiagram = diagramLoader(figure, {
  // the figure is as wide as its column and at most 86vh high (live.css)
  transform: (svg) => {
    const info = {};
    const aspect = Math.max(0.5, figure.clientWidth / Math.max(1, 0.86 * window.innerHeight)) || 16 / 9;
    const out = frameActing(svg, aspect, info);
    figure.dataset.frame = JSON.stringify(info); // what is framed, for the tests
    return out;
  },
});
const drum = beatIndicator($("beat"));
const shown = { right: 0, left: 0, round: null };
const hou = houFigure($("hou"));
const vote = votePanel($("vote"));

/** The round's arrows on the 侯 where they struck (the marks the scorers tapped). */
function renderMarks(s) {
  const marks = s.marks || [];
  $("hou-card").hidden = !marks.length;
  if (!marks.length) return;
  const name = marks[marks.length - 1].hou || "";
  $("hou-name").textContent = name;
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

function render(s) {
  const st = s.step || {};
  // the hall when they act in the hall; the range when an arrow flies (射: the 侯 with him)
  showDiagram(st.seq, st.verb === "射" ? "range" : "");
  $("round-name").textContent = roundName(st.round ?? s.round);
  $("actor").textContent = st.actor || "";
  const name = st.name || nameOf(s.event, st.actor) || nameOf(event, st.actor);
  $("actor-name").textContent = name ? `(${name})` : "";
  $("verb").textContent = st.verb || "";
  $("says").hidden = !st.says;
  $("says").textContent = st.says ? `「${st.says}」` : "";
  const p = s.passage || {};
  $("cite").textContent = p.cite || st.cite || "";
  $("section").textContent = st.section != null ? `賈疏 §${st.section}` : "";
  markedPassage($("jing"), p.text || st.jing || "", st.jing);

  const t = s.tally || {};
  const round = t.round ?? null;
  const right = Number(t.right) || 0;
  const left = Number(t.left) || 0;
  if (round !== shown.round) {
    shown.right = 0;
    shown.left = 0;
  }
  $("tally-round").textContent = round ? roundName(round) : "";
  $("tally-note").textContent = round === 1 ? "獲而未釋獲 (xiangshe:150)" : round === 3 ? "不鼓不釋 (xiangshe:248)" : "";
  $("right-count").textContent = String(right);
  $("left-count").textContent = String(left);
  rods($("right-rods"), right, shown.right);
  rods($("left-rods"), left, shown.left);
  Object.assign(shown, { right, left, round });

  const box = $("announce");
  box.hidden = !t.announcement;
  $("announce-text").textContent = t.announcement || "";
  document.body.dataset.announcement = t.announcement || "";
  document.body.dataset.right = String(right);
  document.body.dataset.left = String(left);
  document.body.dataset.seq = String(st.seq ?? "");

  fill($("history"), ...(s.announcements || []).map((a) =>
    el("li", { dataset: { round: String(a.round) } }, `${roundName(a.round)}：釋獲者告 `, el("b", {}, a.text || "")),
  ));
  fill($("drinks"), ...(s.drinks || []).map((d) =>
    el("li", {}, `${roundName(d.round)}：飲不勝者 `, el("b", {}, d.who || ""), d.name ? ` (${d.name})` : ""),
  ));
  renderMarks(s);
  vote.update(s);
  drum.update(s.drum);
  $("beat-box").hidden = !(s.drum && s.drum.running);
  document.body.dataset.ready = "1";
}

live(render, status);
