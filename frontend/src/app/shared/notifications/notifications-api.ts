import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, NEVER, Observable, Subject, tap } from 'rxjs';

import { Severity } from '../../core/auth';
import { onChangeOf, onTopics, Refreshing, refreshing } from '../../core/refresh';

export type ChannelType = 'email' | 'webhook' | 'slack' | 'teams' | 'discord' | 'ntfy';

/** A notification channel (docs/api.md "Notification channels and routing"). */
export interface Channel {
  id: number;
  name: string;
  type: ChannelType;
  /** null: a global channel (ADMIN only), usable in every customer's policy. */
  customerId: number | null;
  customerName: string | null;
  /** Shown for `email` ("accounts" or addresses); null for URL types, whose target is sealed at rest. */
  target: string | null;
  /** The scheme and host of a URL target, e.g. `https://hooks.slack.com/…`. */
  targetHint: string;
  hasSecret: boolean;
  minSeverity: Severity;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ChannelCreate {
  name: string;
  type: ChannelType;
  target: string;
  secret?: string;
  minSeverity?: Severity;
  enabled?: boolean;
  customerId?: number | null;
}

/** PATCH: `target` and `secret` left out stay as they are; `secret: null` removes the secret. */
export interface ChannelChanges {
  name?: string;
  target?: string;
  secret?: string | null;
  minSeverity?: Severity;
  enabled?: boolean;
}

/** The answer of a test send: the target's status code, or why it failed. */
export interface ChannelTestResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** Events at or above `minSeverity` go to these channels. */
export interface Route {
  minSeverity: Severity;
  channelIds: number[];
}

/** What PUT takes: the routes, the repeat and the escalation. */
export interface PolicyFields {
  routes: Route[];
  repeatMinutes: number | null;
  escalateAfterMinutes: number | null;
  escalateChannelIds: number[];
}

/** The global policy (`customerId: null`) or a customer's; `custom: false` when the customer follows the global one. */
export interface Policy extends PolicyFields {
  customerId: number | null;
  customerName: string | null;
  custom: boolean;
  updatedAt: string | null;
}

export type DeliveryEvent = 'raised' | 'resolved' | 'acknowledged' | 'repeat' | 'escalated' | 'flapping' | 'test';
export type DeliveryStatus = 'pending' | 'sent' | 'failed' | 'dropped';

/** One delivery of an alert's event to a channel (or to one account's e-mail address). */
export interface DeliveryLogEntry {
  id: number;
  /** `id` null once the channel is deleted: the log keeps its name. */
  channel: { id: number | null; name: string; type: ChannelType };
  event: DeliveryEvent;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  /** The address of an account e-mail, for ADMIN only. */
  recipient: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  sentAt: string | null;
  /** Every try, oldest first: when, the target's HTTP status (channels), why it failed. */
  attemptLog: { at: string; status: number | null; error: string | null }[];
}

export const CHANNELS_URL = '/api/notification-channels';
export const POLICIES_URL = '/api/notification-policies';
export const GLOBAL_POLICY_URL = `${POLICIES_URL}/global`;

export const customerPolicyUrl = (customerId: number): string => `${POLICIES_URL}/customer/${customerId}`;
export const alertNotificationsUrl = (alertId: number): string => `/api/alerts/${alertId}/notifications`;

export const CHANNEL_TYPES: readonly ChannelType[] = ['email', 'webhook', 'slack', 'teams', 'discord', 'ntfy'];
export const CHANNEL_TYPE_LABELS: Record<ChannelType, string> = {
  email: 'E-mail',
  webhook: 'Webhook',
  slack: 'Slack',
  teams: 'Microsoft Teams',
  discord: 'Discord',
  ntfy: 'ntfy',
};

/** Notification channels, routing policies and the delivery log of an alert. */
@Injectable({ providedIn: 'root' })
export class NotificationsApi {
  private readonly http = inject(HttpClient);
  private readonly channelsChanged$ = new Subject<void>();
  private readonly policiesChanged$ = new Subject<void>();

