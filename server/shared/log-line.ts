import { pino, type DestinationStream, type Logger } from 'pino';

/** Among pino's exported symbols, though not in its type declarations. */
const MSG_PREFIX = (pino.symbols as unknown as Record<string, symbol | undefined>).msgPrefixSym;

/** The pino internals a line is made of, read from the logger (pino exports their symbols). */
interface PinoParts {
  readonly [key: symbol]: unknown;
}

/**
 * Writes info lines whose fields the caller has already turned into JSON (`,"key":value,...`),
 * exactly as the logger would have written them from an object: the logger's level prefix, its
 * time, its bindings, the fields, the message, one line to the logger's own stream. For a line
 * written per request: pino would build an object, walk it and stringify each value again.
 *
 * It writes that way only for a logger made as createLogger makes it (no mixin, no nested key,
 * no message prefix, no log formatter or write hook, a plain stream); any other logger gets the
 * fields parsed back into an object and logged through pino, so the line is the same either way.
 * No redaction pass: callers write only fields that cannot hold credentials.
 */
export function infoLineWriter(log: Logger, msg: string): (fields: string) => void {
  const parts = log as unknown as PinoParts;
  const s = pino.symbols;
  const stream = parts[s.streamSym] as (DestinationStream & { readonly [key: symbol]: unknown }) | undefined;
  const formatters = parts[s.formattersSym] as { readonly log?: unknown } | undefined;
  const hooks = parts[s.hooksSym] as { readonly streamWrite?: unknown } | undefined;
  const plain =
    stream !== undefined &&
    stream[s.needsMetadataGsym] !== true &&
    parts[s.mixinSym] === undefined &&
    parts[s.nestedKeySym] == null &&
    (MSG_PREFIX === undefined || !parts[MSG_PREFIX]) &&
    parts[s.messageKeySym] === 'msg' &&
    formatters?.log === undefined &&
    hooks?.streamWrite === undefined &&
    typeof (parts[s.lsCacheSym] as Record<number, string> | undefined)?.[log.levels.values.info ?? 30] === 'string';
  if (!plain) return (fields) => log.info(JSON.parse(`{${fields.slice(1)}}`), msg);
  const level = (parts[s.lsCacheSym] as Record<number, string>)[log.levels.values.info ?? 30] as string;
  const time = parts[s.timeSym] as () => string;
  const bindings = parts[s.chindingsSym] as string;
  const end = `,"msg":${JSON.stringify(msg)}${parts[s.endSym] as string}`;
  return (fields) => {
    if (log.isLevelEnabled('info')) stream.write(level + time() + bindings + fields + end);
  };
}
