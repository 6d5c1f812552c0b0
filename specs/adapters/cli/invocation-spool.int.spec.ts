import type { AuditedInvocation } from '../../../adapters/cli/audited-invocation';
import { InvocationSpool } from '../../../adapters/cli/invocation-spool';

/**
 * The audit's spool hands back, in order, exactly the text each invocation was rendered as, whatever
 * characters it holds and however the temporary file's chunks cut it, with a later audit of an
 * invocation in place of its first.
 */

const invocation = (id: string, episode: string, note: string): AuditedInvocation => ({
  invocation_action_instance_id: id,
  participant_address: 'participant.behavior.agent',
  episode_id: episode,
  action_contract_address: 'contract.outer',
  outer_status: note,
  closed_at: null,
  tool_actions: [],
});

const rendered = (audited: AuditedInvocation): string => `[${audited.episode_id}/${audited.invocation_action_instance_id}] ${audited.outer_status}`;

describe('InvocationSpool', () => {
  it('replays every rendered text in order, across chunks, with multibyte and framing characters intact', () => {
    const spool = new InvocationSpool(rendered);
    const notes = ['plain', '12 34\n56 78\n', 'é ü 中文 🙂'.repeat(5000), '\n\n', '', 'x'.repeat(70_000), '3 4\nkeylike'];
    const added = notes.map((note, index) => invocation(`inv-${index}`, 'episode-a', note));
    try {
      for (const audited of added) spool.add(audited);
      const replayed: string[] = [];
      spool.replay((text) => replayed.push(text));
      expect(replayed).toEqual(added.map(rendered));
      expect(spool.count).toBe(notes.length);
    } finally {
      spool.dispose();
    }
  });

  it('puts a later audit of an invocation in place of its first, by episode and id', () => {
    const spool = new InvocationSpool(rendered);
    try {
      spool.add(invocation('inv-1', 'episode-a', 'first'));
      spool.add(invocation('inv-1', 'episode-b', 'other episode'));
      spool.add(invocation('inv-2', 'episode-a', 'second'));
      spool.replace(invocation('inv-1', 'episode-a', 'resolved later'));
      const replayed: string[] = [];
      spool.replay((text) => replayed.push(text));
      expect(replayed).toEqual(['[episode-a/inv-1] resolved later', '[episode-b/inv-1] other episode', '[episode-a/inv-2] second']);
    } finally {
      spool.dispose();
    }
  });
});
