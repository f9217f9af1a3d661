import type { components } from '../../generated/admin-api.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import { KeyConflict } from '../governance/refusals.ts';
import { keyUpdateInput, newKeyInput, type KeyTargets } from './key-input.ts';
import { keyView } from './key-view.ts';
import { errorReply, type OperationReply } from './reply.ts';

type KeyCreate = components['schemas']['KeyCreate'];
type KeyUpdate = components['schemas']['KeyUpdate'];
type KeyRotate = components['schemas']['KeyRotate'];

export const noStore = () => errorReply(409, 'no_store', 'virtual keys need the embedded store: set db_path in the configuration and restart');
export const keyNotFound = (id: string) => errorReply(404, 'not_found', `no key with id ${JSON.stringify(id)}`);
/** The secret is in the answer only: no cache along the way may keep a copy. */
const NO_STORE = { 'cache-control': 'no-store' } as const;

export interface KeyOperationsOptions {
  /** The governance facade; absent when no db_path is configured (every operation answers 409). */
  readonly keys: KeyAdmin | undefined;
  /** The running configuration's models, pools and teams, which a key's `models` and `team` must name. */
  readonly targets: () => KeyTargets;
  readonly now?: () => number;
}

/**
 * The key operations: create (the secret is in this answer only), list, get, change, rotate (the
 * new secret in this answer only), revoke. Bodies and ids arrive validated against
 * spec/openapi.json; what the schema cannot say (times, names in the configuration) is checked here.
 */
export function keyOperations(options: KeyOperationsOptions) {
  const { keys } = options;
  const now = options.now ?? Date.now;
  return {
    async postApiV1AdminKeys(body: KeyCreate): Promise<OperationReply<'/api/v1/admin/keys', 'post'>> {
      if (keys === undefined) return noStore();
      const input = newKeyInput(body, options.targets(), now());
      if (!input.ok) return errorReply(400, 'invalid_request', input.message);
      const created = await keys.createKey(input.value);
      return { status: 201, body: { ...keyView(created.key), secret: created.secret }, headers: NO_STORE };
    },

    async getApiV1AdminKeys(): Promise<OperationReply<'/api/v1/admin/keys', 'get'>> {
      if (keys === undefined) return noStore();
      return { status: 200, body: { data: (await keys.listKeys()).map(keyView) } };
    },

    async getApiV1AdminKeysId(id: string): Promise<OperationReply<'/api/v1/admin/keys/{id}', 'get'>> {
      if (keys === undefined) return noStore();
      const key = await keys.getKey(id);
      return key === undefined ? keyNotFound(id) : { status: 200, body: keyView(key) };
    },

    async patchApiV1AdminKeysId(id: string, body: KeyUpdate): Promise<OperationReply<'/api/v1/admin/keys/{id}', 'patch'>> {
      if (keys === undefined) return noStore();
      const input = keyUpdateInput(body, options.targets());
      if (!input.ok) return errorReply(400, 'invalid_request', input.message);
      const key = await keys.updateKey(id, input.value);
      return key === undefined ? keyNotFound(id) : { status: 200, body: keyView(key) };
    },

    async postApiV1AdminKeysIdRotate(id: string, body: KeyRotate | undefined): Promise<OperationReply<'/api/v1/admin/keys/{id}/rotate', 'post'>> {
      if (keys === undefined) return noStore();
      try {
        const rotated = await keys.rotateKey(id, body?.grace_seconds ?? 0);
        if (rotated === undefined) return keyNotFound(id);
        return { status: 200, body: { ...keyView(rotated.key), secret: rotated.secret }, headers: NO_STORE };
      } catch (error) {
        if (error instanceof KeyConflict) return errorReply(409, error.code, error.message);
        throw error;
      }
    },

    async deleteApiV1AdminKeysId(id: string): Promise<OperationReply<'/api/v1/admin/keys/{id}', 'delete'>> {
      if (keys === undefined) return noStore();
      const key = await keys.revokeKey(id);
      return key === undefined ? keyNotFound(id) : { status: 200, body: keyView(key) };
    },
  };
}
