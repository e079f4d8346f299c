import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, NEVER, Observable, tap } from 'rxjs';

import { Severity } from '@console/core/auth';
import { Changes, onChangeOf, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { DeliveryLogEntry } from '@contracts/alerts';
import type { ChannelTestResult, ChannelType, NotificationChannel, NotificationPolicy } from '@contracts/channels';

// the JSON of the channels, policies and delivery log, from the schemas the server answers with
// (contracts/channels.ts, contracts/alerts.ts)
export type { ChannelTestResult, ChannelType, DeliveryLogEntry };
/** A notification channel (docs/api.md "Notification channels and routing"). */
export type Channel = NotificationChannel;

// The request bodies below are written here by hand: their schemas (backend/src/channels/schema.ts)
// check the target with the server's webhook URL rules, so they are not in contracts/ yet.
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

/** The global policy (`customerId: null`) or a customer's; `custom: false` when the customer follows the global one. */
export type Policy = NotificationPolicy;
/** Events at or above `minSeverity` go to these channels. */
export type Route = Policy['routes'][number];
/** What PUT takes: the routes, the repeat and the escalation. */
export type PolicyFields = Pick<Policy, 'routes' | 'repeatMinutes' | 'escalateAfterMinutes' | 'escalateChannelIds'>;

export type DeliveryEvent = DeliveryLogEntry['event'];
export type DeliveryStatus = DeliveryLogEntry['status'];

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
  private readonly channelsChanged$ = new Changes();
  private readonly policiesChanged$ = new Changes();

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
    return this.channelsChanged$.after(this.http.post<Channel>(CHANNELS_URL, fields));
  }

  updateChannel(id: number, changes: ChannelChanges): Observable<Channel> {
    return this.channelsChanged$.after(this.http.patch<Channel>(`${CHANNELS_URL}/${id}`, changes));
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
    return this.policiesChanged$.after(this.http.put<Policy>(GLOBAL_POLICY_URL, fields));
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
    return this.policiesChanged$.after(this.http.put<Policy>(customerPolicyUrl(customerId), fields));
  }

  /** Back to the global policy. */
  deleteCustomerPolicy(customerId: number): Observable<void> {
    return this.policiesChanged$.deleted(this.http.delete(customerPolicyUrl(customerId)));
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
