// How the events of a round that come over the socket join those the page has.

/**
 * Join an `events` message to the `have` events the page holds of its round: the
 * events it did not have yet (`fresh`), or, when the message starts past them (some
 * were missed, say across a failover), `ask`: the place to ask for them from
 * (`events_since`). A message without `first` is taken as it comes.
 */
export function joinEvents(have, first, events) {
  if (first === undefined || first === null) return { fresh: events, ask: null };
  if (first > have) return { fresh: [], ask: have };
  return { fresh: events.slice(have - first), ask: null };
}
