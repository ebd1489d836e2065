/* The home page: create an event (POST /api/events, csrf from the page, no bearer yet) and
   show the links it returns, each with a copy button. Server errors are shown as the server
   words them. Names are only ever put in as text. */

import { $, el, fill, post, showError } from "/static/api.js";

// Suggestions for the role field: the roles of 鄉射禮 as the engine's cast names them (the
// archers by pair and seat, 衆耦N上射 …). Only a help for typing: the server checks the roles.
const FIXED_ROLES = [
  "司射", "司馬", "獲者", "釋獲者", "弟子", "賓", "主人", "大夫", "大夫之耦", "衆賓", "樂正",
  "大師", "工", "有司", "勝者之弟子", "執爵者", "贊者",
];
function roleNames(pairs) {
  const out = [];
  for (const p of ["上耦", "次耦", "下耦"]) out.push(`${p}上射`, `${p}下射`);
  for (let i = 1; i <= pairs; i++) out.push(`衆耦${i}上射`, `衆耦${i}下射`);
  return out.concat(FIXED_ROLES);
}
function fillRoleList() {
  const n = Math.max(0, Math.min(100, Number($("pairs").value) || 0));
  fill($("role-names"), ...roleNames(n).map((r) => el("option", { value: r })));
}

function addRow(role = "", name = "") {
  const row = el("div", { class: "row" });
  const r = el("input", { type: "text", class: "role", list: "role-names", placeholder: "role 角色", "aria-label": "role", value: role });
  const n = el("input", { type: "text", class: "person", placeholder: "name 姓名", "aria-label": "name", value: name });
  const x = el("button", { type: "button", "aria-label": "remove this row", onclick: () => row.remove() }, "✕");
  row.append(r, n, x);
  $("cast-rows").append(row);
  return row;
}

function castRows() {
  const out = [];
  for (const row of $("cast-rows").querySelectorAll(".row")) {
    const role = row.querySelector(".role").value.trim();
    const name = row.querySelector(".person").value.trim();
    if (role || name) out.push({ role, name });
  }
  return out;
}

async function copy(input, btn) {
  const text = input.value;
  let ok = false;
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    // a page on http://<LAN address> has no clipboard API: select and copy
    input.focus();
    input.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
  }
  btn.textContent = ok ? "已複製 ✓" : "請手動複製";
  setTimeout(() => (btn.textContent = "複製 copy"), 2000);
}

function linkRow(what, url, dataset) {
  const abs = new URL(url, location.href).href;
  const input = el("input", { type: "text", readonly: true, value: abs, "aria-label": `${what} link` });
  const btn = el("button", { type: "button", class: "copy" }, "複製 copy");
  btn.addEventListener("click", () => copy(input, btn));
  const open = el("a", { href: abs, target: "_blank", rel: "noopener noreferrer" }, "開 open");
  // a phone opens its link from the QR code (drawn by the server for whoever holds the link)
  const qr = el("img", { class: "qr", src: `/qr/${url.split("/").pop()}.svg`, alt: `QR: ${what}`, width: "120", height: "120", loading: "lazy" });
  return el("div", { class: "link", dataset }, el("span", { class: "what" }, what), input, btn, open, qr);
}

function showLinks(data) {
  const links = (data && data.links) || {};
  $("event-id").textContent = String(data.event_id ?? "");
  const box = $("links");
  box.replaceChildren();
  if (links.director) box.append(linkRow("導演 director", links.director, { role: "director" }));
  if (links.audience) box.append(linkRow("觀眾 audience", links.audience, { role: "audience" }));
  for (const [seat, url] of Object.entries(links.scorers || {})) {
    box.append(linkRow(`釋獲 scorer ${seat}`, url, { role: "scorer", seat }));
  }
  const perf = links.performers || {};
  const names = Object.keys(perf);
  if (names.length) box.append(el("h3", {}, "演員 performers"));
  for (const role of names) box.append(linkRow(role, perf[role], { role: "performer", performer: role }));
  // the printable pack, with every link as a QR code: the links go in the address's fragment,
  // which the browser never sends to the server
  if (links.director) {
    const all = [["導演 director", links.director], ["觀眾 audience", links.audience]];
    for (const [seat, url] of Object.entries(links.scorers || {})) all.push([`釋獲 scorer ${seat}`, url]);
    for (const role of names) all.push([role, perf[role]]);
    const frag = encodeURIComponent(JSON.stringify(all.map(([w, u]) => [w, u.split("/").pop()])));
    box.append(el("p", {}, el("a", { href: `${links.director}/pack#links=${frag}`, target: "_blank", rel: "noopener noreferrer" }, "印 the printable pack, with these links as QR codes")));
  }
  $("result").hidden = false;
  document.body.dataset.created = "1";
  $("result").scrollIntoView({ behavior: "smooth", block: "start" });
}

async function submit(ev) {
  ev.preventDefault();
  const err = $("form-error");
  err.hidden = true;
  const hou = Number($("hou_dao_m").value);
  const pairs = Number($("pairs").value);
  const dafu = Number($("dafu").value);
  const problems = [];
  if (!(hou > 0)) problems.push("侯道 must be a positive number of metres");
  if (!Number.isInteger(pairs) || pairs < 0) problems.push("衆耦 must be a whole number ≥ 0");
  if (!Number.isInteger(dafu) || dafu < 0) problems.push("大夫 must be a whole number ≥ 0");
  if (problems.length) {
    showError(err, problems.join("\n"));
    return;
  }
  const body = {
    title: $("title").value.trim() || null,
    rite: $("rite").value,
    venue: $("venue").value || null,
    hou_dao_m: hou,
    guests_shoot: $("guests_shoot").checked,
    // only a rite that has the feast as a switch is told whether to stage it
    feast: riteHas("feast") ? $("feast").checked : null,
    pairs,
    dafu,
    cast: castRows(),
    cast_csv: $("cast_csv").value,
  };
  const btn = $("create-btn");
  btn.disabled = true;
  btn.textContent = "…";
  try {
    const { body: data } = await post("/api/events", body, {
      noBearer: true,
      onRetry: (n) => (btn.textContent = `再試 ${n}…`),
    });
    showLinks(data);
  } catch (e) {
    showError(err, e);
    document.body.dataset.error = "1";
  } finally {
    btn.disabled = false;
    btn.textContent = "設 · create";
  }
}

/* The venues a rite can be staged in (each <option> names its rites), and its switches. */
function riteHas(option) {
  const o = $("rite").selectedOptions[0];
  return !!o && (o.dataset.options || "").split(" ").includes(option);
}
function fitRite() {
  const rite = $("rite").value;
  let first = null;
  for (const o of $("venue").options) {
    const ok = (o.dataset.rites || "").split(" ").includes(rite);
    o.hidden = !ok;
    o.disabled = !ok;
    if (ok && !first) first = o;
  }
  const cur = $("venue").selectedOptions[0];
  if (!cur || cur.disabled) $("venue").value = first ? first.value : "";
  $("feast-row").hidden = !riteHas("feast");
  $("feast-label").hidden = !riteHas("feast");
}
$("rite").addEventListener("change", fitRite);
fitRite();
$("pairs").addEventListener("input", fillRoleList);
$("add-row").addEventListener("click", () => addRow().querySelector("input").focus());
$("cast-file").addEventListener("change", async (e) => {
  const f = e.target.files && e.target.files[0];
  if (!f) return;
  $("cast_csv").value = await f.text();
});
$("event-form").addEventListener("submit", submit);
fillRoleList();
addRow();
addRow();
document.body.dataset.ready = "1";
