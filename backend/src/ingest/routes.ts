/**
 * POST /api/webhook/metrics (docs/protocol.md "Agent protocol"). Mount this router
 * BEFORE the app's body parser and authentication: it reads its own (gzip) body
 * of up to 4 MiB, and its Bearer token is an agent JWT, not an API token.
 */
import type { Context } from 'koa';
import { HttpError, PayloadTooLarge } from '../http/errors.js';
import { MAX_BODY_BYTES, parseJsonBody, readBody } from './body.js';
import type { AgentTokenVerifier } from './jwt.js';
import { parseAgentBody } from './agent-body.js';
import type { Admission } from './admission.js';
import { agentBodySchema } from '../../../contracts/agent-report.js';
import { AgentRefusal, type IngestService } from './service.js';
import type { VerifiedAgent } from './types.js';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import { ingestAnswer } from '../../../contracts/agents.js';

export const WEBHOOK_PATH = '/api/webhook/metrics';

class UnsupportedMediaType extends HttpError {
  constructor(message: string) {
    super(415, message, 'unsupported_media_type');
  }
}

export interface IngestRouteDeps {
  service: IngestService;
  /** null when WEBHOOK_SECRET is unset. */
  verifier: AgentTokenVerifier | null;
  maxBodyBytes?: number;
  admission?: Pick<Admission, 'checkBody'>;
}

/**
 * The report, in its own order: the JWT (401/403, failures limited per address), the media type and
 * encoding (415), the agent (403, enrolment), then the body read from the stream (413, 400), then the
 * store (429 with Retry-After). No guard, no parsed input: the handler does all of it.
 */
async function report(deps: IngestRouteDeps, ctx: Context): Promise<unknown> {
  const { service, verifier } = deps;
  let bodyRead = false;
  try {
    if (!verifier) throw new AgentRefusal(500, 'Server misconfigured');
    const ip = ctx.state.clientIp;
    const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const claims = (token ? await verifier.verify(token) : null) ?? (await service.refuseToken(ip));

    const type = ctx.get('content-type').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') throw new UnsupportedMediaType('Send JSON (Content-Type: application/json)');
    const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity')
      throw new UnsupportedMediaType('Content-Encoding must be gzip or none');

    const agent = await service.identify(claims, ip);
    const raw = await readBody(ctx.req, encoding === 'gzip', deps.maxBodyBytes ?? MAX_BODY_BYTES);
    bodyRead = true;
    deps.admission?.checkBody(raw);
    ctx.set('Cache-Control', 'no-store');
    return await ingestBody(service, agent, raw, ip);
  } catch (error) {
    // a body we did not read to its end is not worth reading: close after answering
    if (!bodyRead || error instanceof PayloadTooLarge) ctx.set('Connection', 'close');
    if (error instanceof AgentRefusal) {
      ctx.status = error.status;
      return { error: error.message };
    }
    throw error;
  }
}

/**
 * Parsed, checked and handed to the service in one call: no frame that waits for the store holds the
 * parsed body (service.ts takes it apart before it awaits anything), so its objects die young.
 */
function ingestBody(service: IngestService, agent: VerifiedAgent, raw: Buffer, ip: string): Promise<unknown> {
  return service.ingest(agent, parseAgentBody(parseJsonBody(raw)), ip);
}

const route = routeOf<IngestRouteDeps>();

export const ingestRoutes = [
  route({
    method: 'post',
    path: WEBHOOK_PATH,
    tag: 'Agents',
    access: 'agent',
    summary: "An agent's reports (gzip JSON, up to 500 a request)",
    description:
      'docs/protocol.md "Agent protocol": a JWT per request (HS256, 5 minutes), the enrolment key on the first report only. Duplicates are answered 2xx and stored once.',
    streamedBody: agentBodySchema,
    responses: {
      200: { description: 'Stored; the settings and any update offered', schema: ingestAnswer },
      403: refusalDoc('Unknown agent, or a refused enrolment'),
      413: refusalDoc('The body is larger than 4 MiB (unpacked)'),
      415: refusalDoc('Not JSON, or an encoding other than gzip'),
      429: refusalDoc(
        'Nothing stored; send again after Retry-After. Too many reports for this system ' +
          '(AGENT_REPORTS_PER_SYSTEM_PER_MINUTE), too many new systems in the cluster ' +
          '(AGENT_ENROLL_PER_CLUSTER_PER_HOUR), too many failed checks from the address, or a replayed ' +
          'batch while the server is busy storing live reports',
      ),
      500: refusalDoc('WEBHOOK_SECRET is not configured'),
    },
    handler: (deps, { ctx }) => report(deps, ctx),
  }),
];
