/**
 * The addresses given on the command line or in the environment, which replace `listen` and
 * `admin_listen` of the configuration (a container or a unit sets them without editing the file).
 * Precedence: flag, then environment variable, then the file.
 */
export interface ListenOverrides {
  readonly listen?: ListenOverride;
  readonly adminListen?: ListenOverride;
}

export interface ListenOverride {
  /** host:port, as `listen:` takes it. */
  readonly value: string;
  /** Where it came from, named in problems and the start log: `--listen`, `GATEWAY_LISTEN`, ... */
  readonly from: string;
}

/** The same shape the config schema's ListenAddress allows. */
const ADDRESS = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):([0-9]{1,5})$/;

export function listenOverrides(flags: { listen?: string | undefined; adminListen?: string | undefined }, env: NodeJS.ProcessEnv): ListenOverrides {
  const pick = (flag: string | undefined, flagName: string, variable: string): ListenOverride | undefined => {
    if (flag !== undefined) return { value: flag, from: flagName };
    const value = env[variable];
    return value === undefined || value === '' ? undefined : { value, from: variable };
  };
  const listen = pick(flags.listen, '--listen', 'GATEWAY_LISTEN');
  const adminListen = pick(flags.adminListen, '--admin-listen', 'GATEWAY_ADMIN_LISTEN');
  return { ...(listen !== undefined && { listen }), ...(adminListen !== undefined && { adminListen }) };
}

/** Undefined when `value` is a usable host:port; else why not. */
export function listenAddressProblem(value: string): string | undefined {
  const match = ADDRESS.exec(value);
  if (match === null) return `"${value}" is not host:port (e.g. 0.0.0.0:8080, 127.0.0.1:8081, [::1]:8080, :8080)`;
  if (Number(match[2]) > 65535) return `port ${match[2]} is beyond 65535`;
  return undefined;
}
