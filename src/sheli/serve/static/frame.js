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

/** The box [x, y, w, h] (px) to show: round the points, padded, at least MIN_CHI, widened
    (or heightened) toward the screen's `aspect` as far as the plan allows, inside the plan. */
export function frameBox(pts, plan, scale, aspect) {
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
  const box = frameBox(pts, plan, scale, aspect);
  if (info) Object.assign(info, { view: svg.getAttribute("data-view"), plan, box, points: pts });
  if (!box) return svgText;
  svg.setAttribute("viewBox", box.map((v) => v.toFixed(1)).join(" "));
  svg.setAttribute("width", box[2].toFixed(1));
  svg.setAttribute("height", box[3].toFixed(1));
  svg.setAttribute("data-framed", "acting");
  return new XMLSerializer().serializeToString(svg);
}
