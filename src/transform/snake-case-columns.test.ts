import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { snakeCaseColumns } from './snake-case-columns.ts';

const one = (column: string): string | undefined => snakeCaseColumns([column])[0];

describe('snakeCaseColumns', () => {
  it('lower-cases and joins words with one underscore, trimming the ends', () => {
    expect(one('Invoice ID')).toBe('invoice_id');
    expect(one('  Amount (EUR) ')).toBe('amount_eur');
    expect(one('e-mail / phone')).toBe('e_mail_phone');
    expect(one('__Loaded  At__')).toBe('loaded_at');
    expect(one('Net.Total%')).toBe('net_total');
  });

  it('splits camelCase and PascalCase, keeping an acronym whole', () => {
    expect(one('invoiceId')).toBe('invoice_id');
    expect(one('InvoiceID')).toBe('invoice_id');
    expect(one('HTTPServer')).toBe('http_server');
    expect(one('XMLHttpRequest')).toBe('xml_http_request');
    expect(one('UserIDs')).toBe('user_ids');
    expect(one('Address2Line')).toBe('address2_line');
    expect(one('IPv4')).toBe('ipv4');
  });

  it('leaves a name that is already lower-case snake_case as it is', () => {
    for (const name of ['id', '_quarry_file', '_dlt_load_id', 'address__city', 'total_', '_1st']) expect(one(name)).toBe(name);
  });

  it('drops accents from Latin letters and keeps the letters of other scripts', () => {
    expect(one('Café Crème')).toBe('cafe_creme');
    expect(one('Größe')).toBe('große');
    expect(one('Имя клиента')).toBe('имя_клиента');
    expect(one('Ｆｕｌｌｗｉｄｔｈ²')).toBe('fullwidth2');
  });

  it('puts an underscore before a leading digit and after a word SQL reserves', () => {
    expect(one('1st Place')).toBe('_1st_place');
    expect(one('2024')).toBe('_2024');
    expect(one('Order')).toBe('order_');
    expect(one('FROM')).toBe('from_');
    expect(one('to')).toBe('to_');
    expect(one('Name')).toBe('name');
  });

  it('names a column with nothing left of it after its position', () => {
    expect(snakeCaseColumns(['id', '???', ''])).toEqual(['id', 'column_2', 'column_3']);
  });

  it('gives each column its own name: one already in snake_case keeps it, the others get _2, _3 in column order', () => {
    expect(snakeCaseColumns(['Invoice ID', 'invoice_id', 'INVOICE-ID'])).toEqual(['invoice_id_2', 'invoice_id', 'invoice_id_3']);
    expect(snakeCaseColumns(['A', 'a ', 'A 2'])).toEqual(['a', 'a_3', 'a_2']);
    expect(snakeCaseColumns(['Order', 'order_', 'ORDER'])).toEqual(['order_2', 'order_', 'order_3']);
    expect(snakeCaseColumns(['', 'column_1'])).toEqual(['column_1_2', 'column_1']);
  });

  it('gives the same names when applied to its own output', () => {
    const columns = ['Invoice ID', 'invoice_id', 'Größe', 'Order', '1st', '', 'HTTPServer', 'x'];
    const names = snakeCaseColumns(columns);
    expect(snakeCaseColumns(names)).toEqual(names);
  });

  it('gives every DuckDB keyword a name DuckDB reads unquoted as that column', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const connection = await instance.connect();
      const keywords = (await connection.runAndReadAll('SELECT keyword_name FROM duckdb_keywords()')).getRowObjects().map((row) => String(row.keyword_name));
      expect(keywords.length).toBeGreaterThan(400);
      const unreadable: string[] = [];
      for (const name of snakeCaseColumns(keywords)) {
        try {
          const rows = (await connection.runAndReadAll(`SELECT ${name} AS v FROM (SELECT 42 AS "${name}") WHERE ${name} IS NOT NULL`)).getRowObjects();
          if (rows[0]?.v !== 42) unreadable.push(name);
        } catch {
          unreadable.push(name);
        }
      }
      expect(unreadable).toEqual([]);
      connection.closeSync();
    } finally {
      instance.closeSync();
    }
  });
});
