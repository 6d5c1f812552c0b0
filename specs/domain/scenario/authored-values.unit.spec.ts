import { isRight } from 'fp-ts/Either';
import { AuthoredBoolean, MAX_EXACT_INTEGER, authoredInteger, authoredNumberValue } from '../../../domain/scenario/authored-values';

/** Each row was checked against pydantic 2 in lax mode, which RAES 3.3's models use. */
describe('an integer as RAES reads one', () => {
  const codec = authoredInteger(0, 1_000_000);
  const read = (u: unknown): number | 'refused' => {
    const decoded = codec.decode(u);
    return isRight(decoded) ? decoded.right : 'refused';
  };

  it.each([
    [3, 3],
    [3.0, 3],
    [true, 1],
    [false, 0],
    ['3', 3],
    [' 12\n', 12],
    ['\u00a01', 1],
    ['\u00851\u2003', 1],
    ['+01_000', 1000],
    ['1_0', 10],
    ['0_1', 1],
    ['1.0', 1],
    ['1_0.00', 10],
    ['-0', 0],
  ])('reads %j as %j', (u, expected) => {
    expect(read(u)).toBe(expected);
  });

  it.each([[3.5], ['1.5'], ['1.'], ['.0'], ['1.0_0'], ['1__0'], ['_1'], ['1_'], ['0x10'], ['1e3'], ['1 0'], ['+ 1'], ['١'], [''], ['\ufeff1'], [null], [[1]], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'refuses %j',
    (u) => {
      expect(read(u)).toBe('refused');
    },
  );

  it('compares with its bounds exactly, however long the digits', () => {
    const ticks = authoredInteger(1, MAX_EXACT_INTEGER);
    expect(ticks.decode(String(MAX_EXACT_INTEGER))).toEqual({ _tag: 'Right', right: MAX_EXACT_INTEGER });
    // As a number, 9007199254740993 would round to 2^53 and pass a careless check against 2^53.
    expect(isRight(ticks.decode('9007199254740993'))).toBe(false);
    expect(isRight(ticks.decode('99999999999999999999'))).toBe(false);
    expect(isRight(ticks.decode(2 ** 53))).toBe(false);
  });
});

describe('a boolean as RAES reads one', () => {
  const read = (u: unknown): boolean | 'refused' => {
    const decoded = AuthoredBoolean.decode(u);
    return isRight(decoded) ? decoded.right : 'refused';
  };

  it.each([
    [true, true],
    ['yes', true],
    ['Yes', true],
    ['on', true],
    ['y', true],
    ['t', true],
    ['1', true],
    [1, true],
    [false, false],
    ['no', false],
    ['OFF', false],
    ['n', false],
    ['f', false],
    ['0', false],
    [0, false],
  ])('reads %j as %j', (u, expected) => {
    expect(read(u)).toBe(expected);
  });

  it.each([[' yes'], ['yes '], ['2'], [2], [null], ['maybe']])('refuses %j', (u) => {
    expect(read(u)).toBe('refused');
  });
});

describe('an int or float as RAES reads one (an argument\'s minimum and maximum)', () => {
  const read = (u: unknown): number | 'refused' => authoredNumberValue(u) ?? 'refused';

  it.each([
    [3, 3],
    [2.5, 2.5],
    [true, 1],
    ['3', 3],
    ['4.0', 4],
    [' 1.5\n', 1.5],
    ['\u00851.5', 1.5],
    ['1_000.5', 1000.5],
    ['1.0_0', 1],
    ['+_1', 1],
    ['1_e1', 10],
    ['1._5', 1.5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['+.5e-1', 0.05],
    ['1e400', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['in_f', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
  ])('reads %j as %j', (u, expected) => {
    expect(read(u)).toBe(expected);
  });

  it.each([['0x10'], ['1,5'], [''], ['  '], ['abc'], ['1__0'], ['_1'], ['1_'], ['1._'], ['1e'], ['.e5'], ['+-1'], ['1 000'], ['infinit'], ['١'], ['\ufeff1'], [null], [[1]], [{}]])(
    'refuses %j',
    (u) => {
      expect(read(u)).toBe('refused');
    },
  );
});