  /** Global channels and those of visible customers, kept fresh (`channels` topic). */
  readonly channels$: Observable<Refreshing<Channel[]>> = refreshing(
    () => this.listChannels(),
    this.channelsChanged$,
    onTopics('channels'),
  );

  /** The global policy and each visible customer's own (`policies` topic). */
  readonly policies$: Observable<Refreshing<Policy[]>> = refreshing(
    () => this.listPolicies(),
    this.policiesChanged$,
    onTopics('policies'),
  );

  listChannels(customerId?: number): Observable<Channel[]> {
    const params = customerId === undefined ? undefined : new HttpParams().set('customer', customerId);
    return this.http.get<Channel[]>(CHANNELS_URL, { params });
  }

  getChannel(id: number): Observable<Channel> {
    return this.http.get<Channel>(`${CHANNELS_URL}/${id}`);
  }

  createChannel(fields: ChannelCreate): Observable<Channel> {
    return this.http.post<Channel>(CHANNELS_URL, fields).pipe(tap(() => this.channelsChanged$.next()));
  }

  updateChannel(id: number, changes: ChannelChanges): Observable<Channel> {
    return this.http.patch<Channel>(`${CHANNELS_URL}/${id}`, changes).pipe(tap(() => this.channelsChanged$.next()));
  }

  /** Policies naming it forget it; the delivery log keeps its name. */
  removeChannel(id: number): Observable<void> {
    return this.http.delete<void>(`${CHANNELS_URL}/${id}`).pipe(
      map(() => undefined),
      tap(() => {
        this.channelsChanged$.next();
        this.policiesChanged$.next();
      }),
    );
  }

  /** Sends one `test` event now, without retries. */
  testChannel(id: number): Observable<ChannelTestResult> {
    return this.http.post<ChannelTestResult>(`${CHANNELS_URL}/${id}/test`, null);
  }

  listPolicies(): Observable<Policy[]> {
    return this.http.get<Policy[]>(POLICIES_URL);
  }

  getGlobalPolicy(): Observable<Policy> {
    return this.http.get<Policy>(GLOBAL_POLICY_URL);
  }

  /** ADMIN only. */
  putGlobalPolicy(fields: PolicyFields): Observable<Policy> {
    return this.http.put<Policy>(GLOBAL_POLICY_URL, fields).pipe(tap(() => this.policiesChanged$.next()));
  }

  /** A customer without its own policy answers `custom: false` and the global routes it follows. */
  getCustomerPolicy(customerId: number): Observable<Policy> {
    return this.http.get<Policy>(customerPolicyUrl(customerId));
  }

  /** The customer's policy, kept fresh (`policies` topic). */
  customerPolicy$(customerId: number): Observable<Refreshing<Policy>> {
    return refreshing(() => this.getCustomerPolicy(customerId), this.policiesChanged$, onTopics('policies'));
  }

  putCustomerPolicy(customerId: number, fields: PolicyFields): Observable<Policy> {
    return this.http.put<Policy>(customerPolicyUrl(customerId), fields).pipe(tap(() => this.policiesChanged$.next()));
  }

  /** Back to the global policy. */
  deleteCustomerPolicy(customerId: number): Observable<void> {
    return this.http.delete<void>(customerPolicyUrl(customerId)).pipe(
      map(() => undefined),
      tap(() => this.policiesChanged$.next()),
    );
  }

  /** Every delivery of the alert, oldest first. */
  alertNotifications(alertId: number): Observable<DeliveryLogEntry[]> {
    return this.http.get<DeliveryLogEntry[]>(alertNotificationsUrl(alertId));
  }

  /** The alert's deliveries, fetched again when the alert changes (and whenever `reload$` emits). */
  alertNotifications$(
    alertId: number,
    reload$: Observable<unknown> = NEVER,
  ): Observable<Refreshing<DeliveryLogEntry[]>> {
    return refreshing(() => this.alertNotifications(alertId), reload$, onChangeOf('alerts', alertId));
  }
}
