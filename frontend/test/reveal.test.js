import { describe, expect, it } from "vitest";
import { reveal } from "../src/reveal.js";

/** An element whose box spans [top, bottom] on the screen. */
const at = (top, bottom) => ({ getBoundingClientRect: () => ({ top, bottom }) });
/** A screen ``height`` tall that records how far it was scrolled. */
function screen(height) {
  const moves = [];
  return { innerHeight: height, scrollBy: ({ top }) => moves.push(top), moves };
}

describe("reveal: the moment of a round on one screen", () => {
  it("scrolls down just far enough to show the bottom", () => {
    const view = screen(844);
    reveal(at(300, 500), at(800, 900), 0, view);
    expect(view.moves).toEqual([56]);
  });
  it("never scrolls the top off the screen: the top wins when both cannot fit", () => {
    const view = screen(844);
    reveal(at(40, 200), at(800, 1000), 0, view);
    expect(view.moves).toEqual([40]);
  });
  it("scrolls up to show a top hidden under a sticky bar", () => {
    const view = screen(800);
    reveal(at(20, 300), at(400, 600), 60, view);
    expect(view.moves).toEqual([-40]);
  });
  it("leaves a page that shows both where it is", () => {
    const view = screen(844);
    reveal(at(100, 200), at(600, 700), 0, view);
    expect(view.moves).toEqual([]);
  });
});
