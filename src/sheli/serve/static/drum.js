/* The drum of the third round, played in the browser.

   Beats fall at t0 + k·interval on the SERVER's clock (state.drum: interval_ms, t0_ms,
   running), so every device — the director's laptop, the scorers' tablets, the projector —
   beats together, each using its estimate of the server's clock (api.js `clock`).

   Sound: Web Audio only, no audio files. A lookahead timer (every 25 ms) schedules each beat
   that falls in the next 150 ms at its exact audio time (`AudioContext` time, mapped from the
   performance clock with getOutputTimestamp, so output latency is allowed for): the timer may
   be late by tens of ms, the sound is not (sample-accurate scheduling, as in "A Tale of Two
   Clocks"). The drum is synthesised: a sine falling 120 → 45 Hz with a fast decay, plus a
   short filtered noise for the skin.

   The music's 節 (what we assume, and where it comes from):
   - 鄉射禮 sings 騶虞 (經 xiangshe:249–250 「奏騶虞閒若一」; 記 xiangshe:365
     「歌騶虞若采蘋皆五終」).
   - 鄭注 xiangshe:248: 「鄉射之鼓五節，歌五終，所以將八矢。一節之閒當拾發，四節四拾，其一節先以
     聽也」: five 節 to a pair; the first is heard, and in each of the other four the pair shoots
     拾發 (上射 then 下射, one arrow each), so four 節 carry the eight arrows.
   - 周禮 射人 (quoted in seed 001, 射義 and its 陳注; 賈疏 xiangshe:248) gives 騶虞九節 — but
     that is the king's measure (王以騶虞九節, 五節先以聽); 賈疏 xiangshe:248: 「卿大夫士同五節
     … 尊卑樂節雖多少不同，四節以盡乘矢則同」. So 鄉射 uses five 節, not nine.
   Our rendering (an assumption, not a reconstruction of the melody, which is lost): one beat
   of the drum is one 節, 間若一 = beats evenly spaced at the director's interval; the beats
   count from t0 in cycles of five, the first of each cycle the heard 節 (聽), the next four
   the 拾 節 (一拾 … 四拾); a soft tone marks each 節 (聽 lower, then four rising notes of the
   pentatonic scale). The director starts the drum (a new t0) when a pair stands on its 物,
   so each pair hears its 聽 節 first.

   Example:
     const drum = new Drum({ onBeat: (k, jie) => … });
     drum.update(state.drum);           // from every state
     button.onclick = () => drum.enableSound();
*/

import { clock, el } from "/static/api.js";

/** 五節 a pair: 鄭注 xiangshe:248 「鄉射之鼓五節 … 其一節先以聽也」 */
export const JIE_PER_PAIR = 5;
/** the names shown for the five 節 of a cycle */
export const JIE_NAMES = ["聽", "一拾", "二拾", "三拾", "四拾"];
// 宮 for the heard 節, then 商 角 徵 羽 rising (G4 A4 B4 D5 E5): a cue, not the lost melody
const JIE_TONES_HZ = [392.0, 440.0, 493.88, 587.33, 659.25];

const LOOKAHEAD_MS = 25; // how often the scheduler wakes
const AHEAD_S = 0.15; // how far ahead it schedules

/** The 節 (0..4) of beat k of a cycle that starts at t0. */
export function jieOf(k) {
  return ((k % JIE_PER_PAIR) + JIE_PER_PAIR) % JIE_PER_PAIR;
}

export class Drum {
  constructor({ onBeat = () => {}, tones = true } = {}) {
    this.onBeat = onBeat;
    this.tones = tones;
    this.interval = 0;
    this.t0 = null;
    this.running = false;
    this.ctx = null;
    this.sound = false;
    this.nextK = 0; // the next beat to schedule in audio
    this.shownK = null; // the last beat shown
    this.scheduled = []; // {when, nodes} of beats scheduled and not yet sounded
    this.timer = null;
    this.noise = null;
    this.base = null; // the audio time of beat 0 (see _base)
    this._frame = this._frame.bind(this);
    requestAnimationFrame(this._frame);
  }

  /** Take the drum's settings from a state (`state.drum`). */
  update(d) {
    if (!d) return;
    const interval = Number(d.interval_ms) || 0;
    const t0 = d.t0_ms == null ? null : Number(d.t0_ms);
    const running = Boolean(d.running) && t0 != null && interval > 0;
    const changed = interval !== this.interval || t0 !== this.t0 || running !== this.running;
    this.interval = interval;
    this.t0 = t0;
    this.running = running;
    if (!changed) return;
    this._cancelScheduled();
    this.shownK = null;
    this.base = null;
    if (running) this.nextK = Math.max(0, this.beatAt(clock.now()) + 1);
    this._loop();
  }

