// The player's recent results at each table (the bead road) and the round he has money
// in, kept in sessionStorage so that a reload, a reconnect or a restart of the server
// loses neither.
const roadKey = (table) => `croupier.road.${table}`;
const openKey = (table) => `croupier.open-round.${table}`;
const ROAD_LENGTH = 60;

const read = (key, fallback) => {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? "null") ?? fallback;
  } catch {
    return fallback;
  }
};

/** The recent results at `table`, oldest first: {round, number, kind, net}. */
export const road = (table) => read(roadKey(table), []);

/** Add a finished round (once per round); returns the road. */
export function remember(table, entry) {
  const entries = road(table);
  if (entries.some((e) => e.round === entry.round)) return entries;
  const next = [...entries, entry].slice(-ROAD_LENGTH);
  sessionStorage.setItem(roadKey(table), JSON.stringify(next));
  return next;
}

/** The round at `table` the player has money in and has not seen end: {round, number}. */
export const openRound = (table) => read(openKey(table), null);

export function setOpenRound(table, round) {
  if (round) sessionStorage.setItem(openKey(table), JSON.stringify(round));
  else sessionStorage.removeItem(openKey(table));
}
