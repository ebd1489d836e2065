/* The 侯 drawn to scale (the server's GET /api/hou.svg: sheli.outputs.target, the drawing of
   `sheli params --target`), put into the page as inline SVG so that a tap can be read as 尺
   and the arrows marked where they struck.

   Coordinates: x, y in 尺 from the centre of the 侯中 (the rect data-part="中"), x to the
   archer's right (the page's right: the drawing is the face he looks at), y up; the drawing's
   scale is its data-px-per-chi.

   Example:
     const hou = houFigure($("hou"), { onTap: (p) => console.log(p.x, p.y, p.onHou) });
     await hou.show("采侯");
     hou.mark([{ x: 1, y: -2, hit: true, through: false, arrow: 1, seat: "上射" }]);
*/

import { page, el } from "/static/api.js";

const SVG = "http://www.w3.org/2000/svg";
const CLOTH = ["下舌", "下躬", "中", "上躬", "上舌"];

export function houFigure(node, { onTap } = {}) {
  let svg = null;
  let shown = null;
  let geo = null; // { cx, cy, px, bands: [[x, y, w, h] in SVG units] }
  let layer = null;

  function measure() {
    const px = Number(svg.getAttribute("data-px-per-chi")) || 8;
    const mid = svg.querySelector('rect[data-part="中"]');
    const r = (e) => ["x", "y", "width", "height"].map((a) => Number(e.getAttribute(a)));
    const [x, y, w, h] = r(mid);
    const bands = CLOTH.map((n) => svg.querySelector(`rect[data-part="${n}"]`)).filter(Boolean).map(r);
    geo = { cx: x + w / 2, cy: y + h / 2, px, bands };
  }

  /** a pointer event → {x, y} in 尺 and whether it is on the cloth of the 侯 */
  function toChi(evt) {
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const onHou = geo.bands.some(([x, y, w, h]) => p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h);
    const round = (v) => Math.round(v * 100) / 100;
    return { x: round((p.x - geo.cx) / geo.px), y: round((geo.cy - p.y) / geo.px), onHou };
  }

  let loading = null; // [name, promise] of the drawing being fetched
  function show(name) {
    const want = name || "";
    if (svg && shown === want) return Promise.resolve();
    if (loading && loading[0] === want) return loading[1];
    const p = load(want).finally(() => {
      if (loading && loading[1] === p) loading = null;
    });
    loading = [want, p];
    return p;
  }

  async function load(want) {
    const q = new URLSearchParams(want ? { hou: want } : {});
    const res = await fetch(`/api/hou.svg?${q}`, { headers: { Authorization: `Bearer ${page.token}` } });
    if (!res.ok) throw new Error(`侯: ${res.status}`);
    const doc = new DOMParser().parseFromString(await res.text(), "image/svg+xml");
    svg = document.importNode(doc.documentElement, true);
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("class", "hou-svg");
    svg.setAttribute("role", "img");
    layer = document.createElementNS(SVG, "g");
    layer.setAttribute("class", "marks");
    svg.append(layer);
    node.replaceChildren(svg);
    shown = want;
    node.dataset.hou = want;
    measure();
    if (onTap) {
      svg.addEventListener("click", (evt) => onTap(toChi(evt), evt));
    }
  }

  /** marks: [{x, y, hit, through, arrow, seat, pair, pending}] drawn over the 侯 */
  function mark(marks) {
    if (!layer) return;
    layer.replaceChildren();
    for (const m of marks) {
      const cx = geo.cx + m.x * geo.px;
      const cy = geo.cy - m.y * geo.px;
      const g = document.createElementNS(SVG, "g");
      const cls = ["mark", m.seat === "下射" ? "left" : "right", m.hit ? "hit" : "miss", m.through ? "through" : "", m.pending ? "pending" : ""];
      g.setAttribute("class", cls.join(" "));
      for (const [k, v] of Object.entries({ pair: m.pair || "", seat: m.seat || "", arrow: String(m.arrow ?? ""), x: String(m.x), y: String(m.y) })) {
        g.dataset[k] = v;
      }
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", String(cx));
      dot.setAttribute("cy", String(cy));
      dot.setAttribute("r", "5");
      g.append(dot);
      if (m.through) {
        // 白矢: the arrow went through, 見其鏃白 — a white ring round the mark
        const ring = document.createElementNS(SVG, "circle");
        ring.setAttribute("cx", String(cx));
        ring.setAttribute("cy", String(cy));
        ring.setAttribute("r", "9");
        ring.setAttribute("class", "ring");
        g.append(ring);
      }
      const label = document.createElementNS(SVG, "text");
      label.setAttribute("x", String(cx + 8));
      label.setAttribute("y", String(cy - 8));
      label.textContent = `${m.seat === "下射" ? "左" : "右"}${m.arrow ?? ""}`;
      g.append(label);
      layer.append(g);
    }
    node.dataset.marks = String(marks.length);
  }

  return { show, mark, get shown() { return shown; } };
}

/** A caption under the 侯: what the marks mean. */
export function houLegend() {
  return el("p", { class: "soft hou-legend" }, "● 中 (貫) · ○ 不中 · ◎ 白矢 (貫而過) · 右 上射 / 左 下射");
}
