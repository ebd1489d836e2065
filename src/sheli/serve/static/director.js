/* The director's view: where the rite is, what comes next and who does it; move it
   on or back by moments or acts, or jump to a step, round, section or passage; the time; the
   round's arrows; the drum; the pack, the exports, the tokens. The step counter counts from 1,
   as the viewer does. Keys: Page Down / Page Up a moment on or back, → or space an act on, ←
   an act back (not while typing in a field). */

import {
  $, el, fill, post, live, statusLine, showError, onKeys, markedPassage, nameOf, fmtDur,
  download, getJSON, page, roundName, shotsOf, roundInPlay, shotWords, archerLabel, FACING, newKey,
} from "/static/api.js";
import { beatIndicator } from "/static/drum.js";
import { wuwuPanel } from "/static/wuwu.js";

const event = JSON.parse($("event-data").textContent || "{}");
const status = statusLine($("status"));
const drum = beatIndicator($("beat"));
const wuwu = wuwuPanel($("wuwu"));
let S = null;
let receivedAt = 0;

function who(step) {
  const name = step.name || nameOf(S && S.event, step.actor) || nameOf(event, step.actor);
  return name;
}

function renderStep(s) {
  const st = s.step || {};
  const total = st.total ?? "?";
  // counted from 1, as the viewer counts (the API's index is from 0)
  $("pos").textContent = `步 ${st.index != null ? st.index + 1 : "—"} / ${total}` + (st.seq != null ? ` (#${st.seq})` : "");
  $("moment-pos").textContent = st.moment != null ? `${st.moment} / ${st.moments ?? "?"}` : "—";
  $("round-name").textContent = roundName(st.round ?? s.round);
  $("section").textContent = st.section != null ? `賈疏 §${st.section}` : "";
  $("cite").textContent = st.cite || "";
  $("actor").textContent = st.actor || "—";
  const name = who(st);
  $("actor-name").textContent = name ? `(${name})` : "";
  $("verb").textContent = st.verb || "";
  $("says").hidden = !st.says;
  $("says").textContent = st.says ? `「${st.says}」` : "";
  const passage = s.passage && s.passage.cite === st.cite ? s.passage.text : null;
  markedPassage($("jing"), passage || st.jing || "", st.jing);
  const where = [];
  if (st.place) where.push(st.place);
  if (st.facing) where.push(FACING[st.facing] || st.facing);
  if (st.holds && st.holds.length) where.push(`執 ${st.holds.join("、")}`);
  if (st.to) where.push(`→ ${st.to}`);
  $("where").textContent = where.join(" · ");
  document.body.dataset.index = String(st.index ?? "");
  document.body.dataset.seq = String(st.seq ?? "");
  document.body.dataset.round = String(s.round ?? st.round ?? "");
  document.body.dataset.moment = String(st.moment ?? "");
  const go = $("goto");
  if (document.activeElement !== go && $("jump-kind").value === "to") go.value = st.index != null ? st.index + 1 : "";
}

function renderNext(s) {
  const items = (s.next || []).slice(0, 5).map((n) => {
    const name = who(n);
    return el(
      "li",
      { dataset: { seq: String(n.seq ?? "") } },
      el("span", { class: "actor" }, n.actor || ""),
      name ? el("span", { class: "name" }, ` (${name})`) : null,
      " ",
      el("span", { class: "verb" }, n.verb || ""),
      n.says ? el("span", { class: "says-inline" }, ` 「${n.says}」`) : null,
      el("br"),
      el("small", { class: "cite" }, `${n.cite || ""} `),
      el("small", { class: "jing" }, n.jing || ""),
    );
  });
  fill($("next-steps"), ...(items.length ? items : [el("li", { class: "soft" }, "— 禮畢 —")]));
}

function renderShots(s) {
  const r = roundInPlay(s);
  const shots = shotsOf(s, r);
  const done = shots.filter((x) => x.hit != null).length;
  $("shots-count").textContent = shots.length ? `${roundName(r)}: ${done} 已記 / ${shots.length - done} 待記` : "";
  // a row per archer, a cell per arrow, in the order of shooting
  const rows = new Map();
  for (const x of shots) {
    const k = `${x.pair}|${x.seat}`;
    if (!rows.has(k)) rows.set(k, { shot: x, arrows: [] });
    rows.get(k).arrows.push(x);
  }
  if (!rows.size) {
    fill($("shots"), el("p", { class: "soft" }, "—"));
  } else {
    const tb = el("tbody");
    for (const { shot, arrows } of rows.values()) {
      const tr = el("tr", {}, el("td", {}, archerLabel(shot, event)));
      for (const a of arrows) {
        const cls = a.hit == null ? "pending" : a.hit ? "hit" : "miss";
        tr.append(el("td", { class: `shot ${cls}`, title: `第${a.arrow}矢` }, shotWords(a)));
      }
      tb.append(tr);
    }
    fill($("shots"), el("table", {}, tb));
  }
  const t = s.tally;
  const line = [];
  if (t && t.round) line.push(`${roundName(t.round)} 右 ${t.right ?? 0} · 左 ${t.left ?? 0}`);
  if (t && t.announcement) line.push(`釋獲者告：${t.announcement}`);
  fill($("tally-line"), ...line.map((x) => el("p", {}, x)));
}

