import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/** The transformation models: lineage graph of `depends_on`, status, tests (failing rows) and last error, Run buttons for those allowed. */
export function renderModelsPage(options: { user: PageUser; canRun: boolean }): string {
  return layout({
    title: 'Models',
    user: options.user,
    current: '/models',
    scripts: ['/static/public/models.js'],
    body: html`<div class="page-head split">
      <div>
        <h1>Models</h1>
        <p class="muted">SQL models in <code>transform/models</code>, built by dbt into the <code>staging</code> and <code>marts</code> layers. <a href="/transform-docs/">Transformation docs</a></p>
      </div>
    </div>
    <p id="models-message" class="notice" role="status" hidden></p>
    <section class="card" aria-labelledby="lineage-title">
      <h2 id="lineage-title">Lineage</h2>
      <p class="muted" id="lineage-help">Each arrow points from a model to the models built from it. Select a model to highlight what it depends on and what depends on it.</p>
      <p class="muted" id="lineage-scroll-hint" hidden>The graph is wider than the screen: swipe sideways to see all of it.</p>
      <div id="lineage" class="lineage scroll" aria-describedby="lineage-help lineage-scroll-hint"></div>
    </section>
    <section class="card" aria-labelledby="list-title">
      <h2 id="list-title">All models</h2>
      <div class="check"><input type="checkbox" id="failing-only" name="failing_only"><label for="failing-only">Only models with failing tests</label></div>
      <div class="scroll"><table id="models" data-can-run="${options.canRun ? 'yes' : 'no'}"><caption class="visually-hidden">Models, their layer, status, tests and last error</caption>
        <thead><tr><th scope="col">Model</th><th scope="col" class="phone-hide">Layer</th><th scope="col" class="phone-hide">Built as</th><th scope="col">Status</th><th scope="col">Tests</th><th scope="col" class="phone-hide">Depends on</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table></div>
    </section>`,
  });
}
