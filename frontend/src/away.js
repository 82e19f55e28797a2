// Players who left in the middle of a round (the state's `away`), in words for the
// others at the table: who is gone, and how long the table waits for him.

const seconds = (at, now) => Math.max(0, Math.ceil(at - now));

/**
 * What the table says of each away player: [{player, text}]. `now` is the server's
 * time in seconds; `you` the viewer, who is never told of himself.
 */
export function awayWords(view, now, you = null) {
  const deadline = view.deadline;
  return (view.away ?? []).filter((gone) => gone.player !== you).map((gone) => {
    const { player } = gone;
    let waits;
    if (deadline && deadline.kind === "decision" && view.turn && seatedAt(view, view.turn.box) === player) {
      waits = `The table waits ${seconds(deadline.at, now)}s for his hand, then plays it for him: ${view.timeout_rule}.`;
    } else if (deadline && deadline.kind === "offer" && deadline.for === player) {
      waits = `The table waits ${seconds(deadline.at, now)}s for his answer, then declines the offer for him.`;
    } else if (gone.seat_until !== null && gone.seat_until !== undefined) {
      waits = `His box is kept for him for ${seconds(gone.seat_until, now)}s; the table does not wait for him.`;
    } else {
      waits = "The table does not wait for him: his hands are played by the table's rule when their turn comes.";
    }
    return { player, text: `${player} disconnected. ${waits}` };
  });
}

function seatedAt(view, number) {
  return view.boxes.find((box) => box.box === number)?.seated ?? null;
}
