// An import, not a file read: the bundler inlines it into the single executable (make binary).
import packageJson from '../package.json' with { type: 'json' };

/** The server's version, from package.json (the clients have versions of their own). */
export const SERVER_VERSION: string = packageJson.version;
