/* A scorer's view: the arrows of this 物 (or both) in the order of shooting;
   中 / 不中 for the next one. Each press is one POST with its own key, retried with the same
   key if the answer is lost; the arrow is marked "sending" meanwhile, so the next press goes to
   the next arrow. A 409 (the other scorer, or another device, has that arrow already) is shown
   with what is recorded, and nothing is counted twice. A correction is a new entry with a
   reason. In the third round a hit is marked on or off the drum (不鼓不釋, xiangshe:248); the
   TAP button sends the time of a release so the server can judge it against the beats. */

import {
  $, el, fill, post, live, statusLine, showError, clock, page, roundName, shotsOf, roundInPlay,
  shotWords, archerLabel, ApiError,
} from "/static/api.js";
import { beatIndicator } from "/static/drum.js";
import { houFigure } from "/static/hou.js";

const event = JSON.parse($("event-data").textContent || "{}");
const status = statusLine($("status"));
const drum = beatIndicator($("beat"));
const seat = page.seat || "both";
let S = null;
let picked = null; // a round chosen by hand (to look back or correct); null: follow the rite
const inflight = new Map(); // arrow id → {hit, on_beat} sent and not yet in the state
let correcting = null; // the shot being corrected
let cChoice = { hit: null, on_beat: null };
// where the next arrow struck, tapped on the 侯: {x, y, onHou, kind: 貫 | 白矢 | 不貫 | 不中}
let spot = null;
const KINDS = ["貫", "白矢", "不貫"]; // a second tap on the mark: 貫 → 白矢 (貫而過) → 不貫 → 貫
const hou = houFigure($("hou"), { onTap: tapHou });

const idOf = (x) => `${x.round}|${x.pair}|${x.seat}|${x.arrow}`;
const mine = (x) => seat === "both" || x.seat === seat;

function currentRound() {
  return picked ?? roundInPlay(S);
}
function myShots() {
  return shotsOf(S, currentRound()).filter(mine);
}
function nextArrow() {
  return myShots().find((x) => x.hit == null && !inflight.has(idOf(x))) || null;
}

function say(kind, text) {
  const m = $("msg");
  m.dataset.kind = kind;
  m.textContent = text;
}

function renderRoundPick() {
  const sel = $("round-pick");
  const rounds = [...new Set(((S && S.shots) || []).map((x) => x.round).filter((r) => r > 0))].sort();
  const want = ["", ...rounds.map(String)];
  const have = [...sel.options].map((o) => o.value);
  if (want.join() !== have.join()) {
    fill(sel, el("option", { value: "" }, "隨禮 follow"), ...rounds.map((r) => el("option", { value: String(r) }, roundName(r))));
  }
  sel.value = picked == null ? "" : String(picked);
}

function render(s) {
  if (s) S = s;
  if (!S) return;
  // an arrow the state now shows as recorded is no longer in flight
  for (const x of S.shots || []) if (x.hit != null) inflight.delete(idOf(x));
  const r = currentRound();
  const shots = myShots();
  const next = nextArrow();
  $("round-name").textContent = roundName(r);
  const done = shots.filter((x) => x.hit != null).length;
  $("progress").textContent = shots.length ? `${done} / ${shots.length}` : "";
  renderRoundPick();
  const now = $("arrow-now");
  if (next) {
    fill(now, el("span", { class: "archer" }, archerLabel(next, event)), ` · 第${next.arrow}矢`, seat === "both" ? ` · ${next.seat}` : "");
  } else if (shots.length) {
    fill(now, "本番已記畢 · all arrows recorded");
  } else {
    fill(now, r > 0 ? "—" : "未射 · no shooting now");
  }
  $("hit").disabled = !next;
  $("miss").disabled = !next;
  $("tap").disabled = !next;
  // a release can be judged only against a running drum (the server refuses a tap without it)
  $("tap").hidden = !(r === 3 && S.drum && S.drum.running);
  $("ondrum").hidden = r !== 3;
  $("drum-box").hidden = !(r === 3 || (S.drum && S.drum.running));
  drum.update(S.drum);
  document.body.dataset.round = String(r);
  document.body.dataset.next = next ? idOf(next) : "";
  document.body.dataset.done = String(done);
  renderArrows(shots, next);
  renderHou(shots, next);
  document.body.dataset.ready = "1";
}

// ---------------------------------------------------------------- the 侯: where it struck
function spotWords(sp) {
  if (!sp) return "";
  const at = `(${sp.x >= 0 ? "右" : "左"}${Math.abs(sp.x)}尺, ${sp.y >= 0 ? "上" : "下"}${Math.abs(sp.y)}尺)`;
  const what = { 貫: "中 貫 (hit, pierced)", 白矢: "中 白矢 (went through)", 不貫: "著而不貫 (struck, did not pierce: 不貫不釋)", 不中: "不中 (off the 侯)" }[sp.kind];
  return `${what} ${at}`;
}

