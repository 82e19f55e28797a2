// Optional sound: short tones made with WebAudio (no audio files), off until the player
// turns it on; the choice is kept.
import { signal } from "@preact/signals";

const KEY = "croupier.sound";
export const soundOn = signal(localStorage.getItem(KEY) === "on");

let context = null;

export function toggleSound() {
  soundOn.value = !soundOn.value;
  localStorage.setItem(KEY, soundOn.value ? "on" : "off");
  if (soundOn.value) play("card");
}

const TONES = {
  card: [[880, 0.04]],
  chip: [[660, 0.05]],
  win: [[660, 0.09], [880, 0.09], [1320, 0.14]],
  blackjack: [[660, 0.08], [990, 0.08], [1320, 0.08], [1760, 0.18]],
  lose: [[330, 0.12], [247, 0.18]],
  push: [[520, 0.12]],
  turn: [[740, 0.07], [740, 0.07]],
};

/** Play one of the table's sounds, if sound is on. */
export function play(name) {
  if (!soundOn.value || !TONES[name]) return;
  try {
    context ??= new AudioContext();
    let at = context.currentTime;
    for (const [frequency, seconds] of TONES[name]) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.08, at);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + seconds);
      at += seconds;
    }
  } catch {
    // No audio here: the table plays on in silence.
  }
}
