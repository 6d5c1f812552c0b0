/**
 * The audit page: plain HTML and script, no framework. Over server-sent events it gets the whole audit
 * once (`snapshot`, on each connection), then `patch` messages with only the invocations that changed,
 * open ones included, which it puts in place of their old block (or adds); the timeline bars are
 * rescaled in place.
 */
export const AUDIT_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>raes-tools audit</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h2{margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.indeterminate{background:#ffe0e0}
.stopped{background:#ffe0e0;font-weight:bold}
tr.open{background:#fff6d6}
.invocation.open>b::after{content:" (open)";color:#a60}
.track{position:relative;height:12px;background:#eee;width:600px;display:inline-block}
.track span{position:absolute;top:1px;height:10px;background:#4a7}
.invocation.open .track span{background:#db3}
</style></head>
<body>
<h1>Tool history</h1>
<p id="status">connecting</p>
<ul id="findings"></ul>
<div id="schedulers"></div>
<div id="participants"></div>
<script>
const esc = (s) => String(s == null ? '-' : s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const time = (iso) => (iso == null ? '-' : String(iso).replace(/^.*T/, '').replace('Z', ''));
const TRACK = 600;
const page = { invocations: new Map(), findings: new Map(), integrity: [], sound: true, failure: null };

function phaseOf(a) { return a.settled_at != null ? 'settled' : a.dispatched_at != null ? 'dispatched' : 'admitted'; }

function actionRow(a) {
  const phase = phaseOf(a);
  const unresolved = a.settlement === 'indeterminate' && a.resolution == null;
  const classes = 'action' + (unresolved ? ' indeterminate' : '') + (phase === 'settled' ? '' : ' open');
  const settlement = phase === 'settled'
    ? esc(a.settlement) + (unresolved ? ' (unresolved)' : a.resolution ? ' (resolved: ' + esc(a.resolution.effect) + ')' : '')
    : 'open (' + phase + ')';
  return '<tr class="' + classes + '" data-action="' + esc(a.action_instance_id) + '" data-phase="' + phase + '"><td>' + esc(a.action_instance_id) +
    '</td><td>' + esc(String(a.tool_affordance_address).split('.').pop()) + '</td><td>' + time(a.admitted_at) + '</td><td>' + time(a.dispatched_at) +
    '</td><td>' + time(a.settled_at) + '</td><td>' + settlement + '</td><td>' + esc(a.status) + '</td></tr>';
}

function span(inv) {
  const times = inv.tool_actions.flatMap((a) => [a.admitted_at, a.dispatched_at, a.settled_at]).concat([inv.closed_at]).filter(Boolean).map((t) => Date.parse(t));
  return times.length ? [Math.min(...times), Math.max(...times)] : null;
}

function invocationHtml(inv) {
  const s = span(inv);
  const outer = inv.open ? 'open' : esc(inv.outer_status) + ', closed ' + time(inv.closed_at);
  let h = '<div class="invocation' + (inv.open ? ' open' : '') + '" data-invocation="' + esc(inv.invocation_action_instance_id) + '"><b>' +
    esc(inv.invocation_action_instance_id) + '</b> ' + outer + '<br><span class="track">' +
    (s ? '<span data-from="' + s[0] + '" data-to="' + s[1] + '"></span>' : '') + '</span>';
  h += '<table><tr><th>action</th><th>tool</th><th>admitted</th><th>dispatched</th><th>settled</th><th>settlement</th><th>status</th></tr>';
  for (const a of inv.tool_actions) h += actionRow(a);
  return h + '</table></div>';
}

function sectionOf(participant) {
  for (const section of document.querySelectorAll('#participants section')) if (section.dataset.participant === participant) return section;
  const section = document.createElement('section');
  section.dataset.participant = participant;
  section.innerHTML = '<h2>' + esc(participant) + '</h2>';
  document.getElementById('participants').appendChild(section);
  return section;
}

function put(inv) {
  const id = inv.invocation_action_instance_id;
  page.invocations.set(id, inv);
  const existing = [...document.querySelectorAll('[data-invocation]')].find((el) => el.dataset.invocation === id);
  if (existing) existing.outerHTML = invocationHtml(inv);
  else sectionOf(inv.participant_address).insertAdjacentHTML('beforeend', invocationHtml(inv));
}

function rescale() {
  const bars = [...document.querySelectorAll('.track span[data-from]')];
  if (!bars.length) return;
  const t0 = Math.min(...bars.map((b) => Number(b.dataset.from)));
  const t1 = Math.max(...bars.map((b) => Number(b.dataset.to)));
  const scale = TRACK / Math.max(1, t1 - t0);
  for (const b of bars) {
    b.style.left = (scale * (Number(b.dataset.from) - t0)) + 'px';
    b.style.width = Math.max(2, scale * (Number(b.dataset.to) - Number(b.dataset.from))) + 'px';
  }
}

function renderSchedulers(schedulers) {
  let s = '<h2>Schedulers</h2><table><tr><th>participant</th><th>status</th><th>unresolved</th></tr>';
  for (const sc of schedulers) {
    s += '<tr class="' + (sc.status === 'stopped' ? 'stopped' : '') + '"><td>' + esc(sc.participant_address) + '</td><td>' + esc(sc.status + (sc.stopped_by ? ' (' + sc.stopped_by.reason + ')' : '')) + '</td><td>' + esc(sc.unresolved_action_ids.join(', ') || '-') + '</td></tr>';
  }
  document.getElementById('schedulers').innerHTML = s + '</table>';
}

function renderStatus() {
  const findings = page.integrity.concat(...page.findings.values());
  const open = [...page.invocations.values()].filter((inv) => inv.open).length;
  document.getElementById('status').textContent = page.failure != null ? 'the audit failed: ' + page.failure
    : 'live, updated ' + new Date().toISOString() + ': ' + page.invocations.size + ' invocation(s), ' + open + ' open, ' + (findings.length === 0 ? 'sound' : findings.length + ' finding(s)');
  document.getElementById('findings').innerHTML = findings.map((f) => '<li>' + esc(f.code) + ': ' + esc(f.message) + '</li>').join('');
}

function setFindings(id, findings) {
  if (findings.length) page.findings.set(id, findings); else page.findings.delete(id);
}

function snapshot(m) {
  page.invocations = new Map();
  page.findings = new Map();
  page.integrity = m.integrity_findings;
  page.failure = null;
  document.getElementById('participants').innerHTML = '';
  for (const f of m.findings) setFindings(f.invocation_action_instance_id, (page.findings.get(f.invocation_action_instance_id) || []).concat([f]));
  for (const inv of m.invocations) put(inv);
  renderSchedulers(m.schedulers);
  rescale();
  renderStatus();
}

function patch(m) {
  page.failure = null;
  for (const inv of m.invocations) put(inv);
  for (const id of Object.keys(m.findings)) setFindings(id, m.findings[id]);
  renderSchedulers(m.schedulers);
  rescale();
  renderStatus();
}

const events = new EventSource('/events');
events.addEventListener('snapshot', (e) => snapshot(JSON.parse(e.data)));
events.addEventListener('patch', (e) => patch(JSON.parse(e.data)));
events.addEventListener('failure', (e) => { page.failure = JSON.parse(e.data).message; renderStatus(); });
events.onerror = () => { document.getElementById('status').textContent = 'reconnecting to the server'; };
</script></body></html>
`;
