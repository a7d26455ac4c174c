import { type Html, html } from '../../html.js';
import type { DayCount } from '../../../stats/stats.repository.js';
import { count } from './page.js';

/** A chart the script draws with uPlot: days and their counts in data attributes, a summary for everyone. */
export function dayChart(kind: 'spark' | 'bars', days: DayCount[], label: string): Html {
  const total = days.reduce((sum, d) => sum + d.n, 0);
  return html`<figure
    class="chart ${kind}"
    data-chart="${kind}"
    data-days="${JSON.stringify(days.map((d) => d.day))}"
    data-values="${JSON.stringify(days.map((d) => d.n))}"
  >
    <div class="plot" aria-hidden="true"></div>
    <figcaption class="muted">${label}: ${count(total)} new hosts in ${days.length} days</figcaption>
  </figure>`;
}
