import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import { writeStagingModels } from '../transform/index.ts';

export const DEMO_SOURCES_YAML = `# Sources of the demo project. See README.md for every source type and its fields.
sources:
  - name: orders
    type: local_files
    description: Orders of a small web shop, one CSV file per month
    tags: [demo]
    staging_column_names: snake_case
    local_files:
      directory: data/orders
      file_pattern: "*.csv"
      notes: Written by "quarry init --demo"; drop more monthly files here or upload them in the UI
`;

const CUSTOMERS = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Edsger', 'Frances', 'Dennis', 'Radia'];
const COUNTRIES = ['NL', 'DE', 'FR', 'SE', 'US', 'GB'];
const PRODUCTS: readonly (readonly [string, number])[] = [
  ['notebook', 4.5], ['pen', 1.2], ['backpack', 39.0], ['lamp', 24.9], ['mug', 8.0], ['stapler', 11.5],
];

/** Deterministic sample orders, so every demo shows the same figures. */
export function writeDemoData(paths: ProjectPaths): void {
  const directory = path.join(paths.dataDir, 'orders');
  mkdirSync(directory, { recursive: true });
  let orderId = 1000;
  for (const month of ['2026-09', '2026-10']) {
    const lines = ['order_id,ordered_at,customer,country,product,quantity,unit_price'];
    for (let index = 0; index < 120; index++) {
      orderId += 1;
      const day = String(1 + (index % 28)).padStart(2, '0');
      const hour = String(8 + (index % 12)).padStart(2, '0');
      const [product, price] = PRODUCTS[(orderId * 7) % PRODUCTS.length] ?? ['pen', 1.2];
      lines.push([
        orderId, `${month}-${day} ${hour}:15:00`, CUSTOMERS[(orderId * 3) % CUSTOMERS.length], COUNTRIES[orderId % COUNTRIES.length],
        product, 1 + (orderId % 4), price.toFixed(2),
      ].join(','));
    }
    writeFileSync(path.join(directory, `orders_${month}.csv`), `${lines.join('\n')}\n`);
  }
}

/** The columns a sync of the demo CSV files gives raw_orders.orders (the file's, then Quarry's two). */
const DEMO_RAW_COLUMNS = ['order_id', 'ordered_at', 'customer', 'country', 'product', 'quantity', 'unit_price', '_quarry_file', '_quarry_loaded_at'];

const DEMO_MARTS: Record<string, string> = {
  'orders_enriched.sql': `-- One row per order with its revenue: the base of the other marts.
select
    order_id,
    ordered_at,
    date_trunc('month', ordered_at) as order_month,
    customer,
    country,
    product,
    quantity,
    unit_price,
    quantity * unit_price as revenue
from {{ ref('stg_orders__orders') }}
`,
  'revenue_by_month.sql': `select
    order_month,
    count(*) as orders,
    sum(quantity) as items,
    round(sum(revenue), 2) as revenue
from {{ ref('orders_enriched') }}
group by order_month
order by order_month
`,
  'revenue_by_country.sql': `select
    country,
    count(*) as orders,
    count(distinct customer) as customers,
    round(sum(revenue), 2) as revenue
from {{ ref('orders_enriched') }}
group by country
order by revenue desc
`,
  'customer_revenue.sql': `select
    customer,
    count(*) as orders,
    round(sum(revenue), 2) as revenue,
    min(ordered_at) as first_order_at,
    max(ordered_at) as last_order_at
from {{ ref('orders_enriched') }}
group by customer
order by revenue desc
`,
  // dbt runs these tests with every build. A month file holding an order twice fails orders_enriched's unique test
  // and skips the marts built on it until the file is fixed and synced (README, "Data tests").
  '_marts.yml': `version: 2
models:
  - name: orders_enriched
    description: Every order with its month and revenue (quantity times unit price)
    columns:
      - name: order_id
        data_tests: [unique, not_null]
      - name: revenue
        data_tests: [not_null]
  - name: revenue_by_month
    description: Orders, items and revenue per month
    columns:
      - name: order_month
        data_tests: [unique, not_null]
  - name: revenue_by_country
    description: Orders, customers and revenue per country
    columns:
      - name: country
        data_tests: [unique, not_null]
  - name: customer_revenue
    description: Orders and revenue per customer, with their first and last order
    columns:
      - name: customer
        data_tests: [unique]
`,
};

/** The demo's example dashboard on its marts, created in the dashboard tool once the marts are built. */
const DEMO_DASHBOARD = {
  title: 'Demo shop sales',
  charts: [
    { type: 'big_number', title: 'Revenue', dataset: 'marts.revenue_by_month', metric: 'SUM(revenue)' },
    { type: 'big_number', title: 'Orders', dataset: 'marts.revenue_by_month', metric: 'SUM(orders)' },
    { type: 'bar', title: 'Revenue by month', dataset: 'marts.revenue_by_month', x: 'order_month', metric: 'SUM(revenue)' },
    { type: 'pie', title: 'Revenue by country', dataset: 'marts.revenue_by_country', group_by: 'country', metric: 'SUM(revenue)' },
    {
      type: 'table', title: 'Best customers', dataset: 'marts.customer_revenue', columns: ['customer', 'orders', 'revenue', 'last_order_at'],
      order_by: 'revenue', descending: true, limit: 25,
    },
  ],
};

export function writeDemoDashboard(paths: ProjectPaths): void {
  mkdirSync(paths.dashboardsDir, { recursive: true });
  writeFileSync(path.join(paths.dashboardsDir, 'sales.json'), `${JSON.stringify(DEMO_DASHBOARD, null, 2)}\n`);
}

/** The demo's dbt models: the staging view over raw_orders.orders and marts built on it. */
export function writeDemoModels(paths: ProjectPaths): void {
  writeStagingModels(paths.transformDir, 'orders', [{ schema: 'raw_orders', name: 'orders', columns: DEMO_RAW_COLUMNS }], 'snake_case');
  const marts = path.join(paths.transformDir, 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  for (const [name, content] of Object.entries(DEMO_MARTS)) writeFileSync(path.join(marts, name), content);
}
