/**
 * Single sign-on (docs/decisions.md "Single sign-on with OpenID Connect"): the redirect to the
 * provider with `state`, `nonce` and a PKCE challenge; the callback that checks them, trades the
 * code, verifies the ID token and opens the same cookie session a local sign-in opens (sessions.ts);
 * and the group mapping that decides, at every sign-in, the role and customer grants of the account.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import type { SsoConfig } from '../config.js';
import type { Role } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, safeEqual, sha256 } from '../lib/crypto.js';
import { Conflict, DomainError, Invalid, NotFound } from '../lib/errors.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import type { Sessions } from '../auth/sessions.js';
import type { LocalSignIn } from '../users/local-sign-in.js';
import { SsoRefused, type IdTokenClaims, type OidcProvider } from './provider.js';
import type { GroupMapping, LinkedAccount, SsoRepo } from './repo.js';
import { sameSitePath } from './return-path.js';
import { rightsFromGroups } from './mapping.js';
import { createTestResults, TEST_PAGE } from './test-sign-in.js';

/** Time from the redirect to the provider to its callback. */
export const SIGN_IN_WINDOW_MS = 10 * 60_000;
/** Groups kept per account for re-applying a changed mapping (a provider may list hundreds). */
const MAX_GROUPS = 1000;

export const NO_ADMIN_LEFT =
  'This mapping would leave no administrator who can sign in: keep a group mapped to Admin that an ' +
  'administrator is in, or keep an administrator who signs in with a password';

export interface SsoDeps {
  config: SsoConfig | null;
  provider: OidcProvider | null;
  repo: SsoRepo;
  sessions: Sessions;
  /** Password sign-in beside this one: the setting refusing it, and who may still use it. */
  localSignIn: LocalSignIn;
  hasher: PasswordHasher;
  audit: AuditTrail;
  bus: Pick<Bus, 'publish'>;
  clock: Clock;
  /** AUTH_URL: the callback URL registered at the provider is built from it. */
  authUrl: string;
}

export interface CallbackInput {
  state: string | undefined;
  /** The state this browser was given at the start (its cookie). */
  browserState: string | undefined;
  code: string | undefined;
  /** The provider's own refusal (`error` in the callback). */
  error: string | undefined;
}