function renderTiming() {
  const t = (S && S.timing) || {};
  const started = S && S.event && S.event.started_at;
  let elapsed = t.elapsed_s;
  if (elapsed != null && started) elapsed += (performance.now() - receivedAt) / 1000;
  $("elapsed").textContent = fmtDur(elapsed);
  $("remaining").textContent = fmtDur(t.estimated_remaining_s);
  const late = t.late_s;
  const box = $("late-box");
  if (late == null) {
    box.firstChild.textContent = "晚 late ";
    $("late").textContent = "—";
    box.classList.remove("late");
  } else if (late > 0) {
    box.firstChild.textContent = "晚 late ";
    $("late").textContent = fmtDur(late);
    box.classList.add("late");
  } else {
    box.firstChild.textContent = "早 ahead ";
    $("late").textContent = fmtDur(-late);
    box.classList.remove("late");
  }
}

function renderDrum(s) {
  drum.update(s.drum);
  const d = s.drum || {};
  const iv = $("interval");
  if (d.interval_ms && document.activeElement !== iv && document.activeElement !== $("pace")) {
    iv.value = d.interval_ms;
    $("pace").value = d.interval_ms;
  }
  $("drum-start").textContent = d.running ? "再擊 restart" : "擊鼓 start";
  $("drum-card").dataset.running = d.running ? "1" : "0";
}

function render(s) {
  S = s;
  if (s.step) at = s.step.index;
  // the engine could not go on with the arrows recorded so far (e.g. a round with no 筭 on a
  // side cannot be announced, xiangshe:204): the director must know why the rite stops here
  // (arrows not yet recorded count as misses, so before the scorers have entered a round the
  // engine often cannot derive its end: that is a notice; at the last derivable step, a stop)
  const stop = $("stopped");
  stop.hidden = !s.stopped;
  stop.className = s.stopped && s.last_step ? "err" : "msg soft";
  stop.textContent = !s.stopped
    ? ""
    : s.last_step
      ? `引擎止於此 the rite cannot go on until more arrows are recorded: ${s.stopped}`
      : `後文未定 the rest of the rite is derived as arrows are recorded (unrecorded arrows count as misses; for now the engine stops at: ${s.stopped})`;
  receivedAt = performance.now();
  renderStep(s);
  renderNext(s);
  renderShots(s);
  renderTiming();
  renderDrum(s);
  wuwu.update(s);
  document.body.dataset.ready = "1";
}

// ---------------------------------------------------------------- moving the rite
/* An advance says from which step it moves (`from`): the same advance sent again, under a
   new key after a reload or on a second screen, then moves nothing. The advance on its way is
   kept in sessionStorage with its key, and sent again (same key) if the page is reloaded
   before its answer. */
const msg = $("msg");
const PENDING = `sheli-advance-${page.token.slice(0, 8)}`;
let at = null; // the step this page last knew the rite to be on
async function move(body) {
  msg.textContent = "";
  msg.dataset.kind = "";
  if ((body.delta != null || body.moment != null) && body.from == null) {
    const from = at ?? (S && S.step ? S.step.index : null);
    if (from != null) body = { ...body, from };
  }
  body = { ...body, key: body.key || newKey() };
  try {
    sessionStorage.setItem(PENDING, JSON.stringify(body));
  } catch {
    /* private mode: no storage, the `from` still holds */
  }
  try {
    const res = await post("/api/advance", body, { onRetry: (n) => ((msg.dataset.kind = "sending"), (msg.textContent = `再送 ${n}…`)) });
    if (res.body && res.body.step) at = res.body.step.index;
    feed.caughtUp(res);
    msg.textContent = "";
  } catch (e) {
    if (e.body && e.body.step) at = e.body.step.index;
    showError(msg, e);
  } finally {
    try {
      sessionStorage.removeItem(PENDING);
    } catch {
      /* nothing kept */
    }
  }
}
const advance = () => move({ delta: 1 });
const back = () => move({ delta: -1 });
const nextMoment = () => move({ moment: 1 });
const prevMoment = () => move({ moment: -1 });
$("next").addEventListener("click", advance);
$("prev").addEventListener("click", back);
$("next-moment").addEventListener("click", nextMoment);
$("prev-moment").addEventListener("click", prevMoment);
// a jump: to a step (counted from 1), a round, a 賈疏 section or a passage id; the server
// says what is wrong with a bad one
$("goto-btn").addEventListener("click", () => {
  const kind = $("jump-kind").value;
  const text = $("goto").value.trim();
  if (kind === "cite") return move({ cite: text });
  const n = Number(text);
  if (!text || !Number.isInteger(n)) return showError(msg, `${kind === "to" ? "步 step" : kind}: a whole number`);
  move(kind === "to" ? { to: n - 1 } : { [kind]: n });
});
$("goto").addEventListener("keydown", (e) => {
  if (e.key === "Enter") $("goto-btn").click();
});
$("jump-kind").addEventListener("change", () => {
  $("goto").value = "";
  $("goto").focus();
});
// a presenter's remote sends Page Down / Page Up
onKeys({ ArrowRight: advance, " ": advance, Space: advance, ArrowLeft: back, PageDown: nextMoment, PageUp: prevMoment });

