import { scopeChoices } from '@console/shared/rules/scope-targets';

describe('scopeChoices', () => {
  it('offers a global rule to an ADMIN creating a new rule', () => {
    expect(scopeChoices(false, true)).toEqual(['global', 'customer', 'cluster', 'system']);
  });

  it('never places an override globally, and never offers global to an operator', () => {
    expect(scopeChoices(true, true)).toEqual(['customer', 'cluster', 'system']);
    expect(scopeChoices(false, false)).toEqual(['customer', 'cluster', 'system']);
  });
});
