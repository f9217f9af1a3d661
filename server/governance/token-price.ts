/**
 * A price as an exact fraction: microcents per token = numerator / denominator. Catalog prices are
 * USD per million tokens, and P USD/M is P × 100 µ¢ per token; P comes from YAML as a binary
 * float, so it is read back through its shortest decimal form (0.075 → "0.075" → 75/1000 USD/M),
 * which is the number the operator wrote.
 */
export interface TokenPrice {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/** Read once per distinct price (prices come from the configuration, so the map stays small). */
const read = new Map<number, TokenPrice>();

export function microcentsPerToken(usdPerMillion: number): TokenPrice {
  let price = read.get(usdPerMillion);
  if (price === undefined) {
    price = readPrice(usdPerMillion);
    read.set(usdPerMillion, price);
  }
  return price;
}

function readPrice(usdPerMillion: number): TokenPrice {
  if (!Number.isFinite(usdPerMillion) || usdPerMillion < 0) throw new RangeError(`a price must be a finite number of at least 0 (got ${usdPerMillion})`);
  const match = DECIMAL.exec(String(usdPerMillion));
  if (match === null) throw new RangeError(`cannot read ${usdPerMillion} as a decimal price`);
  const [, whole = '0', fraction = '', exponent = '0'] = match;
  // digits × 10^(exponent − fraction digits) USD/M, and × 100 for µ¢ per token.
  const shift = Number(exponent) - fraction.length + 2;
  const digits = BigInt(whole + fraction);
  return shift >= 0 ? { numerator: digits * 10n ** BigInt(shift), denominator: 1n } : { numerator: digits, denominator: 10n ** BigInt(-shift) };
}

/** The price a token costs at most among several (all denominators are powers of ten). */
export function dearest(prices: readonly TokenPrice[]): TokenPrice {
  return prices.reduce((a, b) => (a.numerator * b.denominator >= b.numerator * a.denominator ? a : b));
}

/** Σ tokens × price, rounded up to a whole microcent. */
export function chargeMicrocents(lines: readonly { readonly tokens: number; readonly price: TokenPrice }[]): bigint {
  // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.max does not take
  const denominator = lines.reduce((d, line) => (line.price.denominator > d ? line.price.denominator : d), 1n);
  let numerator = 0n;
  for (const { tokens, price } of lines) {
    // Powers of ten: the largest is a multiple of each.
    numerator += BigInt(wholeTokens(tokens)) * price.numerator * (denominator / price.denominator);
  }
  return (numerator + denominator - 1n) / denominator;
}

/** Token counts come from upstream reports: a fractional one is not trusted below its ceiling, a negative or non-finite one counts 0. */
export function wholeTokens(tokens: number): number {
  return Number.isFinite(tokens) && tokens > 0 ? Math.ceil(tokens) : 0;
}
