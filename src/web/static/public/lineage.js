// Draws a dependency graph as inline SVG: one column per depth (longest path from a root),
// curved edges from each model to the models built from it. No layout library: the graphs of a
// dbt project are small and layered, so columns by depth read well.
const SVG = 'http://www.w3.org/2000/svg';
// Room for MAX_LABEL monospace characters at 13 px (about 7.8 px each) after the status dot, plus a margin.
const NODE_WIDTH = 196;
const NODE_HEIGHT = 38;
const COLUMN_GAP = 72;
const ROW_GAP = 14;
const MAX_LABEL = 20;

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

function depths(models) {
  const byName = new Map(models.map((model) => [model.name, model]));
  const memo = new Map();
  const depthOf = (name, seen) => {
    if (memo.has(name)) return memo.get(name);
    if (seen.has(name)) return 0; // a cycle cannot come from dbt, but must not hang the page
    seen.add(name);
    const parents = byName.get(name).depends_on.filter((parent) => byName.has(parent));
    const depth = parents.length === 0 ? 0 : 1 + Math.max(...parents.map((parent) => depthOf(parent, seen)));
    memo.set(name, depth);
    return depth;
  };
  for (const model of models) depthOf(model.name, new Set());
  return memo;
}

/** Names reachable from `start` by following `next` (parents for upstream, children for downstream). */
function reachable(start, next) {
  const found = new Set();
  const stack = [start];
  while (stack.length > 0) {
    for (const name of next(stack.pop()) ?? []) {
      if (!found.has(name)) {
        found.add(name);
        stack.push(name);
      }
    }
  }
  return found;
}

/**
 * Replaces `container`'s content with the graph of `models` ({name, depends_on, status}).
 * Returns `select(name)`, which highlights a model's lineage as clicking it does; a click or Enter on a
 * node also calls `onSelect(name)`.
 */
export function drawLineage(container, models, onSelect = () => {}) {
  const known = new Set(models.map((model) => model.name));
  const parents = new Map(models.map((model) => [model.name, model.depends_on.filter((name) => known.has(name))]));
  const children = new Map(models.map((model) => [model.name, []]));
  for (const [name, upstream] of parents) for (const parent of upstream) children.get(parent).push(name);

  const depthOf = depths(models);
  const columns = [];
  for (const model of [...models].sort((a, b) => a.name.localeCompare(b.name))) {
    const depth = depthOf.get(model.name);
    (columns[depth] ??= []).push(model);
  }
  const position = new Map();
  columns.forEach((column, depth) => column.forEach((model, row) => {
    position.set(model.name, { x: depth * (NODE_WIDTH + COLUMN_GAP), y: row * (NODE_HEIGHT + ROW_GAP) });
  }));
  const width = Math.max(1, columns.length) * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP;
  const height = Math.max(1, ...columns.map((column) => column.length)) * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;

  const edges = svg('g', { class: 'edges' });
  for (const [name, upstream] of parents) {
    const to = position.get(name);
    for (const parent of upstream) {
      const from = position.get(parent);
      const startX = from.x + NODE_WIDTH;
      const startY = from.y + NODE_HEIGHT / 2;
      const endX = to.x - 6;
      const endY = to.y + NODE_HEIGHT / 2;
      const bend = (endX - startX) / 2;
      edges.append(svg('path', {
        d: `M${startX},${startY} C${startX + bend},${startY} ${endX - bend},${endY} ${endX},${endY}`,
        'marker-end': 'url(#lineage-arrow)', 'data-from': parent, 'data-to': name,
      }));
    }
  }

  const nodes = svg('g', { class: 'nodes' });
  const nodeElements = new Map();
  for (const model of models) {
    const { x, y } = position.get(model.name);
    const label = model.name.length > MAX_LABEL ? `${model.name.slice(0, MAX_LABEL - 1)}…` : model.name;
    const upstream = parents.get(model.name);
    const node = svg('g', {
      class: `node status-${model.status}`, transform: `translate(${x},${y})`, tabindex: 0, role: 'button', 'data-model': model.name,
      'aria-label': `${model.name}, ${model.status.replace('_', ' ')}${upstream.length > 0 ? `, built from ${upstream.join(', ')}` : ''}`,
    },
    svg('title', {}, model.name),
    svg('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 6 }),
    svg('circle', { cx: 14, cy: NODE_HEIGHT / 2, r: 5 }),
    svg('text', { x: 26, y: NODE_HEIGHT / 2 + 5 }, label));
    nodeElements.set(model.name, node);
    nodes.append(node);
  }

  const select = (name) => {
    const related = new Set([name, ...reachable(name, (current) => parents.get(current)), ...reachable(name, (current) => children.get(current))]);
    for (const [candidate, node] of nodeElements) {
      node.classList.toggle('selected', candidate === name);
      node.classList.toggle('dimmed', !related.has(candidate));
    }
    for (const edge of edges.children) edge.classList.toggle('dimmed', !(related.has(edge.dataset.from) && related.has(edge.dataset.to)));
  };
  // The page is told too, so the highlight survives the next redraw (a live event redraws the graph).
  const choose = (name) => {
    select(name);
    onSelect(name);
  };
  for (const [name, node] of nodeElements) {
    node.addEventListener('click', () => { choose(name); });
    node.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        choose(name);
      }
    });
  }

  const arrow = svg('marker', { id: 'lineage-arrow', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
    svg('path', { d: 'M0,0 L10,5 L0,10 z' }));
  container.replaceChildren(svg('svg', {
    width, height, viewBox: `-2 -2 ${width + 4} ${height + 4}`, role: 'group', 'aria-label': `Lineage of ${models.length} models`,
  }, svg('defs', {}, arrow), edges, nodes));
  return select;
}
