/**
 * The agent's version: the workspace's package.json, inlined into the single executable by the build,
 * unless the build was asked for another (`ARGUS_AGENT_VERSION`: the update tests build two releases).
 */
import packageJson from '../package.json' with { type: 'json' };

// replaced by esbuild's `define` in a build given a version; not defined when run from source
declare const __ARGUS_AGENT_VERSION__: string | undefined;

export const AGENT_VERSION: string =
  typeof __ARGUS_AGENT_VERSION__ === 'string' ? __ARGUS_AGENT_VERSION__ : packageJson.version;
