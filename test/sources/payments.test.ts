import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeAccount, type StripeObject } from '../fakes/stripe.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const KEY = 'sk_test_51Fake0000000000000000000000abcd';
const START = Date.UTC(2025, 0, 1) / 1000;
const END_OF_RANGE = Date.UTC(2026, 5, 30, 23, 59, 59) / 1000;

/** Unix seconds `hours` after the configured start date. */
const hoursIn = (hours: number): number => START + hours * 3600;

function object(prefix: string, kind: string, n: number, created: number, fields: Record<string, unknown>): StripeObject {
  return { id: `${prefix}_${String(n).padStart(6, '0')}`, object: kind, created, livemode: false, metadata: {}, ...fields };
}

const customer = (n: number, created = hoursIn(n)): StripeObject => object('cus', 'customer', n, created, {
  email: `buyer${String(n)}@example.com`, name: `Buyer ${String(n)}`, balance: 0, currency: 'usd',
  address: { city: 'Berlin', country: 'DE', line1: `Street ${String(n)}`, postal_code: '10115' },
  metadata: n % 2 === 0 ? { crm_id: `c${String(n)}` } : {},
});

function lists(): Record<string, StripeObject[]> {
  return {
    customers: [
      ...records(230, (n) => customer(n)),
      customer(900, START - 86_400), customer(901, START - 1), customer(902, END_OF_RANGE + 1),
    ],
    charges: records(120, (n) => object('ch', 'charge', n, hoursIn(n), {
      amount: n * 100, currency: 'usd', customer: `cus_${String(n).padStart(6, '0')}`, paid: true, status: 'succeeded',
      billing_details: { email: null, name: `Buyer ${String(n)}`, address: { city: 'Berlin', country: 'DE' } },
      payment_method_details: { type: 'card', card: { brand: n % 2 === 0 ? 'visa' : 'mastercard', last4: '4242', exp_year: 2030 } },
      outcome: { network_status: 'approved_by_network', risk_level: 'normal', type: 'authorized' },
    })),
    invoices: records(5, (n) => object('in', 'invoice', n, hoursIn(n), {
      customer: 'cus_000001', status: 'paid', total: 2000 * n, currency: 'usd',
      lines: { object: 'list', has_more: false, url: `/v1/invoices/in_${String(n)}/lines`, data: [
        { id: `il_${String(n)}a`, object: 'line_item', amount: 1500 * n, description: 'Plan' },
        { id: `il_${String(n)}b`, object: 'line_item', amount: 500 * n, description: 'Seats' },
      ] },
    })),
    subscriptions: records(4, (n) => object('sub', 'subscription', n, hoursIn(n), {
      customer: 'cus_000001', status: n === 4 ? 'canceled' : 'active',
      items: { object: 'list', has_more: false, data: [{ id: `si_${String(n)}`, object: 'subscription_item', price: { id: 'price_000001', unit_amount: 1500 }, quantity: n }] },
    })),
    products: records(3, (n) => object('prod', 'product', n, hoursIn(n), { name: `Product ${String(n)}`, active: true })),
    prices: records(4, (n) => object('price', 'price', n, hoursIn(n), {
      product: 'prod_000001', unit_amount: 500 * n, currency: 'eur', recurring: n % 2 === 0 ? { interval: 'month', interval_count: 1 } : null, type: n % 2 === 0 ? 'recurring' : 'one_time',
    })),
    payment_intents: records(6, (n) => object('pi', 'payment_intent', n, hoursIn(n), {
      amount: 300 * n, currency: 'usd', status: 'succeeded', payment_method_types: ['card'],
    })),
    balance_transactions: records(8, (n) => object('txn', 'balance_transaction', n, hoursIn(n), {
      amount: 1000, fee: 59, net: 941, currency: 'usd', type: 'charge', fee_details: [{ amount: 59, currency: 'usd', type: 'stripe_fee', description: 'Stripe processing fees' }],
    })),
    events: records(5, (n) => object('evt', 'event', n, hoursIn(n), {
      type: 'customer.created', api_version: '2024-06-20', data: { object: { id: `cus_${String(n).padStart(6, '0')}`, object: 'customer' } },
    })),
  };
}

