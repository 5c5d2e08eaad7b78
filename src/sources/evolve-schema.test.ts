import { describe, expect, it } from 'vitest';
import { planSchema, widenType } from './evolve-schema.ts';

describe('planSchema', () => {
  it('matches names case-insensitively, keeps the first spelling and says whose it is', () => {
    const plan = planSchema([['id', 'BIGINT'], ['Name', 'VARCHAR']], [
      { name: 'b.csv', columns: [['ID', 'BIGINT'], ['name', 'VARCHAR'], ['Note', 'VARCHAR']] },
      { name: 'c.csv', columns: [['note', 'VARCHAR']] },
    ]);
    expect(plan.columns).toEqual([['id', 'BIGINT'], ['Name', 'VARCHAR'], ['Note', 'VARCHAR']]);
    expect(plan.changes).toEqual([{ kind: 'add', column: 'Note', type: 'VARCHAR' }]);
    expect(plan.respellings).toEqual([
      { input: 'b.csv', spelling: 'ID', kept: 'id', keptFrom: undefined },
      { input: 'b.csv', spelling: 'name', kept: 'Name', keptFrom: undefined },
      { input: 'c.csv', spelling: 'note', kept: 'Note', keptFrom: 'b.csv' },
    ]);
  });

  it('widens a column once over every input, never narrows or drops one', () => {
    const plan = planSchema([['amount', 'INTEGER'], ['day', 'DATE'], ['gone', 'VARCHAR']], [
      { name: 'a.csv', columns: [['AMOUNT', 'BIGINT'], ['day', 'TIMESTAMP']] },
      { name: 'b.csv', columns: [['amount', 'DECIMAL(9,2)']] },
    ]);
    expect(plan.columns).toEqual([['amount', 'DOUBLE'], ['day', 'TIMESTAMP'], ['gone', 'VARCHAR']]);
    expect(plan.changes).toEqual([
      { kind: 'widen', column: 'amount', from: 'INTEGER', to: 'DOUBLE' },
      { kind: 'widen', column: 'day', from: 'DATE', to: 'TIMESTAMP' },
    ]);
  });

  it('falls back to VARCHAR for types that share nothing', () => {
    expect(widenType('STRUCT(a BIGINT)', 'BIGINT[]')).toBe('VARCHAR');
    expect(widenType('TIMESTAMP WITH TIME ZONE', 'DATE')).toBe('VARCHAR');
  });
});
