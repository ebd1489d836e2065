/* The printable pack: the links given in the address's fragment (#links=[[what, token], …],
   put there by the home page when the event was made; never sent to the server) printed as
   QR codes, one per holder, in front of the pack. */
const m = location.hash.match(/^#links=(.*)$/);
if (m) {
  let links = [];
  try {
    links = JSON.parse(decodeURIComponent(m[1]));
  } catch {
    links = [];
  }
  const sec = document.createElement("section");
  sec.className = "links-qr";
  sec.style.pageBreakAfter = "always";
  const h = document.createElement("h1");
  h.textContent = "連結 · links (each a secret: cut out and hand each to its holder)";
  sec.append(h);
  for (const [what, token] of links) {
    if (typeof token !== "string" || !/^[A-Za-z0-9_-]+$/.test(token)) continue;
    const fig = document.createElement("figure");
    fig.style.display = "inline-block";
    fig.style.margin = "8px";
    const img = document.createElement("img");
    img.src = `/qr/${token}.svg`;
    img.alt = `QR: ${what}`;
    img.width = 140;
    img.height = 140;
    const cap = document.createElement("figcaption");
    cap.textContent = String(what);
    fig.append(img, cap);
    sec.append(fig);
  }
  document.body.prepend(sec);
}
