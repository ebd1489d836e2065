/* The 五物 (周禮 鄉大夫: 以鄉射之禮五物詢衆庶), the director's side and the audience's.

   Director (wuwuPanel): choose an archer and an item; the items that may be asked now are
   those of his moment in 易氏's order (和、容 before he shoots, 和容 while, 興舞 after); open
   the question, close it; the totals per archer (是 / 否 of each item asked, 主皮 from his hits)
   with each item's readings and sources.

   Audience (votePanel): the open question, 是 / 否, once per screen (the server keeps the first).

   Example:
     const panel = wuwuPanel($("wuwu"));   panel.update(state);   // in the director's render
     const vote = votePanel($("vote"));    vote.update(state);    // in the audience's render
*/

import { $, el, fill, post, ApiError } from "/static/api.js";

const MOMENT = { before: "未射 before he shoots", while: "射侯之際 while he shoots", after: "既射 after he shoots" };

export function wuwuPanel(node) {
  const archerSel = el("select", { id: "wuwu-archer", "aria-label": "archer" });
  const itemSel = el("select", { id: "wuwu-item", "aria-label": "item" });
  const openBtn = el("button", { type: "button", id: "wuwu-open", class: "primary" }, "詢 ask");
  const closeBtn = el("button", { type: "button", id: "wuwu-close" }, "止 close");
  const msg = el("p", { class: "msg", role: "alert", id: "wuwu-msg" });
  const nowLine = el("p", { id: "wuwu-now", class: "arrow-now" });
  const table = el("table", { class: "arrows wuwu-totals", id: "wuwu-totals" });
  const readings = el("details", { class: "soft" });
  let W = null;

  fill(
    node,
    el("h2", {}, "五物 · the 衆庶 asked ", el("span", { class: "soft", id: "wuwu-source" })),
    el("div", { class: "choice" }, archerSel, itemSel, openBtn, closeBtn),
    nowLine,
    msg,
    table,
    readings,
  );

  function say(kind, text) {
    msg.dataset.kind = kind;
    msg.textContent = text;
  }

  function fillItems() {
    const a = W && W.archers.find((x) => x.archer === archerSel.value);
    const items = ((W && W.items) || []).filter((i) => i.asked);
    const keep = itemSel.value;
    fill(itemSel, ...items.map((i) => el("option", { value: i.name, disabled: a && i.moment !== a.moment }, `${i.name}${a && i.moment !== a.moment ? ` (${MOMENT[i.moment].split(" ")[0]})` : ""}`)));
    const fit = items.find((i) => a && i.moment === a.moment);
    itemSel.value = items.some((i) => i.name === keep && (!a || i.moment === a.moment)) ? keep : fit ? fit.name : "";
  }

  archerSel.addEventListener("change", fillItems);

  async function ask(body) {
    try {
      await post("/api/questions", body);
      say("ok", body.action === "open" ? `✓ 詢 ${body.item} · ${body.archer}` : "✓ 止");
    } catch (e) {
      say("error", e instanceof ApiError ? e.message : String(e));
    }
  }
  openBtn.addEventListener("click", () => ask({ action: "open", item: itemSel.value, archer: archerSel.value }));
  closeBtn.addEventListener("click", () => ask({ action: "close" }));

  function update(s) {
    W = s.wuwu || null;
    node.hidden = !W;
    if (!W) return;
    $("wuwu-source").textContent = W.source || "";
    const keep = archerSel.value;
    const names = W.archers.map((a) => a.archer);
    if ([...archerSel.options].map((o) => o.value).join() !== names.join()) {
      fill(archerSel, ...W.archers.map((a) => el("option", { value: a.archer }, a.name ? `${a.archer} (${a.name})` : a.archer)));
    }
    archerSel.value = names.includes(keep) ? keep : names[0] || "";
    fillItems();
    const open = W.open;
    openBtn.disabled = !!open || !itemSel.value;
    closeBtn.disabled = !open;
    const a = W.archers.find((x) => x.archer === archerSel.value);
    nowLine.textContent = open
      ? `詢 open: ${open.item} · ${open.archer} (question ${open.id})`
      : a ? `${a.archer}: ${MOMENT[a.moment]}` : "";
    node.dataset.open = open ? String(open.id) : "";

    const asked = W.items.map((i) => i.name);
    const head = el("tr", {}, el("th", {}, "射者"), ...asked.map((n) => el("th", {}, n)));
    const rows = W.archers.map((ar) =>
      el(
        "tr",
        { dataset: { archer: ar.archer } },
        el("td", {}, ar.name ? `${ar.archer} (${ar.name})` : ar.archer),
        ...W.items.map((i) => {
          if (i.name === "主皮") {
            const z = ar["主皮"];
            return el("td", { dataset: { item: i.name }, title: "his arrows recorded 中 / recorded / all" }, `${z.hits} 中 / ${z.recorded}`);
          }
          const t = ar.asked[i.name];
          return el("td", { dataset: { item: i.name, yes: t ? String(t.yes) : "", no: t ? String(t.no) : "" } }, t ? `是 ${t.yes} · 否 ${t.no}` : "—");
        }),
      ),
    );
    fill(table, el("thead", {}, head), el("tbody", {}, ...rows));
    fill(
      readings,
      el("summary", {}, "讀 the readings and their sources"),
      el("p", {}, `答 answers: ${(W.answers || []).join(" / ")}`),
      ...W.items.map((i) =>
        el("p", {}, el("b", {}, i.name), ` (${MOMENT[i.moment]}) 易氏：${i.yi}；鄭：${i.zheng}`, i.judged ? ` — ${i.judged}` : ""),
      ),
    );
  }

  return { update };
}