  /** The beat number at server time `t` (−1 before t0). */
  beatAt(t) {
    if (this.t0 == null || !this.interval) return -1;
    return Math.floor((t - this.t0) / this.interval);
  }

  /** Server time of beat k. */
  timeOf(k) {
    return this.t0 + k * this.interval;
  }

  /** Where server time `t` falls between beats: {k, phase 0..1, jie, nearest k, off ms}. */
  where(t = clock.now()) {
    const k = this.beatAt(t);
    if (k < 0) return null;
    const phase = (t - this.timeOf(k)) / this.interval;
    const nearest = phase < 0.5 ? k : k + 1;
    return { k, phase, jie: jieOf(k), nearest, off: t - this.timeOf(nearest) };
  }

  /** Start the audio (must be called from a click or key: the browser's autoplay rule). */
  async enableSound() {
    if (!this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) throw new Error("this browser has no Web Audio");
      this.ctx = new AC({ latencyHint: "interactive" });
      this.noise = this._noiseBuffer();
    }
    await this.ctx.resume();
    this.sound = true;
    this.base = null; // a suspended context's time stood still: map afresh
    this.nextK = Math.max(this.nextK, this.beatAt(clock.now()) + 1);
    this._loop();
  }

  disableSound() {
    this.sound = false;
    this._cancelScheduled();
    if (this.ctx) this.ctx.suspend();
  }

  // ---------------------------------------------------------------- scheduling
  _loop() {
    clearTimeout(this.timer);
    if (!this.running) return;
    if (this.sound && this.ctx && this.ctx.state === "running") this._schedule();
    this.timer = setTimeout(() => this._loop(), LOOKAHEAD_MS);
  }

  /** The audio time at which server time `t` is heard. */
  _audioTime(t) {
    const perf = performance.now() + (t - clock.now());
    const ts = this.ctx.getOutputTimestamp ? this.ctx.getOutputTimestamp() : null;
    if (ts && ts.performanceTime > 0) return ts.contextTime + (perf - ts.performanceTime) / 1000;
    return this.ctx.currentTime + (perf - performance.now()) / 1000 - (this.ctx.outputLatency || this.ctx.baseLatency || 0);
  }

  /** The audio time of beat 0. Kept fixed while the clock estimate stays within 10 ms of it,
      so every beat is exactly base + k·interval (間若一, to the sample), not a fresh mapping
      each time with its jitter; a larger change (the clock estimate improved, the machine
      slept) moves it. */
  _base() {
    const b = this._audioTime(this.t0);
    if (this.base == null || Math.abs(b - this.base) > 0.01) this.base = b;
    return this.base;
  }

  _schedule() {
    const horizon = clock.now() + AHEAD_S * 1000;
    const now = this.ctx.currentTime;
    const base = this._base();
    this.scheduled = this.scheduled.filter((s) => s.when > now - 1);
    for (let k = this.nextK; this.timeOf(k) <= horizon; k++) {
      const when = base + (k * this.interval) / 1000;
      if (when >= now) this.scheduled.push({ k, when, base, nodes: this._strike(when, jieOf(k)) });
      this.nextK = k + 1;
    }
  }

  _cancelScheduled() {
    const now = this.ctx ? this.ctx.currentTime : 0;
    for (const s of this.scheduled) {
      if (s.when <= now) continue;
      for (const n of s.nodes) {
        try {
          n.stop();
        } catch {
          /* already stopped */
        }
      }
    }
    this.scheduled = [];
  }

  _noiseBuffer() {
    const len = Math.floor(this.ctx.sampleRate * 0.1);
    const buf = this.ctx.createBuffer(1, len, this.ctx.sampleRate);
    const data = buf.getChannelData(0);
    for (let i = 0; i < len; i++) data[i] = Math.random() * 2 - 1;
    return buf;
  }

  /** One stroke of the drum at audio time `t`, with the tone of its 節. */
  _strike(t, jie) {
    const ctx = this.ctx;
    const out = ctx.destination;
    const nodes = [];
    // the body: a falling sine
    const body = ctx.createOscillator();
    const bodyGain = ctx.createGain();
    body.type = "sine";
    body.frequency.setValueAtTime(120, t);
    body.frequency.exponentialRampToValueAtTime(45, t + 0.3);
    bodyGain.gain.setValueAtTime(0.0001, t);
    bodyGain.gain.exponentialRampToValueAtTime(jie === 0 ? 0.6 : 0.9, t + 0.004);
    bodyGain.gain.exponentialRampToValueAtTime(0.0001, t + 0.6);
    body.connect(bodyGain).connect(out);
    body.start(t);
    body.stop(t + 0.65);
    nodes.push(body);
    // the skin: a short burst of low-passed noise
    const skin = ctx.createBufferSource();
    skin.buffer = this.noise;
    const lp = ctx.createBiquadFilter();
    lp.type = "lowpass";
    lp.frequency.value = 900;
    const skinGain = ctx.createGain();
    skinGain.gain.setValueAtTime(0.35, t);
    skinGain.gain.exponentialRampToValueAtTime(0.0001, t + 0.08);
    skin.connect(lp).connect(skinGain).connect(out);
    skin.start(t);
    skin.stop(t + 0.1);
    nodes.push(skin);
    // the 節: a soft tone over most of the interval
    if (this.tones) {
      const len = Math.min(1.6, Math.max(0.2, (this.interval / 1000) * 0.7));
      const tone = ctx.createOscillator();
      const toneGain = ctx.createGain();
      tone.type = "triangle";
      tone.frequency.setValueAtTime(JIE_TONES_HZ[jie], t);
      toneGain.gain.setValueAtTime(0.0001, t);
      toneGain.gain.exponentialRampToValueAtTime(0.12, t + 0.03);
      toneGain.gain.exponentialRampToValueAtTime(0.0001, t + len);
      tone.connect(toneGain).connect(out);
      tone.start(t);
      tone.stop(t + len + 0.02);
      nodes.push(tone);
    }
    return nodes;
  }

  // ---------------------------------------------------------------- the visual beat
  _frame() {
    requestAnimationFrame(this._frame);
    if (!this.running) return;
    const k = this.beatAt(clock.now());
    if (k < 0 || k === this.shownK) return;
    this.shownK = k;
    this.onBeat(k, jieOf(k));
  }
}

