// The flags that set a key's fields, shared by `keys create` (any subset) and `keys update` (any
// subset, where the word `none` clears a field). Each flag is checked as it is parsed, so a wrong
// value is a usage error (exit 2) before anything is sent; what only the gateway knows (its
// teams, models and pools) it checks itself and answers 400.
import { InvalidArgumentError, type Command } from 'commander';
import type { BudgetPeriod, KeyCreate, KeyUpdate } from '../clients-ts/src/index.ts';
import { usageError } from './errors.ts';

const MAX_BUDGET_CENTS = 1_000_000_000_000;
const MAX_RPM = 1_000_000;
const MAX_TPM = 1_000_000_000;
const PERIODS: readonly BudgetPeriod[] = ['daily', 'weekly', 'monthly'];
/** The word that clears a field in `keys update`. */
export const NONE = 'none';

type Mode = 'create' | 'update';
/**
 * `none` as parsed: commander turns a parser's null into '' (an empty string), so a cleared field
 * is this marker until keyBody() turns it into the null the admin API takes.
 */
const CLEARED = Symbol('cleared');
type Cleared<T> = T | typeof CLEARED;

export interface KeyFlags {
  name?: Cleared<string>;
  owner?: Cleared<string>;
  budgetCents?: Cleared<number>;
  budgetPeriod?: Cleared<BudgetPeriod>;
  rpm?: Cleared<number>;
  tpm?: Cleared<number>;
  models?: Cleared<string[]>;
  expiresAt?: Cleared<string>;
  expiresIn?: number;
  team?: Cleared<string>;
  metadata?: Cleared<Record<string, string>>;
}

/** Adds the key field flags to `create` or `update`; on update each also takes `none`. */
export function addKeyFlags(command: Command, mode: Mode): Command {
  const or = (what: string) => (mode === 'update' ? `${what}; ${NONE} clears it` : what);
  const clearable =
    <T>(parse: (value: string) => T) =>
    (value: string): Cleared<T> =>
      mode === 'update' && value === NONE ? CLEARED : parse(value);
  return command
    .option('--name <name>', or('what the key is for, for people (1 to 200 characters)'), clearable(text('--name', 200)))
    .option('--owner <owner>', or('who holds the key, for people (1 to 200 characters)'), clearable(text('--owner', 200)))
    .option(
      '--budget-cents <int>',
      or(`spend allowed, in US cents (0 to ${MAX_BUDGET_CENTS}): over the key's life, or per --budget-period`),
      clearable(wholeNumber(0, MAX_BUDGET_CENTS)),
    )
    .option('--budget-period <period>', or(`${PERIODS.join(', ')}: the budget resets each calendar period (UTC)`), clearable(period))
    .option('--rpm <int>', or(`requests per minute (1 to ${MAX_RPM})`), clearable(wholeNumber(1, MAX_RPM)))
    .option('--tpm <int>', or(`tokens (input + output) per minute (1 to ${MAX_TPM})`), clearable(wholeNumber(1, MAX_TPM)))
    .option('--models <names>', or('the model and pool names the key may call, comma-separated (a,b)'), clearable(modelList))
    .option('--expires-at <time>', or('when the key stops working: 2026-12-31 (UTC midnight) or 2026-12-31T18:00:00Z'), clearable(moment))
    .option('--expires-in <duration>', 'when the key stops working, from now: 90m, 12h, 30d, 2w', duration)
    .option('--team <team>', or("a team of the gateway's configuration, whose budget the key's spend also counts against"), clearable(text('--team', 256)))
    .option(
      '--metadata <name=value>',
      mode === 'update' ? `labels, repeatable (k=v); replaces all of them; ${NONE} removes them` : 'a label for people and tools, repeatable (cost_centre=42)',
      metadataEntry(mode),
    );
}

/** The admin API's body from the flags given; flags left out are left out. */
export function keyBody(flags: KeyFlags, now = Date.now()): KeyCreate & KeyUpdate {
  if (flags.expiresAt !== undefined && flags.expiresIn !== undefined) {
    throw usageError('--expires-at and --expires-in both say when the key expires: give one of them');
  }
  const expiresAt = flags.expiresIn === undefined ? flags.expiresAt : new Date(now + flags.expiresIn).toISOString();
  const body: Record<string, unknown> = {
    name: flags.name,
    owner: flags.owner,
    budget_cents: flags.budgetCents,
    budget_period: flags.budgetPeriod,
    rpm: flags.rpm,
    tpm: flags.tpm,
    models: flags.models,
    expires_at: expiresAt,
    team: flags.team,
    metadata: flags.metadata,
  };
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, value === CLEARED ? null : value]),
  ) as KeyCreate & KeyUpdate;
}

/** A commander parser for a whole number in [min, max]; anything else is a usage error. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    if (n < min || n > max) throw new InvalidArgumentError(`must be from ${min} to ${max}, got ${n}`);
    return n;
  };
}

function text(flag: string, max: number): (value: string) => string {
  return (value) => {
    if (value.length < 1 || value.length > max) throw new InvalidArgumentError(`${flag} must be 1 to ${max} characters long`);
    return value;
  };
}

function period(value: string): BudgetPeriod {
  if (!(PERIODS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${PERIODS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as BudgetPeriod;
}

function modelList(value: string): string[] {
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name === ''))
    throw new InvalidArgumentError(`expected model or pool names separated by commas (gpt,claude), got ${JSON.stringify(value)}`);
  return [...new Set(names)];
}

/** A date (its UTC midnight) or a date-time with a zone, sent as ISO 8601 UTC. */
export function moment(value: string): string {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(date) ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(`expected a date (2026-12-31) or a date-time with a zone (2026-12-31T18:00:00Z), got ${JSON.stringify(value)}`);
  return new Date(ms).toISOString();
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** 90m, 12h, 30d, 2w -> milliseconds. */
function duration(value: string): number {
  const match = /^(\d+)\s*([smhdw])$/.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2]!]!;
  if (!(ms > 0) || !Number.isSafeInteger(ms)) {
    throw new InvalidArgumentError(`expected a positive duration with a unit (s, m, h, d, w), like 30d or 12h, got ${JSON.stringify(value)}`);
  }
  return ms;
}

/** name=value, repeatable: each one adds to the map (on update, `none` alone removes every label). */
function metadataEntry(mode: Mode): (value: string, previous: Cleared<Record<string, string>> | undefined) => Cleared<Record<string, string>> {
  return (value, previous) => {
    if (mode === 'update' && value === NONE) {
      if (previous !== undefined) throw new InvalidArgumentError(`${NONE} removes every label: give it alone`);
      return CLEARED;
    }
    if (previous === CLEARED) throw new InvalidArgumentError(`${NONE} removes every label: give it alone`);
    const at = value.indexOf('=');
    if (at < 1) throw new InvalidArgumentError(`expected name=value (cost_centre=42), got ${JSON.stringify(value)}`);
    const name = value.slice(0, at);
    if (previous !== undefined && Object.hasOwn(previous, name)) throw new InvalidArgumentError(`label ${JSON.stringify(name)} is given twice`);
    return { ...previous, [name]: value.slice(at + 1) };
  };
}