// ---------------------------------------------------------------- the drum
$("pace").addEventListener("input", () => ($("interval").value = $("pace").value));
$("interval").addEventListener("input", () => ($("pace").value = $("interval").value));
async function setDrum(running) {
  const m = $("drum-msg");
  m.textContent = "";
  const interval = Number($("interval").value);
  if (!(interval >= 250 && interval <= 10000)) return showError(m, "interval: 250–10000 ms");
  try {
    feed.caughtUp(await post("/api/drum", { interval_ms: Math.round(interval), running }));
  } catch (e) {
    showError(m, e);
  }
}
$("drum-start").addEventListener("click", () => setDrum(true));
$("drum-stop").addEventListener("click", () => setDrum(false));

// ---------------------------------------------------------------- pack, exports
$("pack-link").href = `/v/${encodeURIComponent(page.token)}/pack`;
$("results-link").href = `/v/${encodeURIComponent(page.token)}/results`;
const eid = () => (S && S.event && S.event.id) || event.id || "event";
$("export-jsonl").addEventListener("click", () =>
  download("/api/export.jsonl", `sheli-${eid()}.jsonl`).catch((e) => showError($("export-msg"), e)),
);
$("export-csv").addEventListener("click", () =>
  download("/api/results.csv", `sheli-${eid()}-results.csv`).catch((e) => showError($("export-msg"), e)),
);
$("export-five").addEventListener("click", () =>
  download("/api/five.json", `sheli-${eid()}-five.json`).catch((e) => showError($("export-msg"), e)),
);
$("export-votes").addEventListener("click", () =>
  download("/api/votes.csv", `sheli-${eid()}-votes.csv`).catch((e) => showError($("export-msg"), e)),
);

// ---------------------------------------------------------------- tokens
async function loadTokens() {
  const m = $("tokens-msg");
  m.textContent = "";
  try {
    const data = await getJSON("/api/tokens");
    const list = Array.isArray(data) ? data : data.tokens || [];
    const rows = list.map((t) => {
      const id = t.token_id ?? t.id;
      const revoked = Boolean(t.revoked || t.revoked_at);
      const part = t.seat || t.performer_role || t.label || "";
      const btn = el("button", { type: "button", disabled: revoked, dataset: { tokenId: String(id) } }, "撤 revoke");
      btn.addEventListener("click", async () => {
        if (!confirm(`Revoke the ${t.role} link ${part}? Its holder loses access at once.`)) return;
        try {
          await post("/api/tokens/revoke", { token_id: id });
          await loadTokens();
        } catch (e) {
          showError(m, e);
        }
      });
      return el(
        "tr",
        { class: revoked ? "revoked" : "" },
        el("td", {}, t.role || ""),
        el("td", {}, part),
        el("td", {}, revoked ? "已撤 revoked" : "有效 active"),
        el("td", {}, btn),
      );
    });
    fill($("tokens"), ...rows);
  } catch (e) {
    showError(m, e);
  }
}
$("tokens-reload").addEventListener("click", loadTokens);
$("nl-role").addEventListener("change", () => {
  $("nl-seat").hidden = $("nl-role").value !== "scorer";
  $("nl-perf").hidden = $("nl-role").value !== "performer";
});
$("new-link").addEventListener("submit", async (e) => {
  e.preventDefault();
  const role = $("nl-role").value;
  const body = { role };
  if (role === "scorer") body.seat = $("nl-seat").value;
  if (role === "performer") body.performer_role = $("nl-perf").value.trim();
  try {
    const { body: res } = await post("/api/tokens/new", body);
    // the link is shown once (the server keeps only its hash)
    const url = new URL(res.link, location.href).href;
    fill(
      $("nl-out"),
      el("input", { type: "text", readonly: true, value: url, size: "40", "aria-label": "new link" }),
      el("img", { class: "qr", src: `/qr/${res.link.split("/").pop()}.svg`, alt: `QR: ${url}`, width: "160", height: "160" }),
    );
    await loadTokens();
  } catch (err) {
    showError($("tokens-msg"), err);
  }
});

setInterval(renderTiming, 1000);
const feed = live(render, status);
loadTokens();
try {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
  if (pending && pending.key) move(pending); // reloaded before its answer: the same key again
} catch {
  /* nothing pending */
}
