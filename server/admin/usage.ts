import type { KeyAdmin } from '../governance/governance.ts';
import { keyNotFound, noStore } from './keys.ts';
import { errorReply, type OperationReply } from './reply.ts';
import { parseUsageQuery, type UsageParams } from './usage-query.ts';
import { usageReportView } from './usage-view.ts';

/**
 * "Who spent what, on which model, on which day": the spend ledger summed over a range and
 * grouped, for every key or for one.
 */
export function usageOperations(keys: KeyAdmin | undefined) {
  async function report(params: UsageParams, keyId: string | undefined) {
    if (keys === undefined) return noStore();
    const parsed = parseUsageQuery(params);
    if (!parsed.ok) return errorReply(400, 'invalid_request', parsed.message);
    const query = { ...parsed.query, ...(keyId !== undefined && { keyId }) };
    const [usage, all] = await Promise.all([keys.usage(query), query.groupBy.includes('key') ? keys.listKeys() : []]);
    const names = new Map(all.map((key) => [key.id, key.name]));
    return { status: 200 as const, body: usageReportView(query, usage, names) };
  }

  return {
    getApiV1AdminUsage(params: UsageParams): Promise<OperationReply<'/api/v1/admin/usage', 'get'>> {
      return report(params, undefined);
    },

    async getApiV1AdminKeysIdUsage(id: string, params: UsageParams): Promise<OperationReply<'/api/v1/admin/keys/{id}/usage', 'get'>> {
      if (keys === undefined) return noStore();
      if ((await keys.getKey(id)) === undefined) return keyNotFound(id);
      return report(params, id);
    },
  };
}
