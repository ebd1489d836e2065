/* sheli serve, the browser side: what every page shares.

   - the page's identity (token, csrf, role, seat) from <body data-*>, put there by the server;
   - GET with `Authorization: Bearer <token>`; POST with the token, `X-CSRF-Token` and a JSON
     body carrying a fresh `key`; a POST that fails on the way (network, 5xx) is sent again
     with the SAME key, so the server counts it once;
   - the live state: EventSource('/api/stream?token=…') (the browser reconnects by itself);
     after every (re)connection the whole state is fetched again, and a state older than the
     one shown (its `version`) is ignored;
   - the server's clock, estimated from the `Date` header (and `now_ms` when the state has
     it), for the drum's beats at t0 + k·interval;
   - small DOM helpers that only ever set text (textContent), never markup: names and every
     other user-entered text are shown as text.

   Example (a page module):
     import { page, live, post } from "/static/api.js";
     live((state) => render(state));
     await post("/api/advance", { delta: 1 });
*/

export const page = (() => {
  const d = document.body.dataset;
  return {
    token: d.token || "",
    csrf: d.csrf || "",
    role: d.role || "",
    seat: d.seat || "",
    performer: d.performerRole || "",
  };
})();

export const $ = (id) => document.getElementById(id);

/** An element with attributes and text (never HTML). el("b", {class: "x"}, "名") */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Replace the children of `node` with `children` (text or nodes). */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const c of children) {
    if (c == null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** A random key for a POST: crypto.randomUUID where the page is a secure context (localhost),
    else 128 random bits from getRandomValues (a tablet on http://192.168.… is not secure). */
export function newKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** "1:05:09" / "5:09" from seconds; "—" when unknown. */
export function fmtDur(s) {
  if (s == null || !Number.isFinite(Number(s))) return "—";
  const neg = s < 0;
  let t = Math.round(Math.abs(s));
  const h = Math.floor(t / 3600);
  t -= h * 3600;
  const m = Math.floor(t / 60);
  const sec = t - m * 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${neg ? "−" : ""}${h ? h + ":" : ""}${mm}:${String(sec).padStart(2, "0")}`;
}

// ------------------------------------------------------------------ the server's clock
/* Each response bounds the offset (server − client): the server's time `S` was read between
   our send and our receipt, so offset ∈ [S − recv, S − send]; a `Date` header has whole
   seconds, so S ∈ [D, D + 1000). Intersecting the bounds of several responses narrows the
   offset to about a round trip; the estimate is the middle. An empty intersection (a clock
   was set meanwhile) starts again from the last response. */
export const clock = {
  lo: -Infinity,
  hi: Infinity,
  samples: 0,
  sample(sendMs, recvMs, serverLo, serverHi) {
    const lo = serverLo - recvMs;
    const hi = serverHi - sendMs;
    const nlo = Math.max(this.lo, lo);
    const nhi = Math.min(this.hi, hi);
    if (nlo > nhi) {
      this.lo = lo;
      this.hi = hi;
    } else {
      this.lo = nlo;
      this.hi = nhi;
    }
    this.samples += 1;
  },
  fromResponse(res, sendMs, recvMs, body) {
    const nowMs = body && (body.now_ms ?? body.server_ms);
    if (typeof nowMs === "number") {
      if (!this.exact) {
        // the first exact time: forget the coarse bounds of the Date headers
        this.lo = -Infinity;
        this.hi = Infinity;
      }
      this.exact = true;
      this.sample(sendMs, recvMs, nowMs, nowMs);
      return;
    }
    if (this.exact) return;
    const date = res.headers.get("Date");
    if (date) {
      // whole seconds, and a server may refresh its Date header only once a second
      // (uvicorn does): the time is within [D, D + 2 s)
      const d = Date.parse(date);
      if (Number.isFinite(d)) this.sample(sendMs, recvMs, d, d + 1999);
    }
  },
  exact: false,
  /** Ask the server for its time `n` times (spread over about a second) to narrow the offset. */
  async sync(n = 5) {
    for (let i = 0; i < n; i++) {
      try {
        await getJSON("/api/state");
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 120 + Math.random() * 160));
    }
  },
  /** the estimated offset in ms (0 before any response) */
  get offset() {
    if (!Number.isFinite(this.lo) || !Number.isFinite(this.hi)) return 0;
    return (this.lo + this.hi) / 2;
  },
  /** ± how far the estimate can be off, in ms */
  get error() {
    if (!Number.isFinite(this.lo) || !Number.isFinite(this.hi)) return Infinity;
    return (this.hi - this.lo) / 2;
  },
  /** the server's time now, in ms since the epoch */
  now() {
    return Date.now() + this.offset;
  },
};

// ------------------------------------------------------------------ requests
export class ApiError extends Error {
  constructor(status, body, path) {
    const msg = (body && body.error) || `${status} ${path}`;
    super(msg);
    this.status = status;
    this.body = body || {};
    this.path = path;
  }
}

async function readBody(res) {
  const type = res.headers.get("Content-Type") || "";
  if (type.includes("json")) {
    try {
      return await res.json();
    } catch {
      return null;
    }
  }
  const text = await res.text();
  return text ? { error: text.slice(0, 300) } : null;
}

function authHeaders(extra = {}) {
  const h = { ...extra };
  if (page.token) h.Authorization = `Bearer ${page.token}`;
  return h;
}

/** GET a JSON resource with the page's token; throws ApiError on 4xx/5xx. */
export async function getJSON(path) {
  const send = Date.now();
  const res = await fetch(path, { headers: authHeaders({ Accept: "application/json" }), cache: "no-store" });
  const body = await readBody(res);
  clock.fromResponse(res, send, Date.now(), body);
  if (!res.ok) throw new ApiError(res.status, body, path);
  return body;
}

/** GET a file with the page's token and hand it to the browser as a download. */
export async function download(path, filename) {
  const res = await fetch(path, { headers: authHeaders(), cache: "no-store" });
  if (!res.ok) throw new ApiError(res.status, await readBody(res), path);
  const url = URL.createObjectURL(await res.blob());
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const RETRY_MS = [400, 1000, 2000, 4000, 8000];

/**
 * POST `body` (plus a fresh `key`) as JSON. Network failures and 5xx are retried with the same
 * key (the server answers a replay as it answered the first); 4xx are not retried. Resolves to
 * {status, body}; throws ApiError for 4xx and for a 5xx/network failure after the last retry.
 * `onRetry(n, err)` is told of each retry, so the page can say "sending again…".
 */
export async function post(path, body = {}, { onRetry, noBearer } = {}) {
  const payload = { ...body, key: body.key || newKey() };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json",
    "X-CSRF-Token": page.csrf,
  };
  if (!noBearer && page.token) headers.Authorization = `Bearer ${page.token}`;
  let last = null;
  for (let attempt = 0; attempt <= RETRY_MS.length; attempt++) {
    if (attempt > 0) {
      if (onRetry) onRetry(attempt, last);
      await new Promise((r) => setTimeout(r, RETRY_MS[attempt - 1]));
    }
    let res;
    const send = Date.now();
    try {
      res = await fetch(path, { method: "POST", headers, body: JSON.stringify(payload), cache: "no-store" });
    } catch (e) {
      last = e; // the request may or may not have reached the server: same key again
      continue;
    }
    const data = await readBody(res);
    clock.fromResponse(res, send, Date.now(), data);
    if (res.status >= 500) {
      last = new ApiError(res.status, data, path);
      continue;
    }
    if (!res.ok) throw new ApiError(res.status, data, path);
    return { status: res.status, body: data, key: payload.key };
  }
  if (last instanceof ApiError) throw last;
  throw new ApiError(0, { error: `no answer from the server (${last && last.message})` }, path);
}

// ------------------------------------------------------------------ the live state
/**
 * Keep `onState(state)` fed with the newest state: one GET, then the stream. On each
 * (re)connection the state is fetched again (events may have been missed while away).
 * `onStatus(kind, text)` reports "live" | "reconnecting" | "revoked" | "error".
 */
export function live(onState, onStatus = () => {}) {
  let version = -Infinity;
  let es = null;
  let retryTimer = null;
  const accept = (s) => {
    if (!s || typeof s !== "object") return;
    const v = typeof s.version === "number" ? s.version : version;
    if (v < version) return; // an older state arriving late
    version = v;
    document.body.dataset.version = String(v);
    onState(s);
  };
  const refetch = async () => {
    try {
      accept(await getJSON("/api/state"));
      return true;
    } catch (e) {
      if (e.status === 401 || e.status === 403) {
        onStatus("revoked", e.message);
        if (es) es.close();
        return false;
      }
      onStatus("error", e.message);
      return null;
    }
  };
  /* A phone that slept, or lost its Wi-Fi, may keep a stream the server has long closed and
     hear nothing: the server pings every stream every 15 s, so a page that has heard nothing
     for 40 s, or that wakes up (visible again, back online) after 20 s of silence, opens a new
     stream and fetches the state it missed. */
  let heard = Date.now();
  const stale = (ms) => Date.now() - heard > ms;
  const wake = () => {
    if (es && stale(20000)) {
      heard = Date.now();
      open();
    }
  };
  setInterval(() => {
    if (es && stale(40000)) {
      heard = Date.now();
      onStatus("reconnecting", "");
      open();
    }
  }, 5000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") wake();
  });
  window.addEventListener("online", wake);
  const open = () => {
    if (es) es.close();
    heard = Date.now();
    es = new EventSource(`/api/stream?token=${encodeURIComponent(page.token)}`);
    es.addEventListener("ping", () => {
      heard = Date.now();
    });
    es.addEventListener("open", () => {
      // a new connection (perhaps to a restarted server): whatever it says now is the truth,
      // even if its version counts from lower than the last one seen
      version = -Infinity;
      onStatus("live", "");
      document.body.dataset.live = "1";
      refetch();
    });
    es.addEventListener("state", (ev) => {
      heard = Date.now();
      try {
        accept(JSON.parse(ev.data));
      } catch (e) {
        onStatus("error", `bad state from the server: ${e.message}`);
      }
    });
    es.addEventListener("error", async () => {
      document.body.dataset.live = "0";
      if (es.readyState === EventSource.CLOSED) {
        // the server refused the stream (revoked token, restart…): find out why, try again
        onStatus("reconnecting", "");
        const ok = await refetch();
        if (ok === false) return;
        clearTimeout(retryTimer);
        retryTimer = setTimeout(open, 3000);
      } else {
        onStatus("reconnecting", ""); // the browser reconnects by itself
      }
    });
  };
  refetch().then((ok) => {
    if (ok !== false) open();
  });
  return {
    refetch,
    get version() {
      return version;
    },
    /** After a POST answered with the state's new `version`: if the stream has not brought
        that state within a moment (a stream down or slow), fetch it, so the page that acted
        always shows the result of its own act. */
    caughtUp(res) {
      const want = res && res.body && res.body.version;
      if (typeof want !== "number") return;
      setTimeout(() => {
        if (version < want) refetch();
      }, 150);
    },
  };
}

/** A status line in #status for the live connection and for errors; `own()` may give the
    page's own words for some kinds (the audience screen's English). */
export function statusLine(node, own = () => null) {
  let last = null;
  const set = (kind, text) => {
    last = [kind, text];
    node.dataset.kind = kind;
    const words = {
      live: "● 連線",
      reconnecting: "○ 重新連線中…",
      revoked: "✕ 此連結已撤銷或無效",
      error: "⚠ ",
      sending: "… ",
      ok: "✓ ",
      ...(own() || {}),
    };
    node.textContent = (words[kind] ?? "") + (text || "");
  };
  /** the last status said again (`own` words changed: the page's language) */
  set.again = () => last && set(...last);
  return set;
}

/** Show an error message in `node` (text only) and mark it. */
export function showError(node, err) {
  node.hidden = false;
  node.dataset.kind = "error";
  const msg = err instanceof ApiError ? `${err.status || ""} ${err.message}`.trim() : String(err && err.message ? err.message : err);
  node.textContent = msg;
}

/** Keys that drive a page, ignored while typing in a field. */
export function onKeys(map) {
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const f = map[e.key] || map[e.code];
    if (f) {
      e.preventDefault();
      f(e);
    }
  });
}

/** Mark the 經 words of the step inside the passage, as text nodes and <mark>. */
export function markedPassage(node, text, words) {
  node.replaceChildren();
  if (!text) return node;
  const i = words ? text.indexOf(words) : -1;
  if (i < 0) {
    node.textContent = text;
    return node;
  }
  node.append(text.slice(0, i), el("mark", {}, words), text.slice(i + words.length));
  return node;
}

/** The cast name for an actor (role as the text names it), from the event's cast. */
export function nameOf(event, actor) {
  const cast = (event && event.cast) || [];
  for (const c of cast) {
    if (c && (c.role === actor || c.actor === actor) && c.name) return c.name;
  }
  return null;
}

/** Fetch the diagram of a step (it needs the bearer) and show it as an <img> in `node`. */
export function diagramLoader(node, { transform = null } = {}) {
  let shown = null;
  let url = null;
  let wanted = null;
  // `view`: the server's view (auto, hall, range); `transform`: the SVG text → the text shown
  // (the audience screen's framing, frame.js)
  const load = async (seq, view = "") => {
    const key = seq == null ? null : `${seq}${view ? `?${view}` : ""}`;
    if (key == null || key === shown || key === wanted) return;
    wanted = key;
    try {
      const q = view ? `?view=${encodeURIComponent(view)}` : "";
      const res = await fetch(`/api/diagram/${encodeURIComponent(seq)}.svg${q}`, { headers: authHeaders() });
      if (!res.ok) throw new ApiError(res.status, await readBody(res), "diagram");
      const blob = transform
        ? new Blob([transform(await res.text())], { type: "image/svg+xml" })
        : await res.blob();
      if (wanted !== key) return; // a newer step was asked for meanwhile
      const next = URL.createObjectURL(blob.type ? blob : new Blob([blob], { type: "image/svg+xml" }));
      const img = el("img", { src: next, alt: `step ${seq}`, dataset: { seq: String(seq) } });
      fill(node, img);
      if (url) URL.revokeObjectURL(url);
      url = next;
      shown = key;
      node.dataset.seq = String(seq);
    } catch (e) {
      if (wanted === key) wanted = null;
      fill(node, el("p", { class: "err" }, `diagram: ${e.message}`));
    }
  };
  /** the next load draws its step again, even the one shown (its framing has changed) */
  load.again = () => {
    shown = null;
    wanted = null;
  };
  return load;
}

// ------------------------------------------------------------------ words shared by the pages
/** The rounds as the viewer names them (round 0 is everything outside the three rounds). */
export const ROUND_NAMES = ["射外", "第一番射", "第二番射", "第三番射"];
export const roundName = (r) => ROUND_NAMES[r] ?? (r == null ? "" : `第${r}番`);
/** 上射 shoots from the 右物 and his 筭 go to the right; 下射 to the left (docs/scoring.md) */
export const SIDE_OF_SEAT = { 上射: "右", 下射: "左" };
export const FACING = { N: "北面", S: "南面", E: "東面", W: "西面", NE: "東北面", NW: "西北面", SE: "東南面", SW: "西南面" };

/** 中 / 不中 / … for an arrow, with 應鼓 / 不應鼓 when it was marked. */
export function shotWords(s) {
  if (!s || s.hit == null) return "…";
  let w = s.hit ? "中" : "不中";
  if (s.hit && s.on_beat === true) w += "·應鼓";
  if (s.hit && s.on_beat === false) w += "·不應鼓";
  return w;
}

/** The shots of one round, in the server's order (the order of shooting). */
export function shotsOf(state, round) {
  return ((state && state.shots) || []).filter((s) => s.round === round);
}

/** The round whose arrows a scorer or the director looks at: the state's round while shooting,
    else the first round with an arrow still to record, else the last round with arrows. */
export function roundInPlay(state) {
  if (state && state.round > 0) return state.round;
  const shots = (state && state.shots) || [];
  const open = shots.find((s) => s.hit == null && s.round > 0);
  if (open) return open.round;
  return shots.reduce((m, s) => Math.max(m, s.round || 0), 0);
}

/** The archer's words: 上耦上射 and the cast name if the server gives one. */
export function archerLabel(shot, event) {
  const who = shot.archer && shot.archer !== shot.seat ? shot.archer : `${shot.pair || ""}${shot.seat || ""}`;
  const name = shot.name || nameOf(event, who);
  return name ? `${who} (${name})` : who;
}
