import type { AuditedInvocation } from './audited-invocation';
import { TextSpool } from './spool';

/** How an audited invocation is written out: the command's text or JSON member, or JSON to read back. */
export type RenderInvocation = (invocation: AuditedInvocation) => string;

const keyOf = (invocation: AuditedInvocation): string => `${invocation.episode_id}\u0000${invocation.invocation_action_instance_id}`;

/**
 * The audited invocations in the order the audit lists them, each rendered as it is added and kept in
 * a temporary file rather than in memory, handed back once at the end. An invocation audited again
 * later (an operator resolved one of its actions after it closed) replaces its record at the replay.
 * A record is `<key length> <text length>\n<key><text>`, so the text may hold any character.
 */
export class InvocationSpool {
  private readonly spool = new TextSpool();
  private readonly replaced = new Map<string, string>();
  count = 0;

  constructor(private readonly render: RenderInvocation) {}

  add(invocation: AuditedInvocation): void {
    this.count += 1;
    const key = keyOf(invocation);
    const text = this.render(invocation);
    this.spool.write(`${key.length} ${text.length}\n${key}${text}`);
  }

  /** The invocation's audit as it stands at the end, in place of the one added. */
  replace(invocation: AuditedInvocation): void {
    this.replaced.set(keyOf(invocation), this.render(invocation));
  }

  /** Hands every invocation's text back in order. */
  replay(onText: (text: string) => void): void {
    let carry = '';
    this.spool.drain((chunk) => {
      const text = carry.length === 0 ? chunk : carry + chunk;
      let at = 0;
      for (;;) {
        const header = text.indexOf('\n', at);
        if (header === -1) break;
        const space = text.indexOf(' ', at);
        const keyLength = Number(text.slice(at, space));
        const textLength = Number(text.slice(space + 1, header));
        const end = header + 1 + keyLength + textLength;
        if (end > text.length) break;
        const key = text.slice(header + 1, header + 1 + keyLength);
        onText(this.replaced.get(key) ?? text.slice(header + 1 + keyLength, end));
        at = end;
      }
      carry = text.slice(at);
    });
    if (carry.length > 0) throw new Error('the audit spool ends inside a record');
  }

  dispose(): void {
    this.spool.dispose();
  }
}
