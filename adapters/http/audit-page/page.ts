/** The audit page: plain HTML and script, no framework; it reads /state and reloads it on each server-sent event. */
export const AUDIT_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>raes-tools audit</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h2{margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.indeterminate{background:#ffe0e0}
.stopped{background:#ffe0e0;font-weight:bold}
.bar{height:10px;background:#4a7;display:inline-block}
.track{position:relative;height:12px;background:#eee;width:600px;display:inline-block}
.track span{position:absolute;top:1px;height:10px;background:#4a7}
</style></head>
<body>
<h1>Tool history</h1>
<p id="status">connecting</p>
<div id="schedulers"></div>
<div id="participants"></div>
<script>
const esc = (s) => String(s == null ? '-' : s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const time = (iso) => (iso == null ? '-' : String(iso).replace(/^.*T/, '').replace('Z', ''));
function render(state) {
  document.getElementById('status').textContent = 'updated ' + new Date().toISOString() + (state.sound ? ', sound' : ', ' + state.findings.length + ' finding(s)');
  let s = '<h2>Schedulers</h2><table><tr><th>participant</th><th>status</th><th>unresolved</th></tr>';
  for (const sc of state.schedulers) {
    s += '<tr class="' + (sc.status === 'stopped' ? 'stopped' : '') + '"><td>' + esc(sc.participant_address) + '</td><td>' + esc(sc.status + (sc.stopped_by ? ' (' + sc.stopped_by.reason + ')' : '')) + '</td><td>' + esc(sc.unresolved_action_ids.join(', ') || '-') + '</td></tr>';
  }
  document.getElementById('schedulers').innerHTML = s + '</table>';
  const byParticipant = new Map();
  for (const inv of state.invocations) {
    if (!byParticipant.has(inv.participant_address)) byParticipant.set(inv.participant_address, []);
    byParticipant.get(inv.participant_address).push(inv);
  }
  const times = state.invocations.flatMap((inv) => inv.tool_actions.flatMap((a) => [a.admitted_at, a.settled_at]).concat([inv.closed_at])).filter(Boolean).map((t) => Date.parse(t));
  const t0 = Math.min(...times), t1 = Math.max(...times), span = Math.max(1, t1 - t0);
  let p = '';
  for (const [participant, invocations] of byParticipant) {
    p += '<h2>' + esc(participant) + '</h2>';
    for (const inv of invocations) {
      const starts = inv.tool_actions.map((a) => Date.parse(a.admitted_at));
      const from = starts.length ? Math.min(...starts) : Date.parse(inv.closed_at);
      const to = inv.closed_at ? Date.parse(inv.closed_at) : from;
      p += '<div class="invocation" data-invocation="' + esc(inv.invocation_action_instance_id) + '"><b>' + esc(inv.invocation_action_instance_id) + '</b> ' + esc(inv.outer_status) + ', closed ' + time(inv.closed_at) +
        '<br><span class="track"><span style="left:' + (600 * (from - t0) / span) + 'px;width:' + Math.max(2, 600 * (to - from) / span) + 'px"></span></span>';
      p += '<table><tr><th>action</th><th>tool</th><th>admitted</th><th>dispatched</th><th>settled</th><th>settlement</th><th>status</th></tr>';
      for (const a of inv.tool_actions) {
        const unresolved = a.settlement === 'indeterminate' && a.resolution == null;
        p += '<tr class="action' + (unresolved ? ' indeterminate' : '') + '" data-action="' + esc(a.action_instance_id) + '"><td>' + esc(a.action_instance_id) + '</td><td>' + esc(a.tool_affordance_address.replace(/^.*\\./, '')) + '</td><td>' + time(a.admitted_at) + '</td><td>' + time(a.dispatched_at) + '</td><td>' + time(a.settled_at) + '</td><td>' + esc(a.settlement) + (unresolved ? ' (unresolved)' : a.resolution ? ' (resolved: ' + esc(a.resolution.effect) + ')' : '') + '</td><td>' + esc(a.status) + '</td></tr>';
      }
      p += '</table></div>';
    }
  }
  if (state.open_invocations.length) p += '<h2>Open invocations</h2><ul>' + state.open_invocations.map((id) => '<li>' + esc(id) + '</li>').join('') + '</ul>';
  document.getElementById('participants').innerHTML = p;
}
async function refresh() {
  const response = await fetch('/state');
  if (response.ok) render(await response.json());
  else document.getElementById('status').textContent = 'the audit failed: ' + (await response.text());
}
new EventSource('/events').onmessage = () => { refresh(); };
refresh();
</script></body></html>
`;
