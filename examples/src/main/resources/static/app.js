// The search page: one search and one histogram per submit, drawn with plain DOM and SVG (no build step).
'use strict';

const $ = (id) => document.getElementById(id);

function params() {
  const p = new URLSearchParams();
  for (const name of ['q', 'from', 'to']) {
    const value = $(name).value.trim();
    if (value) p.set(name, value);
  }
  return p;
}

// The page's state lives in its URL (?pattern=&q=&from=&to=): a search can be bookmarked and shared, and Back and
// Forward go through the searches made.
const PAGE_SIZE = 50;
let page = 1;

function stateOfForm() {
  const s = new URLSearchParams();
  s.set('pattern', $('pattern').value.trim() || '*');
  for (const [name, value] of params()) s.set(name, value);
  if (page > 1) s.set('page', String(page));
  return s;
}

function formOfState(s) {
  $('pattern').value = s.get('pattern') || '*';
  for (const name of ['q', 'from', 'to']) $(name).value = s.get(name) || '';
  page = Math.max(1, parseInt(s.get('page') || '1', 10) || 1);
}

// Another page of the same search: kept in the URL like the rest.
function goToPage(n) {
  page = n;
  history.pushState(null, '', `?${stateOfForm()}`);
  search();
}

async function getJson(url, options) {
  const response = await fetch(url, options);
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(body.detail || response.statusText);
    error.problem = body;
    throw error;
  }
  return body;
}

