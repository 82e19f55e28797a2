// Money as the server writes it: exact decimal text ("25.00"), added with big.js,
// never as floating point.
import Big from "big.js";

/** Exact decimal from the server's text (or another Big). */
export const amount = (text) => new Big(text ?? "0");

/** Text with the table's two decimals: "25.00", "-12.50". */
export const format = (value) => amount(value).toFixed(2);

/** The sum of amounts. */
export const sum = (values) => values.reduce((total, value) => total.plus(value), new Big(0));

/** Text with a sign for results: "+37.50", "-25.00", "0.00". */
export const signed = (value) => {
  const big = amount(value);
  return big.gt(0) ? `+${big.toFixed(2)}` : big.toFixed(2);
};

// The usual casino chip values; a table offers those from its minimum bet to its maximum.
const DENOMINATIONS = ["1", "5", "10", "25", "100", "500", "1000", "5000", "10000"];

/**
 * The chip values of a table: its minimum bet (a chip of its own when it is not a usual
 * value), then the usual values above it, at most six, none over the maximum bet.
 */
export function chipValues(minimum, maximum) {
  const low = amount(minimum);
  const high = amount(maximum);
  const values = DENOMINATIONS.map((d) => new Big(d)).filter((d) => d.gte(low) && d.lte(high));
  if (!values.length || !values[0].eq(low)) values.unshift(low);
  return values.slice(0, 6).map((value) => value.toFixed(2));
}

/** A chip's colour class, by the usual casino colours of its value. */
export function chipColour(value) {
  const big = amount(value);
  if (big.gte(5000)) return "chip-5000";
  if (big.gte(1000)) return "chip-1000";
  if (big.gte(500)) return "chip-500";
  if (big.gte(100)) return "chip-100";
  if (big.gte(25)) return "chip-25";
  if (big.gte(10)) return "chip-10";
  if (big.gte(5)) return "chip-5";
  return "chip-1";
}

/**
 * The chips that make up an amount, largest first (at most `most`, the rest left out):
 * how a stack on a betting spot is drawn.
 */
export function chipStack(value, most = 8) {
  let left = amount(value);
  const chips = [];
  for (const denomination of [...DENOMINATIONS].reverse()) {
    while (left.gte(denomination) && chips.length < most) {
      chips.push(new Big(denomination).toFixed(2));
      left = left.minus(denomination);
    }
  }
  if (left.gt(0) && chips.length < most) chips.push(left.toFixed(2));
  return chips;
}
