import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';

export const DEMO_SOURCES_YAML = `# Sources of the demo project. See README.md for every source type and its fields.
sources:
  - name: orders
    type: local_files
    description: Orders of a small web shop, one CSV file per month
    tags: [demo]
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
