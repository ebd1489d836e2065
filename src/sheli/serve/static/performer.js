/* A performer's view: their cues (state.cues, the steps in which their role acts),
   the one being performed now highlighted — or, between their acts, the next one — and
   scrolled into view when it changes. On a phone held in the hand. */

import { $, el, fill, live, statusLine, FACING, roundName, nameOf, getJSON } from "/static/api.js";
import { beatIndicator } from "/static/drum.js";

const event = JSON.parse($("event-data").textContent || "{}");
const status = statusLine($("status"));
const drum = beatIndicator($("beat"), { withSound: false });
let shownKey = null;

// a step's place in the rite: seq when the cue has one (the event log's number), else index
const posOf = (c, step) => (c.seq != null && step.seq != null ? [c.seq, step.seq] : [c.index, step.index]);

function cueItem(c, cls) {
  const where = [];
  if (c.place) where.push(c.place);
  if (c.facing) where.push(FACING[c.facing] || c.facing);
  if (c.holds && c.holds.length) where.push(`執 ${c.holds.join("、")}`);
  if (c.x_m != null && c.y_m != null) where.push(`(${Number(c.x_m).toFixed(2)} m, ${Number(c.y_m).toFixed(2)} m)`);
  return el(
    "li",
    { class: cls, dataset: { seq: String(c.seq ?? ""), index: String(c.index ?? "") } },
    el(
      "div",
      {},
      // a cue in which another addresses this role (命, 告 … to him): who, then the verb
      c.addressed && c.actor ? el("span", { class: "actor" }, `${c.actor} → `) : null,
      el("span", { class: "verb" }, c.verb || ""),
      " ",
      el("span", { class: "cite" }, `${c.cite || ""} · ${roundName(c.round)}`),
    ),
    c.says ? el("div", { class: "says" }, `「${c.says}」`) : null,
    el("div", { class: "jing" }, c.jing || ""),
    where.length ? el("div", { class: "soft" }, where.join(" · ")) : null,
    c.after ? el("div", { class: "soft" }, `after: ${c.after}`) : null,
  );
}

/* The stream carries the state without the cues (a phone gets a small message at each step);
   `cues_rev` says when the run, and so the cues, changed: they are fetched again then. */
let cueList = [];
let cueRev = null;
let lastState = null;
async function fetchCues() {
  try {
    const got = await getJSON("/api/cues");
    cueList = got.cues || [];
    cueRev = got.cues_rev;
  } catch {
    cueRev = null; // try again with the next state
    return;
  }
  if (lastState) draw(lastState);
}

function render(s) {
  lastState = s;
  if (Array.isArray(s.cues)) {
    cueList = s.cues;
    cueRev = s.cues_rev ?? cueRev;
  } else if (s.cues_rev != null && s.cues_rev !== cueRev) {
    cueRev = s.cues_rev;
    fetchCues();
  }
  draw(s);
}

function draw(s) {
  const step = s.step || {};
  $("now-actor").textContent = step.actor || "—";
  $("now-verb").textContent = step.verb || "";
  $("now-cite").textContent = step.cite || "";
  const cues = cueList;
  let nowI = -1;
  let nextI = -1;
  cues.forEach((c, i) => {
    const [a, b] = posOf(c, step);
    if (a === b) nowI = i;
    else if (a > b && nextI < 0) nextI = i;
  });
  const items = cues.map((c, i) => {
    const [a, b] = posOf(c, step);
    const cls = i === nowI ? "now" : i === nextI && nowI < 0 ? "next" : a < b ? "past" : "";
    return cueItem(c, cls);
  });
  fill($("cues"), ...(items.length ? items : [el("li", { class: "soft" }, "— 無 no cues for this role —")]));
  const target = nowI >= 0 ? nowI : nextI;
  if (nowI >= 0) $("until").textContent = "此步是你 · this step is yours";
  else if (nextI >= 0) {
    const [a, b] = posOf(cues[nextI], step);
    $("until").textContent = `下一個 your next cue: ${a - b} 步 steps ahead`;
  } else $("until").textContent = cues.length ? "你的部分已畢 · your part is done" : "";
  const who = (s.performer_role || document.body.dataset.performerRole || "").trim();
  const name = nameOf(s.event, who) || nameOf(event, who);
  if (name) document.title = `${who} (${name}) · sheli`;
  document.body.dataset.now = nowI >= 0 ? String(cues[nowI].seq ?? cues[nowI].index) : "";
  document.body.dataset.ready = "1";
  const key = target >= 0 ? `${target}` : null;
  if (key !== shownKey && target >= 0) {
    $("cues").children[target].scrollIntoView({ behavior: "smooth", block: "center" });
  }
  shownKey = key;
  drum.update(s.drum);
  $("beat").hidden = !(s.drum && s.drum.running);
}

live(render, status);
