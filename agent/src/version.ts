/** The agent's version: the workspace's package.json, inlined into the single executable by the build. */
import packageJson from '../package.json' with { type: 'json' };

export const AGENT_VERSION: string = packageJson.version;