function tapHou(p) {
  if (!nextArrow()) return;
  const near = spot && Math.hypot(p.x - spot.x, p.y - spot.y) <= 1.5;
  if (near && spot.onHou) {
    spot.kind = KINDS[(KINDS.indexOf(spot.kind) + 1) % KINDS.length];
  } else {
    spot = { x: p.x, y: p.y, onHou: p.onHou, kind: p.onHou ? "貫" : "不中" };
  }
  render();
}

function spotFields(sp) {
  return sp ? { x: sp.x, y: sp.y, ...(sp.kind === "白矢" ? { through: true } : {}) } : {};
}

function renderHou(shots, next) {
  const want = next ? next.hou : (shots[0] && shots[0].hou) || "";
  hou.show(want).then(() => {
    const marks = shots.filter((x) => x.x != null && x.y != null).map((x) => ({ ...x }));
    if (spot && next) marks.push({ ...spot, seat: next.seat, arrow: next.arrow, pair: next.pair, hit: spot.kind === "貫" || spot.kind === "白矢", through: spot.kind === "白矢", pending: true });
    hou.mark(marks);
  }).catch((e) => say("error", e.message));
  $("hou-spot").textContent = spot ? spotWords(spot) : "點侯 tap where the arrow struck";
  $("hou-record").disabled = !(spot && next);
  $("hou-record").textContent = spot ? `記 record: ${spot.kind === "貫" || spot.kind === "白矢" ? "中" : "不中"}${spot.kind === "白矢" ? " 白矢" : ""}` : "記 record";
  document.body.dataset.spot = spot ? spot.kind : "";
}

function renderArrows(shots, next) {
  const rows = shots.map((x) => {
    const id = idOf(x);
    const sending = inflight.get(id);
    let result = sending ? `${shotWords({ ...x, ...sending })} …` : shotWords(x);
    if (x.corrections) result += ` (改×${x.corrections})`;
    if (x.hit == null && x.shot === false) result = "未發"; // the director has not reached it
    if (x.tap && typeof x.tap.offset_ms === "number") result += ` · 發${x.tap.offset_ms >= 0 ? "+" : ""}${x.tap.offset_ms}ms`;
    const btn = x.hit != null ? el("button", { type: "button", class: "fix", "aria-label": `correct ${x.pair}${x.seat} arrow ${x.arrow}` }, "改") : null;
    if (btn) btn.addEventListener("click", () => openCorrect(x));
    const cls = [next && id === idOf(next) ? "next" : "", x.hit == null ? "pending" : x.hit ? "hit" : "miss"].join(" ");
    return el(
      "tr",
      { class: cls, dataset: { id } },
      el("td", {}, archerLabel(x, event)),
      el("td", { class: "num" }, String(x.arrow)),
      el("td", { class: `shot ${x.hit == null ? "pending" : x.hit ? "hit" : "miss"}` }, result),
      el("td", {}, btn),
    );
  });
  fill($("arrows"), ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "4", class: "soft" }, "—"))]));
}

// ---------------------------------------------------------------- recording
function conflictText(e) {
  const ex = (e.body && e.body.existing) || {};
  const what = ex.hit == null ? "" : ` 已記為「${shotWords(ex)}」`;
  return `衝突 conflict: this arrow is already recorded${what}. Nothing was counted twice. If it is wrong, use 改 to correct it. (${e.message})`;
}

async function record(hit) {
  const x = nextArrow();
  if (!x) return;
  const where = spotFields(spot);
  // what else it struck (a 過, dashe:182's 維綱 …): not a 貫, so a miss; a person is not on the 侯
  const struck = $("struck").value;
  if (struck) {
    hit = false;
    where.struck = struck;
    if (struck === "人") {
      delete where.x;
      delete where.y;
    }
  }
  if ($("flight").checked) where.flight = "剡注";
  if (!hit) delete where.through; // a miss did not go through
  spot = null;
  $("struck").value = "";
  $("flight").checked = false;
  const r = x.round;
  // 應鼓 / 不應鼓 as marked; "mixed" after a TAP: null, and the server judges the tap
  const mark = $("ondrum").getAttribute("aria-pressed");
  const onBeat = r === 3 && hit && mark !== "mixed" ? mark === "true" : null;
  const id = idOf(x);
  inflight.set(id, { hit, on_beat: onBeat });
  setOnDrum(true); // each hit is judged afresh
  say("sending", `… ${x.pair}${x.seat} 第${x.arrow}矢 ${hit ? "中" : "不中"}`);
  render();
  try {
    const res = await post(
      "/api/arrows",
      { round: r, pair: x.pair, seat: x.seat, arrow: x.arrow, hit, on_beat: onBeat, ...where },
      { onRetry: (n) => say("sending", `再送 ${n}… (same entry, it will not count twice)`) },
    );
    say("ok", `✓ ${x.pair}${x.seat} 第${x.arrow}矢 ${hit ? "中" : "不中"}${res.status === 200 ? " (already recorded)" : ""}`);
    feed.caughtUp(res);
  } catch (e) {
    inflight.delete(id);
    if (e instanceof ApiError && e.status === 409) say("conflict", conflictText(e));
    else say("error", `✕ ${e.message} — not recorded`);
    render();
  }
}
$("hit").addEventListener("click", () => record(true));
$("hou-record").addEventListener("click", () => spot && record(spot.kind === "貫" || spot.kind === "白矢"));
$("hou-clear").addEventListener("click", () => ((spot = null), render()));
$("miss").addEventListener("click", () => record(false));
function setOnDrum(on) {
  const b = $("ondrum");
  b.setAttribute("aria-pressed", String(on));
  b.textContent = on === "mixed" ? "依發 judged by the TAP" : on ? "應鼓 on the drum" : "不應鼓 off the drum";
}
$("ondrum").addEventListener("click", () => setOnDrum($("ondrum").getAttribute("aria-pressed") !== "true"));
$("round-pick").addEventListener("change", (e) => {
  picked = e.target.value ? Number(e.target.value) : null;
  render();
});

