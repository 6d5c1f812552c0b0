import { cpSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MANIFEST, SCENARIO, cli, json, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(180_000);

/**
 * A history written by `raes-tools run`, then changed in its SQLite file the ways someone with write
 * access could: `audit` names the first event where it breaks, and exits 1.
 */

type Finding = { code: string; position: string; stream: string; revision: string; message: string };
type AuditJson = { sound: boolean; integrity: { chained_events: number; seals: number; unsealed_events: number; findings: Finding[] } };
type Row = { position: number; stream: string; revision: number; type: string; data: string; metadata: string | Buffer | null };

const original = scratchDir('audit-tampered');

const tampered = (label: string, change: (db: BetterSqlite3.Database, rows: readonly Row[]) => void): string => {
  const dir = scratchDir(`audit-tampered-${label}`);
  cpSync(original, dir, { recursive: true });
  const db = new BetterSqlite3(join(dir, 'events.sqlite'));
  const rows = db.prepare('SELECT position, stream, revision, type, data, metadata FROM events ORDER BY position').all() as Row[];
  change(db, rows);
  db.close();
  return dir;
};

const audit = (dir: string): { status: number | null; report: AuditJson } => {
  const run = cli('audit', '--data-dir', dir, '--json');
  return { status: run.status, report: json<AuditJson>(run) };
};

/** An invocation stream's event in the middle of the history, with at least one event of its stream after it. */
const middleEvent = (rows: readonly Row[]): Row => {
  const candidates = rows.filter((row) => row.stream.startsWith('invocation-') && rows.some((later) => later.stream === row.stream && later.revision === row.revision + 1));
  return candidates[Math.floor(candidates.length / 2)]!;
};

describe('raes-tools audit over a tampered SQLite history', () => {
  beforeAll(() => {
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-tampered', '--data-dir', original, '--json');
    expect(run.status).toBe(0);
  });

  it('finds the untouched history sound: every event chained and sealed', () => {
    const { status, report } = audit(original);
    expect(status).toBe(0);
    expect(report.integrity.findings).toEqual([]);
    expect(report.integrity.seals).toBeGreaterThanOrEqual(1);
    expect(report.integrity.unsealed_events).toBe(0);
  });

  it('names the event whose data was edited', () => {
    let target: Row | undefined;
    const dir = tampered('edited', (db, rows) => {
      target = middleEvent(rows);
      const data = JSON.parse(target.data) as Record<string, unknown>;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...data, timestamp: '2020-01-01T00:00:00.000Z' }), target.position);
    });
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.sound).toBe(false);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: String(target!.position), stream: target!.stream });
  });

  // The SQLite file keeps a link as its digests' bytes (adapters/event-store/sqlite/metadata-column.js).
  const linkEdits: Array<[string, string, (column: Buffer) => Buffer]> = [
    ['names the event whose stored link bytes were edited', 'chain_digest_mismatch', (column) => Buffer.concat([column.subarray(0, 1), Buffer.of(column[1]! ^ 0x01), column.subarray(2)])],
    ['names the event whose stored link was cut short', 'link_missing', (column) => column.subarray(0, 40)],
  ];
  it.each(linkEdits)('%s', (label, code, edit) => {
    let target: Row | undefined;
    const dir = tampered(code, (db, rows) => {
      target = middleEvent(rows);
      db.prepare('UPDATE events SET metadata = ? WHERE position = ?').run(edit(target.metadata as Buffer), target.position);
    });
    const { status, report } = audit(dir);
    expect([label, status]).toEqual([label, 1]);
    expect(report.integrity.findings[0]).toMatchObject({ code, position: String(target!.position), stream: target!.stream });
  });

  it('names the event whose metadata was overwritten with text that is not JSON, and judges the next one by nothing it cannot read', () => {
    let target: Row | undefined;
    const dir = tampered('metadata-not-json', (db, rows) => {
      target = middleEvent(rows);
      db.prepare('UPDATE events SET metadata = ? WHERE position = ?').run('{oops', target.position);
    });
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'event_unreadable', position: String(target!.position), stream: target!.stream });
    expect(report.integrity.findings.map((finding) => finding.code)).not.toContain('chain_link_broken');
  });

  it('names the event whose type was changed, with the break its chain shows, when its invocation no longer reads', () => {
    let target: Row | undefined;
    const dir = tampered('type-changed', (db, rows) => {
      target = rows.find((row) => row.type === 'ToolActionSettled')!;
      db.prepare("UPDATE events SET type = 'ToolActionRefused' WHERE position = ?").run(target.position);
    });
    const run = cli('audit', '--data-dir', dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the event store's history was changed (chain_digest_mismatch at position ${target!.position}, listed below)`);
    expect(run.stderr).toContain(`  chain_digest_mismatch: the event at position ${target!.position} `);
    expect(run.stderr).toContain('restore the store from a backup');
  });

  it('exits 1 naming the event whose data is not JSON, with no stack trace', () => {
    let target: Row | undefined;
    const dir = tampered('data-not-json', (db, rows) => {
      target = middleEvent(rows);
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run('{not json', target.position);
    });
    for (const args of [['audit'], ['audit', '--json'], ['export', '--out', join(dir, 'history.json')]]) {
      const run = cli(...args, '--data-dir', dir);
      expect([args, run.status]).toEqual([args, 1]);
      expect(run.stderr).toContain(`the event at position ${target!.position} (stream '${target!.stream}', revision ${target!.revision}) cannot be read: its data is not JSON`);
      expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  });

  it('names the event after a dropped one, in the global order and in its stream', () => {
    let next: Row | undefined;
    let target: Row | undefined;
    const dir = tampered('dropped', (db, rows) => {
      target = middleEvent(rows);
      next = rows.find((row) => row.stream === target!.stream && row.revision === target!.revision + 1);
      db.prepare('DELETE FROM events WHERE position = ?').run(target.position);
    });
    // The views saw the dropped event: the report cannot be rendered, and the error says why.
    const run = cli('audit', '--data-dir', dir, '--json');
    expect(run.status).toBe(1);
    const findings = run.stderr.split('\n').filter((line) => /^ {2}\w+: /.test(line));
    // SQLite numbers its events without gaps: the event after the dropped one says so first.
    expect(findings[0]).toContain(`position_gap: the event at position ${target!.position + 1} `);
    expect(findings[0]).toContain(`follows position ${target!.position - 1}, and the store numbers its events without gaps: the event before it was removed`);
    expect(findings).toContainEqual(expect.stringContaining(`revision_gap: the event at position ${next!.position} (stream '${next!.stream}', revision ${next!.revision}) follows revision ${next!.revision - 2}`));
    expect(findings.some((line) => line.startsWith('  seal_mismatch: '))).toBe(true);
    // A rebuild from the changed store cannot bring the event back: the advice is the findings and a backup.
    const [message] = run.stderr.split('\n');
    expect(message).toContain(`the event store's history was changed (position_gap at position ${target!.position + 1} and 2 more, listed below)`);
    expect(message).toContain('a rebuild of the views cannot repair it: restore the store from a backup');
    expect(message).not.toContain('rebuild it with');

    // A bundle of it is refused, and the advice is the audit that names the break.
    expect(cli('keys', 'generate', '--out', dir).status).toBe(0);
    const bundle = cli('export', '--bundle', '--key', join(dir, 'raes-signing-key.pem'), '--data-dir', dir, '--out', join(dir, 'bundle.json'));
    expect(bundle.status).toBe(1);
    expect(bundle.stderr).toMatch(/^raes-tools export --bundle: the participant history cannot be rendered: /);
    expect(bundle.stderr).toContain(`the event store's history was changed (position_gap at position ${target!.position + 1} and 2 more): run \`raes-tools audit\` to see where it breaks`);
    expect(bundle.stderr).not.toContain('projections rebuild');
  });

  it('names the first of two events of a stream whose order was swapped', () => {
    let first: Row | undefined;
    const dir = tampered('reordered', (db, rows) => {
      first = middleEvent(rows);
      const second = rows.find((row) => row.stream === first!.stream && row.revision === first!.revision + 1)!;
      const put = db.prepare('UPDATE events SET type = ?, data = ?, metadata = ? WHERE position = ?');
      db.transaction(() => {
        put.run(second.type, second.data, second.metadata, first!.position);
        put.run(first!.type, first!.data, first!.metadata, second.position);
      })();
    });
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: String(first!.position) });
  });

  it('names the gap and the seal over a stream that was removed whole', () => {
    let seal: Row | undefined;
    let firstKeptAfter: Row | undefined;
    const dir = tampered('removed', (db, rows) => {
      const removed = rows.find((row) => row.stream.startsWith('scheduler-'))!;
      firstKeptAfter = rows.find((row) => row.position > removed.position && row.stream !== removed.stream);
      seal = rows.find((row) => row.stream === 'integrity-seals');
      db.prepare('DELETE FROM events WHERE stream = ?').run(removed.stream);
    });
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'position_gap', position: String(firstKeptAfter!.position) });
    const sealFinding = report.integrity.findings.find((finding) => finding.code === 'seal_mismatch');
    expect(sealFinding).toMatchObject({ position: String(seal!.position), stream: 'integrity-seals' });
    expect(sealFinding!.message).toMatch(/linked events where it counted/);
  });

  it('names the gap left by an invocation stream removed with every seal, after the views were rebuilt from what is left', () => {
    let firstKeptAfter: Row | undefined;
    const dir = tampered('removed-unsealed', (db, rows) => {
      const removed = rows.find((row) => row.stream.startsWith('invocation-'))!;
      firstKeptAfter = rows.find((row) => row.position > removed.position && row.stream !== removed.stream && row.stream !== 'integrity-seals');
      db.prepare("DELETE FROM events WHERE stream = ? OR stream = 'integrity-seals'").run(removed.stream);
    });
    expect(cli('projections', 'rebuild', '--data-dir', dir).status).toBe(0);
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.integrity.seals).toBe(0);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'position_gap', position: String(firstKeptAfter!.position) });
  });

  it('names the seal over events of two streams whose global order was swapped', () => {
    let seal: Row | undefined;
    const dir = tampered('global-order', (db, rows) => {
      seal = rows.find((row) => row.stream === 'integrity-seals');
      const [a, b] = [rows[1]!, rows.slice(2).find((row) => row.stream !== rows[1]!.stream && row.position < seal!.position)!];
      const move = db.prepare('UPDATE events SET position = ? WHERE position = ?');
      db.transaction(() => {
        move.run(-1, a.position);
        move.run(a.position, b.position);
        move.run(b.position, -1);
      })();
    });
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'seal_mismatch', position: String(seal!.position) });
    expect(report.integrity.findings[0]!.message).toMatch(/in another order/);
  });

  // Data that still reads as JSON but holds other kinds than the engine writes: named, never an internal error.
  const dataEdits: Array<[string, string, (data: Record<string, unknown>) => unknown]> = [
    ['an opening whose data is null', 'InvocationOpened', () => null],
    ['an opening that names no participant', 'InvocationOpened', (data) => ({ ...data, port_values: [] })],
    ['a tool call id that is a number', 'ToolActionAdmitted', (data) => ({ ...data, tool_call_id: 5 })],
    ['a dispatch time that is an object', 'ToolActionDispatched', (data) => ({ ...data, at: { when: 'now' } })],
  ];
  it.each(dataEdits)('reports %s as a changed event, in text and JSON', (_label, type, edit) => {
    let target: Row | undefined;
    const dir = tampered(`kinds-${type}`, (db, rows) => {
      target = rows.find((row) => row.type === type)!;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(edit(JSON.parse(target.data) as Record<string, unknown>)), target.position);
    });
    const text = cli('audit', '--data-dir', dir);
    expect(text.status).toBe(1);
    expect(text.stderr).not.toMatch(/internal error/);
    expect(withoutStack(text)).toBe(true);
    expect(`${text.stdout}${text.stderr}`).toContain(`chain_digest_mismatch: the event at position ${target!.position} `);
    // JSON: the report, or (when the history cannot be rendered at all) the error naming the same finding.
    const run = cli('audit', '--data-dir', dir, '--json');
    expect(run.status).toBe(1);
    const printed = json<AuditJson & { error?: { message: string } }>(run);
    if (printed.error === undefined) expect(printed.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: String(target!.position) });
    else expect(printed.error.message).toContain(`chain_digest_mismatch: the event at position ${target!.position} `);
  });
});