export interface RequestMeta {
  ip: string;
  userAgent: string;
}

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function groupsIn(claims: IdTokenClaims, claim: string): string[] {
  const raw = claims[claim];
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((group): group is string => typeof group === 'string') : [];
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

export function createSsoService(deps: SsoDeps) {
  const { repo, sessions, audit, clock } = deps;
  const redirectUri = `${deps.authUrl}/api/auth/sso/callback`;
  const fixedMap = deps.config?.groupMap ?? null;
  const tests = createTestResults(clock);

  /** The mapping in force: OIDC_GROUP_MAP's (its customers by name, as they are now) or the console's. */
  async function mappingsInForce(): Promise<GroupMapping[]> {
    if (!fixedMap) return repo.listMappings();
    const ids = await repo.customerIdsByName([...new Set(fixedMap.flatMap((entry) => entry.customers))]);
    return fixedMap.map((entry) => ({
      group: entry.group,
      role: entry.role,
      // a name no customer has grants nothing (yet): the settings page shows what was found
      customerIds: [...new Set(entry.customers.flatMap((name) => ids.get(name.toLowerCase()) ?? []))].sort(
        (a, b) => a - b,
      ),
    }));
  }

  function configured(): { config: SsoConfig; provider: OidcProvider } {
    if (!deps.config || !deps.provider) throw new NotFound('Single sign-on is not configured');
    return { config: deps.config, provider: deps.provider };
  }

  async function refuse(ip: string, name: string | null, error: SsoRefused): Promise<never> {
    await audit.recordAlone(
      { type: 'user', id: null, name: name ?? 'unknown', address: ip },
      { action: 'auth.sso_refused', targetType: 'user', after: { reason: error.code, message: error.message } },
    );
    throw error;
  }

  /** The account of this identity: found by issuer and subject, linked by verified e-mail, or created. */
  async function accountFor(
    config: SsoConfig,
    claims: IdTokenClaims,
    role: Role,
    trx: Knex.Transaction,
  ): Promise<{ account: LinkedAccount; how: 'known' | 'linked' | 'created' }> {
    const known = await repo.findByIdentity(claims.iss, claims.sub, trx);
    if (known) return { account: known, how: 'known' };
    const email = text(claims.email);
    const existing = email ? await repo.findByEmail(email, trx) : null;
    if (existing) {
      if (existing.oidcIssuer !== null)
        throw new SsoRefused(
          'Your e-mail address belongs to an account linked to another identity',
          'sso_identity_taken',
        );
      if (claims.email_verified !== true || !config.linkVerifiedEmail) {
        throw new SsoRefused(
          'An Argus account with your e-mail address exists but is not linked to this identity: linking needs an ' +
            'e-mail address the provider has verified, and an administrator who allows it',
          'sso_not_linked',
        );
      }
      await repo.link(existing.id, claims.iss, claims.sub, trx);
      return { account: existing, how: 'linked' };
    }
    if (!config.createUsers)
      throw new SsoRefused('You have no Argus account: ask an administrator for one', 'sso_no_account');
    if (!email) throw new SsoRefused('The identity provider sent no e-mail address for you', 'sso_no_email');
    // the account gets a password nobody knows: it signs in through the provider only
    const passwordHash = await deps.hasher.hash(randomToken(32));
    const name = (text(claims.name) ?? text(claims.preferred_username) ?? email).slice(0, 200);
    const id = await repo.insertAccount(
      { email, name, role, passwordHash, issuer: claims.iss, subject: claims.sub },
      trx,
    );
    return { account: { id, email, role, disabled: false, oidcIssuer: claims.iss }, how: 'created' };
  }

  /**
   * The ids of the linked accounts whose rights the mapping changed (or that it signed out). Refuses a
   * mapping after which no administrator could sign in, through the provider or with a password.
   */
  async function reapply(mappings: GroupMapping[], trx: Knex.Transaction): Promise<number[]> {
    const touched: number[] = [];
    let ssoAdmins = 0;
    for (const account of await repo.listLinked(trx)) {
      const rights = rightsFromGroups(account.groups, mappings);
      if (!account.disabled && !('missing' in rights) && rights.role === 'ADMIN') ssoAdmins += 1;
      if ('missing' in rights) {
        await repo.endSessions(account.id, trx);
        touched.push(account.id);
      } else if (rights.role !== account.role || rights.customerIds.join() !== account.customerIds.join()) {
        await repo.applyRights(account.id, rights.role, rights.customerIds, trx);
        touched.push(account.id);
      }
    }
    // counted after the writes above: a linked administrator demoted by this mapping no longer counts
    if (ssoAdmins === 0 && (await deps.localSignIn.localAdmins(trx)) === 0) throw new Conflict(NO_ADMIN_LEFT);
    return touched;
  }

  /**
   * A linked account whose provider now lists it in no mapped group (removed at the provider) is
   * refused, and its sessions in other browsers end too: the provider said it has no rights here.
   */
  async function signOutEverywhere(config: SsoConfig, claims: IdTokenClaims): Promise<void> {
    const ended = await repo.transaction(async (trx) => {
      const known = await repo.findByIdentity(claims.iss, claims.sub, trx);
      if (!known) return null;
      await repo.recordGroups(known.id, groupsIn(claims, config.groupsClaim).slice(0, MAX_GROUPS), trx);
      await repo.endSessions(known.id, trx);
      return known.id;
    });
    if (ended !== null) await deps.bus.publish('rights', { userId: ended });
  }

  async function signIn(config: SsoConfig, claims: IdTokenClaims, meta: RequestMeta) {
    const mappings = await mappingsInForce();
    const rights = rightsFromGroups(groupsIn(claims, config.groupsClaim), mappings);
    if ('missing' in rights) {
      await signOutEverywhere(config, claims);
      throw new SsoRefused(rights.missing, 'sso_no_group');
    }
    let changed = false;
    const result = await repo.transaction(async (trx) => {
      const { account, how } = await accountFor(config, claims, rights.role, trx);
      if (account.disabled) throw new SsoRefused('This Argus account is disabled', 'sso_disabled');
      const before = { role: account.role, customerIds: await repo.grantsOf(account.id, trx) };
      const after = { role: rights.role, customerIds: rights.customerIds };
      changed = how !== 'created' && JSON.stringify(before) !== JSON.stringify(after);
      await repo.applyRights(account.id, rights.role, rights.customerIds, trx);
      await repo.recordSignIn(account.id, groupsIn(claims, config.groupsClaim).slice(0, MAX_GROUPS), clock.now(), trx);
      return { account, how, before, after };
    });
    const session = await sessions.start(
      result.account.id,
      meta,
      (trx) =>
        audit.record(
          trx,
          { type: 'user', id: result.account.id, name: result.account.email, address: meta.ip },
          {
            action: 'auth.sign_in',
            targetType: 'user',
            targetId: result.account.id,
            before: changed ? result.before : null,
            after: { method: 'sso', account: result.how, groups: rights.groups, ...result.after },
          },
        ),
      'sso',
    );
    // open sockets of this account re-check what it may see (as after an administrator's change)
    if (changed) await deps.bus.publish('rights', { userId: result.account.id });
    return session;
  }

  return {
    /** What the sign-in page shows: whether the button is there, and its name. */
    options(): { enabled: boolean; name: string | null } {
      return { enabled: deps.config !== null, name: deps.config?.buttonName ?? null };
    },

    /**
     * Starts a sign-in: the provider's URL to send the browser to, and the state it must bring back.
     * `testBy`: a test sign-in by this administrator, who comes back to the settings page.
     */
    async begin(
      returnTo: string | undefined,
      testBy: number | null = null,
    ): Promise<{ location: string; state: string }> {
      const { provider } = configured();
      const path = testBy === null ? sameSitePath(returnTo) : TEST_PAGE;
      const state = randomToken(32);
      const nonce = randomToken(32);
      const codeVerifier = randomToken(32);
      const now = clock.now();
      await repo.insertPending(
        sha256(state),
        { nonce, codeVerifier, returnTo: path, testBy },
        new Date(now.getTime() + SIGN_IN_WINDOW_MS),
        now,
      );
      const location = await provider.authorizationUrl({
        state,
        nonce,
        codeChallenge: challengeOf(codeVerifier),
        redirectUri,
        // a test may be of someone else's account: the provider asks who, whatever its own session
        ...(testBy === null ? {} : { prompt: 'login' }),
      });
      return { location, state };
    },

    /**
     * The provider's callback: a session token and where to go, or an SsoRefused saying why not. A
     * test sign-in keeps what came back for the administrator who started it (`signedInAs`, this
     * browser's account) and signs nobody in.
     */
    async complete(
      input: CallbackInput,
      meta: RequestMeta,
      signedInAs: number | null = null,
    ): Promise<
      | { kind: 'signed-in'; sessionToken: string; sessionId: string; returnTo: string }
      | { kind: 'test'; returnTo: string }
    > {
      const { config, provider } = configured();
      let name: string | null = null;
      let testBy: number | null = null;
      try {
        // the state must be the one this browser was given (no sign-in forced on someone else's browser)
        if (!input.state || !input.browserState || !safeEqual(input.state, input.browserState)) {
          throw new SsoRefused('This sign-in was not started in this browser: start again', 'sso_state_mismatch');
        }
        const pending = await repo.takePending(sha256(input.state), clock.now());
        if (!pending)
          throw new SsoRefused('This sign-in has expired or was already used: start again', 'sso_state_used');
        if (pending.testBy !== null && pending.testBy !== signedInAs)
          throw new SsoRefused('This test sign-in was started by another account', 'sso_state_mismatch');
        testBy = pending.testBy;
        if (input.error)
          throw new SsoRefused(`The identity provider refused the sign-in (${input.error.slice(0, 60)})`);
        if (!input.code) throw new SsoRefused('The identity provider sent no code', 'sso_no_code');
        const idToken = await provider.exchange(input.code, pending.codeVerifier, redirectUri);
        const claims = await provider.verifyIdToken(idToken, pending.nonce);
        if (testBy !== null) {
          const groups = groupsIn(claims, config.groupsClaim);
          tests.record(testBy, claims, groups, rightsFromGroups(groups, await mappingsInForce()));
          return { kind: 'test', returnTo: pending.returnTo };
        }
        name = text(claims.email);
        const session = await signIn(config, claims, meta);
        return { kind: 'signed-in', sessionToken: session.token, sessionId: session.id, returnTo: pending.returnTo };
      } catch (error) {
        // a refused test is its result: the administrator reads why on the settings page
        if (testBy !== null && error instanceof DomainError) {
          tests.refused(testBy, error.message);
          return { kind: 'test', returnTo: TEST_PAGE };
        }
        if (error instanceof SsoRefused) return refuse(meta.ip, name, error);
        throw error;
      }
    },

    /** The latest test sign-in of this administrator, while it is kept. */
    testResult: (userId: number) => tests.latest(userId),

    /**
     * Ends an account's Argus session (as a local sign-out does, with its audit row) and, for an
     * account signed in through the provider, the provider's page that ends its session there too
     * (RP-initiated logout), or null where there is none.
     */
    async signOut(actor: AuditActor, sessionId: string): Promise<string | null> {
      await sessions.end(sessionId, (trx) =>
        audit.record(trx, actor, { action: 'auth.sign_out', targetType: 'user', targetId: actor.id }),
      );
      if (!deps.provider || actor.id === null || !(await repo.isLinked(actor.id))) return null;
      // the provider being down must not keep anyone from signing out of Argus
      return deps.provider.endSessionUrl(`${deps.authUrl}/login`).catch(() => null);
    },

    /** The configuration as an administrator sees it (the client secret never leaves the server). */
    async settings() {
      const config = deps.config;
      return {
        configured: config !== null,
        source: 'environment' as const,
        issuer: config?.issuer ?? null,
        clientId: config?.clientId ?? null,
        scopes: config?.scopes ?? [],
        groupsClaim: config?.groupsClaim ?? null,
        buttonName: config?.buttonName ?? null,
        linkVerifiedEmail: config?.linkVerifiedEmail ?? false,
        createUsers: config?.createUsers ?? false,
        localSignInRestricted: await deps.localSignIn.setting(),
        callbackUrl: redirectUri,
        mappingSource: fixedMap ? ('environment' as const) : ('console' as const),
        mappings: await mappingsInForce(),
      };
    },

    /**
     * Refuses password sign-in to all but break-glass administrators, or allows it again. Refusing
     * it also ends the password sessions of the accounts it refuses now (as a
     * role change re-checks sessions): their next request is unauthenticated and their live sockets
     * close. Sessions opened through the provider stay.
     */
    async setLocalSignIn(actor: AuditActor, restricted: boolean): Promise<void> {
      let ended: number[] = [];
      await deps.localSignIn.setRestricted(actor, restricted, async (trx) => {
        ended = await sessions.endRefusedPasswordSessions(trx);
        return { accountsSignedOut: ended.length };
      });
      for (const userId of ended) await deps.bus.publish('rights', { userId });
    },

    /**
     * Replaces the group mapping and applies it at once to every linked account, from the groups of
     * its last sign-in: changed rights take effect at its next request (open sockets re-check), and
     * an account left in no mapped group is signed out everywhere.
     */
    async replaceMappings(actor: AuditActor, mappings: GroupMapping[]): Promise<GroupMapping[]> {
      if (fixedMap) throw new Conflict('The group mapping is set by OIDC_GROUP_MAP: change it there and restart Argus');
      const groups = mappings.map((m) => m.group);
      const twice = groups.find((group, index) => groups.indexOf(group) !== index);
      if (twice !== undefined)
        throw new Invalid(`mappings: the group "${twice}" is listed twice`, { field: 'mappings' });
      let touched: number[] = [];
      const saved = await repo.transaction(async (trx) => {
        const wanted = [...new Set(mappings.flatMap((m) => m.customerIds))];
        const found = new Set(await repo.existingCustomerIds(wanted, trx));
        const missing = wanted.filter((id) => !found.has(id));
        if (missing.length) throw new Invalid(`mappings: no customer ${missing.join(', ')}`, { field: 'mappings' });
        const before = await repo.listMappings(trx);
        await repo.replaceMappings(mappings, trx);
        const after = await repo.listMappings(trx);
        touched = await reapply(after, trx);
        await audit.record(trx, actor, {
          action: 'sso.mappings.update',
          targetType: 'sso_group_mappings',
          before: { mappings: before },
          after: { mappings: after },
        });
        return after;
      });
      for (const userId of touched) await deps.bus.publish('rights', { userId });
      return saved;
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