// the release, timed at the touch (pointerdown), on the server's clock
$("tap").addEventListener("pointerdown", async () => {
  const x = nextArrow();
  if (!x) return;
  const t = Math.round(clock.now());
  const w = drum.running ? drum.where(t) : null;
  const off = w ? ` (${w.off >= 0 ? "+" : ""}${Math.round(w.off)} ms from the beat)` : "";
  try {
    const res = await post("/api/taps", { round: x.round, pair: x.pair, seat: x.seat, arrow: x.arrow, t_ms: t });
    const tap = (res.body && res.body.tap) || {};
    const judged = typeof tap.on_beat === "boolean"
      ? ` → ${tap.on_beat ? "應鼓" : "不應鼓"} (${tap.offset_ms >= 0 ? "+" : ""}${tap.offset_ms} ms, ±${Math.round(tap.tolerance_ms)} ms)`
      : off;
    say("ok", `發 ${x.pair}${x.seat} 第${x.arrow}矢${judged}`);
    if (x.round === 3) setOnDrum("mixed"); // the hit, if it is one, takes the tap's judgment
  } catch (e) {
    say("error", `TAP: ${e.message}`);
  }
});

// ---------------------------------------------------------------- corrections
function setChoice() {
  $("c-hit").setAttribute("aria-pressed", String(cChoice.hit === true));
  $("c-miss").setAttribute("aria-pressed", String(cChoice.hit === false));
  $("c-on").setAttribute("aria-pressed", String(cChoice.on_beat === true));
  $("c-off").setAttribute("aria-pressed", String(cChoice.on_beat === false));
  $("c-beat").hidden = !(correcting && correcting.round === 3 && cChoice.hit);
}
function openCorrect(x) {
  correcting = x;
  cChoice = { hit: x.hit, on_beat: x.on_beat ?? null };
  fill($("correct-what"), `${roundName(x.round)} · ${archerLabel(x, event)} · 第${x.arrow}矢 · now 「${shotWords(x)}」`);
  $("c-reason").value = "";
  $("c-msg").textContent = "";
  $("correct").hidden = false;
  setChoice();
  $("correct").scrollIntoView({ behavior: "smooth", block: "center" });
}
$("c-hit").addEventListener("click", () => {
  cChoice.hit = true;
  if (correcting && correcting.round === 3 && cChoice.on_beat == null) cChoice.on_beat = true;
  setChoice();
});
$("c-miss").addEventListener("click", () => {
  cChoice = { hit: false, on_beat: null };
  setChoice();
});
$("c-on").addEventListener("click", () => ((cChoice.on_beat = true), setChoice()));
$("c-off").addEventListener("click", () => ((cChoice.on_beat = false), setChoice()));
$("c-cancel").addEventListener("click", () => {
  correcting = null;
  $("correct").hidden = true;
});
$("c-send").addEventListener("click", async () => {
  const x = correcting;
  const m = $("c-msg");
  if (!x) return;
  const reason = $("c-reason").value.trim();
  if (cChoice.hit == null) return showError(m, "choose 中 or 不中");
  if (!reason) return showError(m, "say why (the correction is logged with its reason)");
  const body = {
    round: x.round, pair: x.pair, seat: x.seat, arrow: x.arrow, hit: cChoice.hit,
    on_beat: x.round === 3 && cChoice.hit ? cChoice.on_beat : null, reason,
  };
  try {
    feed.caughtUp(await post("/api/arrows/correct", body));
    correcting = null;
    $("correct").hidden = true;
    say("ok", `✓ 已改 corrected: ${x.pair}${x.seat} 第${x.arrow}矢 → ${shotWords(body)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) showError(m, conflictText(e));
    else showError(m, e);
  }
});

const feed = live(render, status);
