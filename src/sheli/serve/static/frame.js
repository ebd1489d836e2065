/* The audience screen's framing: a projector shows the diagram of a step cut to the bodies
   that act — the actor (each member of a group that acts), where he walked in this act, and
   the flight of an arrow to the 侯 — with the room round them, instead of the whole court
   (300 尺 and more) in a narrow column where nobody can be read. Only the viewBox of the
   server's drawing changes; what is drawn is the server's (sheli.outputs.diagram). */

/** At least this much of the plan round the bodies that act, in 尺 (a figure is 2 尺 across;
    the room of a 階, the 物 and the 楹 round the actor reads at this size). */
export const MIN_CHI = { w: 36, h: 22 };
/** Room left round them, in 尺. */
export const PAD_CHI = 6;

const num = (n, a) => Number.parseFloat(n.getAttribute(a));

/** The points (px of the drawing) of the bodies that act, their walk and (unless `flights`
    is false) an arrow's flight. */
export function actingPoints(svg, flights = true) {
  const pts = [];
  for (const g of svg.querySelectorAll("g.person.actor, g.person.acting")) {
    const x = num(g, "data-cx");
    const y = num(g, "data-cy");
    if (Number.isFinite(x) && Number.isFinite(y)) pts.push([x, y]);
  }
  for (const p of svg.querySelectorAll("polyline.actor-path")) {
    for (const xy of (p.getAttribute("points") || "").trim().split(/\s+/)) {
      const [x, y] = xy.split(",").map(Number);
      if (Number.isFinite(x) && Number.isFinite(y)) pts.push([x, y]);
    }
  }
  for (const l of flights ? svg.querySelectorAll("line.flight") : []) {
    pts.push([num(l, "x1"), num(l, "y1")], [num(l, "x2"), num(l, "y2")]);
  }
  if (!flights) {
    // framed near: the actor's name too, wherever the drawing placed it, not cut at the edge
    for (const g of svg.querySelectorAll("g.person.actor")) {
      const name = g.getAttribute("data-actor");
      const label = name && svg.querySelector(`g.label[data-for="person:${CSS.escape(name)}"]`);
      const box = (label?.getAttribute("data-box") || "").split(" ").map(Number);
      if (box.length === 4) pts.push([box[0], box[1]], [box[2], box[3]]);
    }
  }
  return pts.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
}

/** The boxes [x0, y0, x1, y1] (px of the drawing) of what is drawn on the plan shown: each
    body (its centre), each fixture, the hall. */
export function drawnBoxes(svg, plan) {
  const [px0, py0, px1, py1] = [plan[0], plan[1], plan[0] + plan[2], plan[1] + plan[3]];
  const boxes = [];
  for (const g of svg.querySelectorAll("g.person")) {
    const [x, y] = [num(g, "data-cx"), num(g, "data-cy")];
    boxes.push([x, y, x, y]);
  }
  for (const g of svg.querySelectorAll("g.fixture[data-box]")) boxes.push(g.getAttribute("data-box").split(" ").map(Number));
  for (const r of svg.querySelectorAll("rect.tang")) {
    const [x, y] = [num(r, "x"), num(r, "y")];
    boxes.push([x, y, x + num(r, "width"), y + num(r, "height")]);
  }
  // what lies on the plan shown (a fixture off it, the 侯 under a view of the hall, is not)
  return boxes.filter(
    (b) => b.length === 4 && b.every(Number.isFinite) && b[0] <= px1 && b[2] >= px0 && b[1] <= py1 && b[3] >= py0,
  );
}

/** The box [x, y, w, h] (px) to show: round the points, padded, at least MIN_CHI, widened
    (or heightened) toward the screen's `aspect` as far as the plan allows, moved toward what
    is drawn (`drawn`, from drawnBoxes) where one side of it shows bare plan while the other
    cuts into the drawing, the points keeping their room; inside the plan. */
