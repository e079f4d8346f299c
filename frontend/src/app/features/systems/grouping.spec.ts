import { countByStatus, flattenRows, groupSystems, matchesFilter, NO_CLUSTER } from './grouping';
import { systemBody } from '@console/shared/systems/systems-testing';

describe('groupSystems', () => {
  const acme = { id: 10, name: 'Acme' };
  const globex = { id: 20, name: 'Globex' };
  const prod = { id: 100, name: 'prod' };
  const lab = { id: 101, name: 'lab' };

  it('groups by customer, then cluster, all sorted by name; systems without a cluster come last under "No cluster"', () => {
    const groups = groupSystems([
      systemBody({ id: 1, name: 'web-10', customer: acme, cluster: prod }),
      systemBody({ id: 2, name: 'db-01', customer: globex, cluster: null }),
      systemBody({ id: 3, name: 'web-2', customer: acme, cluster: prod }),
      systemBody({ id: 4, name: 'spare', customer: acme, cluster: null }),
      systemBody({ id: 5, name: 'test-01', customer: acme, cluster: lab }),
    ]);

    expect(groups.map((g) => [g.name, g.count])).toEqual([
      ['Acme', 4],
      ['Globex', 1],
    ]);
    expect(groups[0].clusters.map((c) => [c.name, c.systems.map((s) => s.name)])).toEqual([
      ['lab', ['test-01']],
      ['prod', ['web-2', 'web-10']],
      [NO_CLUSTER, ['spare']],
    ]);
    expect(groups[1].clusters.map((c) => [c.id, c.name])).toEqual([[null, 'No cluster']]);
  });

  it('keeps two customers of the same name apart', () => {
    const groups = groupSystems([
      systemBody({ id: 1, customer: { id: 1, name: 'Acme' } }),
      systemBody({ id: 2, customer: { id: 2, name: 'Acme' } }),
    ]);

    expect(groups.length).toBe(2);
  });

  it('gives nothing for no systems', () => {
    expect(groupSystems([])).toEqual([]);
  });
});

describe('matchesFilter', () => {
  const system = systemBody({
    name: 'Web-01',
    hostname: 'ip-10-0-0-7',
    customer: { id: 10, name: 'Acme Corp' },
    cluster: { id: 100, name: 'frankfurt' },
    status: 'WARNING',
  });

  it('matches name, hostname, customer and cluster, ignoring case and surrounding spaces', () => {
    for (const text of ['web', 'IP-10-0', 'acme corp', ' frank ', '']) {
      expect(matchesFilter(system, { text, status: null }))
        .withContext(text)
        .toBeTrue();
    }
    expect(matchesFilter(system, { text: 'globex', status: null })).toBeFalse();
  });

  it('matches the status exactly, together with the text', () => {
    expect(matchesFilter(system, { text: '', status: 'WARNING' })).toBeTrue();
    expect(matchesFilter(system, { text: 'web', status: 'WARNING' })).toBeTrue();
    expect(matchesFilter(system, { text: 'web', status: 'CRITICAL' })).toBeFalse();
    expect(matchesFilter(system, { text: 'db', status: 'WARNING' })).toBeFalse();
  });
});

describe('countByStatus', () => {
  it('counts every status, zero included', () => {
    const counts = countByStatus([
      systemBody({ status: 'ONLINE' }),
      systemBody({ status: 'ONLINE' }),
      systemBody({ status: 'PENDING' }),
    ]);

    expect(counts).toEqual({ PENDING: 1, ONLINE: 2, WARNING: 0, CRITICAL: 0, OFFLINE: 0, STANDBY: 0 });
  });
});

describe('flattenRows (a large fleet, in the server order)', () => {
  it('puts a heading wherever the customer or the cluster changes, the customer counted by the server', () => {
    const acme = { id: 10, name: 'Acme' };
    const globex = { id: 20, name: 'Globex' };
    const prod = { id: 100, name: 'prod' };
    const items = flattenRows(
      [
        systemBody({ id: 1, name: 'a', customer: acme, cluster: prod }),
        systemBody({ id: 2, name: 'b', customer: acme, cluster: prod }),
        systemBody({ id: 3, name: 'c', customer: acme, cluster: null }),
        systemBody({ id: 4, name: 'd', customer: globex, cluster: null }),
      ],
      (id) => (id === 10 ? 1200 : 7),
    );

    expect(items.map((item) => (item.kind === 'system' ? item.system.name : `${item.kind}:${item.name}`))).toEqual([
      'customer:Acme',
      'cluster:prod',
      'a',
      'b',
      `cluster:${NO_CLUSTER}`,
      'c',
      'customer:Globex',
      `cluster:${NO_CLUSTER}`,
      'd',
    ]);
    expect(items[0]).toEqual(jasmine.objectContaining({ kind: 'customer', count: 1200 }));
    expect(new Set(items.map((item) => item.key)).size).toBe(items.length);
  });
});