function bytes(n) {
  if (n < 1024) return n + ' B';
  const units = ['KiB', 'MiB', 'GiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < units.length - 1);
  return n.toFixed(1) + ' ' + units[i];
}

function showProblem(error) {
  const box = $('problem');
  if (!error) { box.hidden = true; box.textContent = ''; return; }
  const p = error.problem;
  box.textContent = p ? `${p.status} ${p.title}: ${p.detail}` : String(error);
  box.hidden = false;
}

function showCache(use) {
  const el = $('cache');
  const lookups = use.hits + use.misses;
  const ratio = lookups === 0 ? '–' : (100 * use.hitRatio).toFixed(0) + '%';
  el.textContent = `cache hit ratio ${ratio} · fetched ${bytes(use.bytesFetched)} in ${use.fetches} requests`
    + (use.directReads ? ` · ${use.directReads} direct reads` : '');
  el.className = use.bytesFetched > 0 ? 'cold' : 'warm';
  el.dataset.bytesFetched = use.bytesFetched;
}

function drawChart(histogram) {
  const svg = $('chart');
  svg.replaceChildren();
  const buckets = histogram.buckets || [];
  const width = svg.clientWidth || 800;
  const height = 140;
  const axis = 16;
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const step = buckets.length ? width / buckets.length : width;
  const ns = 'http://www.w3.org/2000/svg';
  buckets.forEach((b, i) => {
    const h = Math.round((height - axis) * b.count / max);
    const rect = document.createElementNS(ns, 'rect');
    rect.setAttribute('class', 'bar');
    rect.setAttribute('x', (i * step + 1).toFixed(1));
    rect.setAttribute('y', height - axis - h);
    rect.setAttribute('width', Math.max(1, step - 2).toFixed(1));
    rect.setAttribute('height', h);
    const title = document.createElementNS(ns, 'title');
    title.textContent = `${b.time}: ${b.count}`;
    rect.appendChild(title);
    svg.appendChild(rect);
  });
  const labels = Math.min(6, buckets.length);
  for (let k = 0; k < labels; k++) {
    const i = Math.floor(k * buckets.length / labels);
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', i * step + 2);
    text.setAttribute('y', height - 3);
    text.textContent = buckets[i].time.replace('T', ' ').replace(':00Z', '');
    svg.appendChild(text);
  }
}

function drawHits(result) {
  const list = $('hits');
  list.replaceChildren();
  for (const hit of result.hits) {
    const li = document.createElement('li');
    li.className = 'hit';
    const source = hit.fields._source;
    const head = document.createElement('div');
    head.className = 'hit-head';
    const time = document.createElement('span');
    time.className = 'time';
    time.textContent = source && source['@timestamp'] ? source['@timestamp'] : '';
    const index = document.createElement('span');
    index.textContent = hit.index + (hit.score != null ? ` · score ${hit.score.toFixed(2)}` : '');
    head.append(time, index);
    const fields = document.createElement('dl');
    fields.className = 'fields';
    const flat = source && typeof source === 'object' ? source : hit.fields;
    for (const [name, value] of Object.entries(flat)) {
      if (name === '@timestamp') continue;
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = typeof value === 'object' ? JSON.stringify(value) : String(value);
      fields.append(dt, dd);
    }
    li.append(head, fields);
    list.appendChild(li);
  }
}

function indicesLine(indices) {
  const failed = Object.keys(indices.failed || {});
  return `searched ${indices.searched.length} · skipped ${indices.skipped.length} without opening (out of the time range, or older than every hit shown)`
    + (failed.length ? ` · failed ${failed.length}: ${failed.join(', ')}` : '');
}

// What this search alone cost, from its profile (other searches at the same time do not count in it).
function costLine(cost) {
  if (!cost) return '';
  return `this search: ${cost.storeRequests} store requests in ${cost.waves} waves · ${bytes(cost.bytesFetched)} fetched`
    + ` · ${bytes(cost.bytesFromCache)} from the cache · ${cost.storeWaitMillis} ms waiting for the store`
    + ` · ${cost.readersOpened} readers opened`;
}

async function search(event) {
  if (event) {
    event.preventDefault();
    page = 1; // a new search starts at its first page
    const state = stateOfForm();
    if (state.toString() !== location.search.replace(/^\?/, '')) history.pushState(null, '', `?${state}`);
  }
  const pattern = encodeURIComponent($('pattern').value.trim() || '*');
  const p = params();
  document.body.dataset.state = 'searching';
  try {
    showProblem(null);
    const result = await getJson(`/indices/${pattern}/search?${p}&size=${PAGE_SIZE}&page=${page}`);
    showCache(result.cache);
    drawHits(result);
    // a lower bound reads as one (as Kibana shows it): the search stopped before indices that could not change its top hits
    $('summary').textContent = `${result.totalRelation === 'gte' ? '≥ ' : ''}${result.total.toLocaleString()} hits in ${result.tookMillis} ms`;
    $('summary').title = result.totalRelation === 'gte'
      ? 'at least this many: indices that could not change the top hits were not counted; the histogram counts them all'
      : 'every match counted';
    $('indices').textContent = indicesLine(result.indices);
    $('cost').textContent = costLine(result.cost);
    $('page').textContent = `page ${page}`;
    $('prev').disabled = page <= 1;
    $('next').disabled = result.hits.length < PAGE_SIZE || (page + 1) * PAGE_SIZE > 500;
    const histogram = await getJson(`/indices/${pattern}/histogram?${p}`);
    drawChart(histogram);
    document.body.dataset.state = 'done';
  } catch (error) {
    showProblem(error);
    $('hits').replaceChildren();
    $('chart').replaceChildren();
    document.body.dataset.state = 'failed';
  }
}

async function clearCache() {
  try {
    await getJson('/cache/clear', { method: 'POST' });
    $('cache').textContent = 'cache cleared: the next search is cold';
    $('cache').className = '';
  } catch (error) {
    showProblem(error);
  }
}

$('search-form').addEventListener('submit', search);
$('prev').addEventListener('click', () => goToPage(page - 1));
$('next').addEventListener('click', () => goToPage(page + 1));
$('clear-cache').addEventListener('click', clearCache);
window.addEventListener('popstate', () => {
  formOfState(new URLSearchParams(location.search));
  if (location.search) {
    search();
  } else {
    $('hits').replaceChildren();
    $('chart').replaceChildren();
    $('summary').textContent = '';
    document.body.dataset.state = 'idle';
  }
});
if (new URLSearchParams(location.search).has('pattern')) {
  formOfState(new URLSearchParams(location.search)); // a shared or bookmarked search: run it
  search();
} else {
  getJson('/indices').then((indices) => {
    if (indices.length && $('pattern').value === '*') {
      const name = indices[0].name;
      $('pattern').value = name.replace(/[0-9.]+$/, '*');
    }
  }).catch(showProblem);
}
