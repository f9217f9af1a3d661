/**
 * The wire protocols' ids, each spoken both ways (DESIGN.md, "The six wire protocols"): derived
 * from the one registry (protocols/registry.ts), so a new protocol is not listed here too. A
 * type-only import: the IR keeps no runtime dependency outside its folder.
 */
export type { ProtocolId } from '../protocols/registry.ts';
