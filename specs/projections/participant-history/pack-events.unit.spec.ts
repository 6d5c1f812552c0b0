import fc from 'fast-check';
import { packEvents, unpackEvents } from '../../../projections/participant-history/projection';

/** Addresses and ids are printable text; JSON text of events holds no raw control character. */
const printable = fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom(...'abc.:-=_1 "\\é'.split('')) });

describe('the participant history row text', () => {
  it('gives back exactly the events it was given, whatever their content', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 6 }), printable, printable, (values, invocationId, participant) => {
        const events = values.map((value) => JSON.stringify({ invocation_action_instance_id: invocationId, participant, value }));
        const packed = packEvents(events, invocationId, participant);
        expect(unpackEvents(packed, invocationId, participant)).toBe(`[${events.join(',')}]`);
      }),
    );
  });

  it('holds the invocation id and the participant once, in the row, not in every event', () => {
    const invocationId = 'participant.autonomous-execution.p:participant.behavior.agent-1:7';
    const participant = 'participant.behavior.agent-1';
    const events = [
      JSON.stringify({ type: 'InvocationOpened', invocation_action_instance_id: invocationId, port_values: { participant_address: participant } }),
      JSON.stringify({ type: 'ToolActionAdmitted', action_instance_id: `${invocationId}:tool=1` }),
    ];
    const packed = packEvents(events, invocationId, participant);
    expect(packed).not.toContain(invocationId);
    expect(packed).not.toContain(participant);
    expect(packed.length).toBeLessThan(`[${events.join(',')}]`.length - 2 * invocationId.length);
    expect(JSON.parse(unpackEvents(packed, invocationId, participant))).toEqual(events.map((event) => JSON.parse(event)));
  });
});