/**
 * A beat indicator in `node`: a lamp that flashes on each beat, the 節 of the cycle (聽, 一拾 …
 * 四拾), five dots, and a sound on/off button. Returns the Drum it drives.
 */
export function beatIndicator(node, { withSound = true } = {}) {
  const lamp = el("div", { class: "lamp", "aria-hidden": "true" });
  const name = el("div", { class: "jie", "aria-live": "off" }, "—");
  const dots = el("div", { class: "dots", "aria-hidden": "true" });
  for (let j = 0; j < JIE_PER_PAIR; j++) dots.append(el("span", { class: j === 0 ? "dot listen" : "dot" }));
  const pace = el("div", { class: "pace" });
  const soundBtn = el("button", { type: "button", class: "sound", "aria-pressed": "false" }, "♪ 聲");
  node.classList.add("beat-indicator");
  node.replaceChildren(lamp, el("div", { class: "jie-box" }, name, dots), pace);
  if (withSound) node.append(soundBtn);
  const drum = new Drum({
    onBeat: (k, jie) => {
      node.dataset.beats = String(Number(node.dataset.beats || 0) + 1);
      node.dataset.beat = String(k);
      node.dataset.jie = String(jie);
      name.textContent = JIE_NAMES[jie];
      [...dots.children].forEach((d, j) => d.classList.toggle("on", j === jie));
      lamp.classList.remove("flash");
      void lamp.offsetWidth; // restart the animation
      lamp.classList.add("flash");
    },
  });
  const origUpdate = drum.update.bind(drum);
  let synced = false;
  drum.update = (d) => {
    origUpdate(d);
    if (drum.running && !synced && clock.error > 25) {
      synced = true; // the beats must fall together on every screen: narrow the clock once
      clock.sync(5).then(() => drum.update(d));
    }
    node.dataset.running = drum.running ? "1" : "0";
    pace.textContent = drum.running
      ? `鼓 ${(drum.interval / 1000).toFixed(2)} s · ±${Number.isFinite(clock.error) ? Math.round(clock.error) : "?"} ms`
      : d && d.interval_ms
        ? `鼓停 (${(d.interval_ms / 1000).toFixed(2)} s)`
        : "鼓停";
    if (!drum.running) {
      name.textContent = "—";
      [...dots.children].forEach((x) => x.classList.remove("on"));
    }
  };
  node.drum = drum; // for scripts and tests: document.getElementById("beat").drum
  soundBtn.addEventListener("click", async () => {
    if (drum.sound) {
      drum.disableSound();
      soundBtn.setAttribute("aria-pressed", "false");
    } else {
      try {
        await drum.enableSound();
        soundBtn.setAttribute("aria-pressed", "true");
        node.dataset.sound = drum.ctx.state;
      } catch (e) {
        soundBtn.textContent = `♪ ${e.message}`;
      }
    }
  });
  return drum;
}
