import type { AuditedInvocation } from './audited-invocation';
import { TextSpool } from './spool';

const keyOf = (invocation: AuditedInvocation): string => `${invocation.episode_id}\u0000${invocation.invocation_action_instance_id}`;

/**
 * The audited invocations in the order the audit lists them, kept in a temporary file (one JSON line
 * each) rather than in memory, and handed back once at the end. An invocation audited again later (an
 * operator resolved one of its actions after it closed) replaces its line at the replay.
 */
export class InvocationSpool {
  private readonly spool = new TextSpool();
  private readonly replaced = new Map<string, AuditedInvocation>();
  count = 0;

  add(invocation: AuditedInvocation): void {
    this.count += 1;
    this.spool.write(`${JSON.stringify(invocation)}\n`);
  }

  /** The invocation's audit as it stands at the end, in place of the one added. */
  replace(invocation: AuditedInvocation): void {
    this.replaced.set(keyOf(invocation), invocation);
  }

  /** Hands every invocation back in order. */
  replay(onInvocation: (invocation: AuditedInvocation) => void): void {
    let carry = '';
    const line = (text: string): void => {
      const added = JSON.parse(text) as AuditedInvocation;
      onInvocation(this.replaced.get(keyOf(added)) ?? added);
    };
    this.spool.drain((chunk) => {
      const text = carry + chunk;
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        line(text.slice(start, end));
        start = end + 1;
      }
      carry = text.slice(start);
    });
    if (carry.length > 0) line(carry);
  }

  dispose(): void {
    this.spool.dispose();
  }
}
