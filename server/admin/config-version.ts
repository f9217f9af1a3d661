import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { OperationReply } from './reply.ts';

/** GET /api/v1/admin/config/version: which configuration is running, and since when. */
export function getConfigVersion(config: RuntimeConfig): OperationReply<'/api/v1/admin/config/version', 'get'> {
  return { status: 200, body: { config_version: config.configVersion, loaded_at: config.loadedAt.toISOString() } };
}
