import type { components } from '../../generated/admin-api.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import { centsToMicrocents } from '../shared/money.ts';
import { keyView } from './key-view.ts';
import { errorReply, type OperationReply } from './reply.ts';

type KeyCreate = components['schemas']['KeyCreate'];

const noStore = () => errorReply(409, 'no_store', 'virtual keys need the embedded store: set db_path in the configuration and restart');
const notFound = (id: string) => errorReply(404, 'not_found', `no key with id ${JSON.stringify(id)}`);

/**
 * The key operations: create (the secret is in this answer only), list, get, revoke. `keys` is the
 * governance facade, absent when no db_path is configured. Bodies and ids arrive validated against
 * spec/openapi.json.
 */
export function keyOperations(keys: KeyAdmin | undefined) {
  return {
    async postApiV1AdminKeys(body: KeyCreate): Promise<OperationReply<'/api/v1/admin/keys', 'post'>> {
      if (keys === undefined) return noStore();
      const created = await keys.createKey({
        name: body.name,
        owner: body.owner,
        budgetMicrocents: body.budget_cents === undefined ? undefined : centsToMicrocents(body.budget_cents),
        rpm: body.rpm,
      });
      // The secret is in this answer only: no cache along the way may keep a copy.
      return { status: 201, body: { ...keyView(created.key), secret: created.secret }, headers: { 'cache-control': 'no-store' } };
    },

    async getApiV1AdminKeys(): Promise<OperationReply<'/api/v1/admin/keys', 'get'>> {
      if (keys === undefined) return noStore();
      return { status: 200, body: { data: (await keys.listKeys()).map(keyView) } };
    },

    async getApiV1AdminKeysId(id: string): Promise<OperationReply<'/api/v1/admin/keys/{id}', 'get'>> {
      if (keys === undefined) return noStore();
      const key = await keys.getKey(id);
      return key === undefined ? notFound(id) : { status: 200, body: keyView(key) };
    },

    async deleteApiV1AdminKeysId(id: string): Promise<OperationReply<'/api/v1/admin/keys/{id}', 'delete'>> {
      if (keys === undefined) return noStore();
      const key = await keys.revokeKey(id);
      return key === undefined ? notFound(id) : { status: 200, body: keyView(key) };
    },
  };
}
