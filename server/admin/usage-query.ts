import { USAGE_GROUP_BY, type UsageGroupBy, type UsageQuery } from '../governance/usage-report.ts';

/** The query parameters of the usage routes, strings once the spec has checked them (a repeated one is refused there). */
export interface UsageParams {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly group_by?: string | undefined;
}

export type ParsedUsage = { readonly ok: true; readonly query: UsageQuery } | { readonly ok: false; readonly message: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 with its zone: a time without one would be read in the server's zone, which differs by host.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * from, to and group_by of GET /api/v1/admin/usage (and a key's usage): a range [from, to) where a
 * date alone means its UTC midnight (so to=2026-02-01 ends January), and groups in the order given.
 */
export function parseUsageQuery(params: UsageParams): ParsedUsage {
  const problems: string[] = [];
  const from = moment('from', params.from, problems);
  const to = moment('to', params.to, problems);
  if (from !== undefined && to !== undefined && from > to) {
    problems.push(`query.from (${new Date(from).toISOString()}) is after query.to (${new Date(to).toISOString()}): the range is [from, to)`);
  }
  const groupBy = groups(params.group_by, problems);
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  return { ok: true, query: { fromMs: from, toMs: to, groupBy } };
}

function moment(name: string, value: string | undefined, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  const date = DATE.exec(value);
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const ms = Date.UTC(year, month - 1, day);
    const back = new Date(ms);
    // Date.UTC rolls 2026-02-30 over into March: a day that is not in its month is refused instead.
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) return ms;
  } else if (DATE_TIME.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  problems.push(`query.${name}: ${JSON.stringify(value)} is not a date (2026-01-31, its UTC midnight) or a date-time with a zone (2026-01-31T12:00:00Z)`);
  return undefined;
}

function groups(value: string | undefined, problems: string[]): UsageGroupBy[] {
  if (value === undefined) return [];
  const names = value.split(',').map((name) => name.trim());
  if (names.length === 1 && names[0] === '') return [];
  const out: UsageGroupBy[] = [];
  for (const name of names) {
    if (!(USAGE_GROUP_BY as readonly string[]).includes(name)) {
      problems.push(`query.group_by: ${JSON.stringify(name)} is not one of ${USAGE_GROUP_BY.join(', ')} (give them comma-separated, e.g. group_by=day,model)`);
    } else if (out.includes(name as UsageGroupBy)) {
      problems.push(`query.group_by: ${name} is given twice`);
    } else {
      out.push(name as UsageGroupBy);
    }
  }
  return out;
}