export function frameBox(pts, plan, scale, aspect, drawn = null) {
  if (!pts.length) return null;
  const pad = PAD_CHI * scale;
  let x0 = Math.min(...pts.map((p) => p[0])) - pad;
  let x1 = Math.max(...pts.map((p) => p[0])) + pad;
  let y0 = Math.min(...pts.map((p) => p[1])) - pad;
  let y1 = Math.max(...pts.map((p) => p[1])) + pad;
  const grow = (a0, a1, want) => {
    const more = Math.max(0, want - (a1 - a0)) / 2;
    return [a0 - more, a1 + more];
  };
  [x0, x1] = grow(x0, x1, MIN_CHI.w * scale);
  [y0, y1] = grow(y0, y1, MIN_CHI.h * scale);
  // toward the screen's shape: a wide box gains height, a tall one width
  if ((x1 - x0) / (y1 - y0) > aspect) [y0, y1] = grow(y0, y1, (x1 - x0) / aspect);
  else [x0, x1] = grow(x0, x1, (y1 - y0) * aspect);
  // toward what is drawn: a box whose one side shows bare plan (the court under the hall)
  // while the drawing goes on past the other is moved that way, by the bare band at most and
  // no further than the drawing goes, the points kept inside with their room (pad)
  if (drawn && drawn.length) {
    const [qx0, qx1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
    const [qy0, qy1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
    const shift = (a0, a1, b0, b1, q0, q1, i) => {
      // along one axis (i: 0 for x, 1 for y), the others' overlap with the box [b0, b1]
      const across = drawn.filter((d) => d[1 - i] < b1 && d[3 - i] > b0);
      const inside = across.filter((d) => d[i] < a1 && d[i + 2] > a0);
      if (!inside.length) return 0;
      const c0 = Math.min(...inside.map((d) => d[i]));
      const c1 = Math.max(...inside.map((d) => d[i + 2]));
      const before = Math.min(...across.map((d) => d[i])); // how far the drawing goes that way
      const after = Math.max(...across.map((d) => d[i + 2]));
      if (a1 > c1 && before < a0) return -Math.max(0, Math.min(a1 - c1, a0 - before, a1 - (q1 + pad)));
      if (a0 < c0 && after > a1) return Math.max(0, Math.min(c0 - a0, after - a1, q0 - pad - a0));
      return 0;
    };
    const dy = shift(y0, y1, x0, x1, qy0, qy1, 1);
    [y0, y1] = [y0 + dy, y1 + dy];
    const dx = shift(x0, x1, y0, y1, qx0, qx1, 0);
    [x0, x1] = [x0 + dx, x1 + dx];
  }
  // inside the plan: shifted in where it can be, cut where it is larger
  const fit = (a0, a1, lo, hi) => {
    const w = Math.min(a1 - a0, hi - lo);
    const s = Math.min(Math.max(a0, lo), hi - w);
    return [s, s + w];
  };
  [x0, x1] = fit(x0, x1, plan[0], plan[0] + plan[2]);
  [y0, y1] = fit(y0, y1, plan[1], plan[1] + plan[3]);
  return [x0, y0, x1 - x0, y1 - y0];
}

/** The SVG text of a step's diagram framed on the bodies that act, for a screen of `aspect`
    (width / height); the drawing unchanged when nobody acts on the plan. `info`, if given, is
    filled with what was framed: the server's view, the plan's box, the box shown, the points.
    `flights: false` frames the bodies alone (a shot's archer at his 物, without the 侯道). */
export function frameActing(svgText, aspect = 16 / 9, info = null, { flights = true } = {}) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const svg = doc.documentElement;
  const view = svg.querySelector("rect.view");
  const scale = num(svg, "data-scale");
  if (!view || !Number.isFinite(scale)) return svgText;
  const plan = ["x", "y", "width", "height"].map((a) => num(view, a));
  const pts = actingPoints(svg, flights);
  const box = frameBox(pts, plan, scale, aspect, drawnBoxes(svg, plan));
  if (info) Object.assign(info, { view: svg.getAttribute("data-view"), plan, box, points: pts });
  if (!box) return svgText;
  svg.setAttribute("viewBox", box.map((v) => v.toFixed(1)).join(" "));
  svg.setAttribute("width", box[2].toFixed(1));
  svg.setAttribute("height", box[3].toFixed(1));
  svg.setAttribute("data-framed", "acting");
  return new XMLSerializer().serializeToString(svg);
}
