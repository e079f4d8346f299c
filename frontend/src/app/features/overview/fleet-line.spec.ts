import { fleetLine } from './fleet-line';
import { statusCounts } from './overview-testing';

function totals(status: Record<string, number>, alerts = { critical: 0, warning: 0, info: 0 }) {
  const systems = Object.values(status).reduce((a, b) => a + b, 0);
  return {
    totals: {
      customers: 1,
      systems,
      byStatus: statusCounts(status),
      openAlerts: alerts,
      inMaintenance: 0,
      openIncidents: 0,
    },
  };
}

describe('fleetLine', () => {
  it('says the whole fleet is up only when no system is troubled and no alert is open', () => {
    expect(fleetLine(totals({ ONLINE: 11 }))).toEqual({ tone: 'ok', text: 'All 11 systems up, no alert open.' });
    expect(fleetLine(totals({}))).toEqual({ tone: 'ok', text: 'No systems monitored yet.' });
  });

  it('counts offline, critical and warning systems against the fleet, then the open alerts', () => {
    const line = fleetLine(totals({ ONLINE: 1, OFFLINE: 10 }, { critical: 10, warning: 0, info: 0 }));
    expect(line).toEqual({ tone: 'down', text: '10 of 11 systems offline · 10 alerts open, 10 critical' });
    const mixed = fleetLine(totals({ ONLINE: 5, CRITICAL: 1, WARNING: 2 }, { critical: 1, warning: 2, info: 1 }));
    expect(mixed.text).toBe('1 of 8 systems critical, 2 in warning · 4 alerts open, 1 critical');
  });

  it('is alerting, not down, with only warnings', () => {
    const line = fleetLine(totals({ ONLINE: 2, WARNING: 1 }, { critical: 0, warning: 1, info: 0 }));
    expect(line).toEqual({ tone: 'alerting', text: '1 of 3 systems in warning · 1 alert open' });
    expect(fleetLine(totals({ ONLINE: 1 }, { critical: 0, warning: 0, info: 1 })).tone).toBe('alerting');
  });
});
