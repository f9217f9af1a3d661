// What the Anthropic Messages schemas (spec/protocols/anthropic/) cannot say as TypeScript. The
// request, response, usage and error types are generated from those schemas
// (generated/protocols/anthropic/) and the codec imports them from there; only this stays by hand.
import type { ClientTool, Tool } from '../../../generated/protocols/anthropic/request.ts';

/**
 * A tool without a type (or type "custom"): the schema gives it ClientTool's members with an
 * if/else on `type` that is not a single value, which compiles to no union.
 */
export type AnthropicClientTool = Tool & ClientTool;