export function votePanel(node, english = () => null) {
  // english(): the screen's English words (the audience page's #english) while it is in
  // English, else null; the question carries its own English (q.en)
  const answered = new Map(); // question id → the answer this screen gave
  let Q = null;
  const head = el("h2", {}, "五物 · 詢衆庶");
  const what = el("p", { class: "vote-q", id: "vote-q" });
  const reading = el("p", { class: "soft", id: "vote-reading" });
  const buttons = el("div", { class: "choice" });
  const msg = el("p", { class: "msg", role: "alert", id: "vote-msg" });
  fill(node, head, what, reading, buttons, msg);
  const said = (yes) => {
    const E = english();
    return E ? (yes ? E.yes : E.no) : yes ? "是" : "否";
  };

  async function answer(yes) {
    if (!Q) return;
    const q = Q;
    try {
      const res = await post("/api/votes", { question: q.id, answer: yes });
      const given = res.body && res.body.vote ? res.body.vote.answer : yes;
      answered.set(q.id, given);
      const E = english();
      const already = E ? E.answered : "此屏已答 this screen has answered";
      msg.textContent = res.status === 200 ? `${already}: ${said(given)}` : `✓ ${said(yes)}`;
    } catch (e) {
      msg.textContent = e.message;
    }
    draw();
  }

  function draw() {
    node.hidden = !Q;
    node.dataset.question = Q ? String(Q.id) : "";
    if (!Q) return;
    const E = english();
    const en = (E && Q.en) || null;
    head.textContent = E ? E.vote : "五物 · 詢衆庶";
    const archer = en ? en.archer : Q.archer;
    const who = Q.name ? (en ? `${archer}, ${Q.name}` : `${archer} (${Q.name})`) : archer;
    what.textContent = en ? `${who}: ${en.item}?` : `${who}：${Q.item}乎？`;
    reading.textContent = (en ? en.reading : Q.reading) || "";
    const given = answered.get(Q.id);
    const [yes, no] = E ? [E.yes, E.no] : Q.answers || ["是", "否"];
    fill(
      buttons,
      el("button", { type: "button", id: "vote-yes", class: "hit", disabled: given !== undefined, "aria-pressed": String(given === true), onclick: () => answer(true) }, yes),
      el("button", { type: "button", id: "vote-no", class: "miss", disabled: given !== undefined, "aria-pressed": String(given === false), onclick: () => answer(false) }, no),
    );
    node.dataset.answered = given === undefined ? "" : String(given);
  }

  function update(s) {
    const q = s.question || null;
    if ((q && q.id) !== (Q && Q.id)) msg.textContent = "";
    Q = q;
    draw();
  }

  return { update };
}
