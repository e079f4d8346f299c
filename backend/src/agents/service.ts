/**
 * The public agent endpoints (`/api/agent/*`, docs/protocol.md
 * "Agent endpoints"): the installer, the newest build, the build download and
 * the agent's config.yaml. Only the config is guarded: it holds WEBHOOK_SECRET,
 * so it needs a cluster's enrollment key or a signed-in account that may write
 * at that cluster's customer. Builds are public (their SHA-256 from the version
 * answer protects them); the installer holds nothing but the key it was asked for.
 */
import type { Principal } from '../lib/access.js';
import { canWriteCustomer } from '../lib/access.js';
import { Forbidden, Invalid, Misconfigured, NotFound, TooMany, Unauthenticated } from '../lib/errors.js';
import { safeEqual } from '../lib/crypto.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { renderAgentConfig } from './config-file.js';
import type { AgentBuild, AgentDist, AgentOffer } from './dist.js';
import { ENROLLMENT_KEY_FORMAT, renderInstallScript } from './install-script.js';
import type { AgentsRepo, ClusterRef } from './repo.js';

export interface AgentEndpointsDeps {
  repo: Pick<AgentsRepo, 'findClusterByEnrollmentKey' | 'findClusterById'>;
  dist: AgentDist;
  webhookSecret: string | null;
  /** Failed enrollment-key checks per client address (shared with enrollment at ingest). */
  keyFailures: RateLimiter;
}

export interface ConfigRequest {
  key: string | undefined;
  cluster: string | undefined;
  principal: Principal | undefined;
  clientIp: string;
}

function enrollmentKeyOf(key: unknown): string {
  if (typeof key !== 'string' || !ENROLLMENT_KEY_FORMAT.test(key)) {
    throw new Invalid('key: must be the enrollment key of a cluster', { field: 'key' });
  }
  return key;
}

export function createAgentEndpoints({ repo, dist, webhookSecret, keyFailures }: AgentEndpointsDeps) {
  async function clusterByKey(key: string, clientIp: string): Promise<ClusterRef> {
    const limit = await keyFailures.peek(clientIp);
    if (!limit.allowed) throw new TooMany(limit.retryAfterSeconds);
    const cluster = ENROLLMENT_KEY_FORMAT.test(key) ? await repo.findClusterByEnrollmentKey(key) : null;
    // the lookup found the row; the comparison that decides is constant-time
    if (!cluster || !safeEqual(cluster.enrollmentKey, key)) {
      await keyFailures.consume(clientIp);
      throw new Unauthenticated('Unauthorized');
    }
    return cluster;
  }

  async function clusterOfAccount(principal: Principal | undefined, raw: string | undefined): Promise<ClusterRef> {
    if (!principal) throw new Unauthenticated('Unauthorized');
    const id = raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
    if (id <= 0) throw new Invalid('cluster: must be the id of a cluster', { field: 'cluster' });
    const cluster = await repo.findClusterById(id);
    if (cluster && canWriteCustomer(principal, cluster.customerId)) return cluster;
    // the same refusal for a missing cluster and another customer's: existence is not leaked
    if (!cluster && principal.role === 'ADMIN') throw new NotFound('No such cluster');
    throw new Forbidden('You may not install agents in this cluster');
  }

  return {
    /** The installer for `key` (format-checked only: the config fetch inside it checks the key itself). */
    installScript(key: unknown): string {
      return renderInstallScript({ base: dist.publicBase(), key: enrollmentKeyOf(key) });
    },

    /** The newest build for `arch`, or exactly `version`'s (a root start step checking a staged update). */
    async newest(arch: string, version?: string): Promise<AgentOffer> {
      const build = version === undefined ? await dist.latest(arch) : await dist.find(version, arch);
      if (!build) throw new NotFound('No agent build available');
      return dist.offer(build);
    },

    async build(version: string, arch: string): Promise<AgentBuild> {
      const build = await dist.find(version, arch);
      if (!build) throw new NotFound('No such agent build');
      return build;
    },

    /** config.yaml for a cluster: by its enrollment key (`key`), else for a signed-in account (`cluster`). */
    async config(request: ConfigRequest): Promise<string> {
      if (!webhookSecret) throw new Misconfigured('Server misconfigured');
      const cluster =
        request.key !== undefined
          ? await clusterByKey(request.key, request.clientIp)
          : await clusterOfAccount(request.principal, request.cluster);
      return renderAgentConfig({ base: dist.publicBase(), webhookSecret, enrollmentKey: cluster.enrollmentKey });
    },
  };
}

export type AgentEndpoints = ReturnType<typeof createAgentEndpoints>;
