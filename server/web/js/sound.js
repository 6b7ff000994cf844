// Short sounds made on the spot with the Web Audio API (no audio files):
// a tick in the last five seconds, a buzz for a wrong answer, a chime for a
// won round, a fanfare for the podium; and the phone's vibration where the
// browser has one. On by default (the TV's sound is the room's); a phone
// mutes with one tap, remembered on that browser.

const MUTED = 'krypto.muted';

/** Notes of each sound: [frequency Hz, start s, length s, wave, volume]. */
const SOUNDS = {
  tick: [[1320, 0, 0.05, 'square', 0.08]],
  wrong: [[220, 0, 0.16, 'sawtooth', 0.12], [165, 0.14, 0.22, 'sawtooth', 0.12]],
  win: [[523, 0, 0.12, 'triangle', 0.2], [659, 0.1, 0.12, 'triangle', 0.2], [784, 0.2, 0.12, 'triangle', 0.2],
    [1047, 0.3, 0.3, 'triangle', 0.22]],
  podium: [[392, 0, 0.15, 'triangle', 0.2], [523, 0.15, 0.15, 'triangle', 0.2], [659, 0.3, 0.15, 'triangle', 0.2],
    [784, 0.45, 0.3, 'triangle', 0.22], [659, 0.75, 0.12, 'triangle', 0.2], [784, 0.87, 0.5, 'triangle', 0.24]],
};

/** Vibration patterns (ms) for the sounds that mean something to the player. */
const BUZZ = { wrong: [70, 50, 70], win: [180], podium: [120, 60, 240] };

export function createSound() {
  let context = null;
  let muted = false;
  try {
    muted = localStorage.getItem(MUTED) === '1';
  } catch {
    // No storage: sound stays on for this page.
  }

  /** The audio context, made (or woken) on a person's tap or key. */
  function wake() {
    if (!context) {
      const Context = window.AudioContext ?? window.webkitAudioContext;
      if (!Context) return null;
      context = new Context();
    }
    if (context.state === 'suspended') context.resume().catch(() => {});
    return context;
  }
  // Browsers start audio only after a gesture: the first one anywhere will do.
  for (const event of ['pointerdown', 'keydown']) addEventListener(event, wake, { capture: true, passive: true });

  function tone(ctx, [freq, start, length, wave, volume]) {
    const at = ctx.currentTime + start;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(freq, at);
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
  }

  return {
    get muted() {
      return muted;
    },
    /** Whether the browser still waits for a tap before it plays anything. */
    get waiting() {
      return !context || context.state !== 'running';
    },
    setMuted(value) {
      muted = value;
      try {
        localStorage.setItem(MUTED, value ? '1' : '0');
      } catch {
        // Kept for this page only.
      }
      if (!value) wake();
    },
    /** Plays `name` (and vibrates, on a phone that can). */
    play(name, { vibrate = false } = {}) {
      if (muted) return;
      if (vibrate && BUZZ[name] && typeof navigator.vibrate === 'function') navigator.vibrate(BUZZ[name]);
      const ctx = wake();
      if (!ctx) return;
      for (const note of SOUNDS[name] ?? []) tone(ctx, note);
    },
  };
}
