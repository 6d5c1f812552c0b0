import { CLOSED_SECRETS_REMEMBERED, InvocationSecrets } from '../../../adapters/http/invocation-secrets';

describe('InvocationSecrets', () => {
  it('opens a grant only with its own secret, for its own invocation', () => {
    const secrets = new InvocationSecrets<string>();
    const a = secrets.grant('inv-a', 'port-a');
    const b = secrets.grant('inv-b', 'port-b');
    expect(a).not.toBe(b);
    expect(secrets.check('inv-a', a)).toEqual({ kind: 'granted', value: 'port-a' });
    expect(secrets.check('inv-a', b)).toEqual({ kind: 'foreign' });
    expect(secrets.check('inv-a', 'guess')).toEqual({ kind: 'unknown' });
    expect(secrets.find(b)).toEqual({ kind: 'granted', invocationId: 'inv-b', value: 'port-b' });
    expect(secrets.find('guess')).toEqual({ kind: 'unknown' });
  });

  it('a revoked secret never opens its grant again and is recognised as closed', () => {
    const secrets = new InvocationSecrets<string>();
    const a = secrets.grant('inv-a', 'port-a');
    secrets.revoke('inv-a');
    expect(secrets.check('inv-a', a)).toEqual({ kind: 'closed' });
    expect(secrets.find(a)).toEqual({ kind: 'closed' });
    expect(secrets.check('inv-b', a)).toEqual({ kind: 'unknown' });
  });

  it(`forgets the oldest closed secret past ${CLOSED_SECRETS_REMEMBERED}`, () => {
    const secrets = new InvocationSecrets<number>();
    const first = secrets.grant('inv-0', 0);
    secrets.revoke('inv-0');
    for (let i = 1; i <= CLOSED_SECRETS_REMEMBERED; i++) {
      secrets.grant(`inv-${i}`, i);
      secrets.revoke(`inv-${i}`);
    }
    expect(secrets.check('inv-0', first)).toEqual({ kind: 'unknown' });
    expect(secrets.find(first)).toEqual({ kind: 'unknown' });
  });

  it('clear forgets grants and closed secrets alike', () => {
    const secrets = new InvocationSecrets<string>();
    const a = secrets.grant('inv-a', 'port-a');
    const b = secrets.grant('inv-b', 'port-b');
    secrets.revoke('inv-b');
    secrets.clear();
    expect(secrets.check('inv-a', a)).toEqual({ kind: 'unknown' });
    expect(secrets.find(b)).toEqual({ kind: 'unknown' });
  });
});