const stripe = lists();
const account: StripeAccount = { secretKey: KEY };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startStripeFake(stripe, account);
  quarry = await startQuarry({
    env: { PAYMENTS_API_KEY: KEY },
    sourcesYaml: `sources:\n  - name: stripe\n    type: payments\n    payments:\n      base_url: ${api.url}\n      start_date: 2025-01-01\n      end_date: 2026-06-30\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('payments (Stripe) sources', () => {
  it('loads every endpoint within the date range, page by page, nested objects as STRUCT and LIST', async () => {
    expect(await syncAndWait(quarry, 'stripe')).toMatchObject({ type: 'sync_completed', rows: 230 + 120 + 5 + 4 + 3 + 4 + 6 + 8 + 5 });
    const counts = await quarry.query(`SELECT ${[
      'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
    ].map((table) => `(SELECT count(*) FROM raw_stripe.${table}) AS ${table}`).join(', ')}`);
    expect(counts[0]).toEqual({
      customers: 230, charges: 120, invoices: 5, subscriptions: 4, products: 3, prices: 4, payment_intents: 6, balance_transactions: 8, events: 5,
    });
    expect(await quarry.query("SELECT email, address.city AS city, metadata.crm_id AS crm_id FROM raw_stripe.customers WHERE id = 'cus_000042'"))
      .toEqual([{ email: 'buyer42@example.com', city: 'Berlin', crm_id: 'c42' }]);
    expect(await quarry.query("SELECT amount, payment_method_details.card.brand AS brand FROM raw_stripe.charges WHERE id = 'ch_000007'"))
      .toEqual([{ amount: 700, brand: 'mastercard' }]);
    expect(await quarry.query("SELECT len(lines.data) AS lines, lines.data[2].description AS second FROM raw_stripe.invoices WHERE id = 'in_000003'"))
      .toEqual([{ lines: 2, second: 'Seats' }]);
    expect(await quarry.query("SELECT count(*) FILTER (WHERE status = 'canceled') AS canceled FROM raw_stripe.subscriptions")).toEqual([{ canceled: 1 }]);
    expect(await quarry.query("SELECT fee_details[1].type AS fee FROM raw_stripe.balance_transactions WHERE id = 'txn_000001'")).toEqual([{ fee: 'stripe_fee' }]);
    const customerPages = api.requests.filter((request) => request.path === '/v1/customers');
    expect(customerPages.map((request) => request.query.get('starting_after'))).toEqual([null, 'cus_000131', 'cus_000031']);
    expect(customerPages.every((request) => request.query.get('created[gte]') === String(START) && request.query.get('created[lte]') === String(END_OF_RANGE)))
      .toBe(true);
    expect(customerPages[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('asks only for objects created since the last sync and merges them on id', async () => {
    const customers = stripe.customers!;
    const newest = customers.findIndex((candidate) => candidate.id === 'cus_000230');
    customers.splice(newest, 1, { ...customer(230), email: 'changed@example.com' });
    customers.push(customer(231));
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'stripe')).toMatchObject({ type: 'sync_completed' });
    const asked = api.requests.slice(before).filter((request) => request.path === '/v1/customers');
    expect(asked.map((request) => request.query.get('created[gte]'))).toEqual([String(hoursIn(230))]);
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, count(*) FILTER (WHERE email = 'changed@example.com') AS changed FROM raw_stripe.customers"))
      .toEqual([{ n: 231, ids: 231, changed: 1 }]);
    expect((await quarry.ctx.store.sourceState.forSource('stripe')).get('customers')).toBe(hoursIn(231));
  });

});
