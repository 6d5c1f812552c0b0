/**
 * Splits the text of one JSON array or object, fed as bytes in pieces of any size, into its items (an
 * array's elements, an object's members) with their byte ranges, so that a file far larger than one
 * string can hold is read an item at a time. Only the framing between items is checked here (brackets,
 * commas, colons, member names); each item's own text is for the reader to parse.
 *
 * Scanning bytes rather than characters is sound for UTF-8: every byte of a multi-byte character is
 * 0x80 or above, so none is mistaken for a quote, a backslash or a bracket.
 */

export interface JsonItem {
  /** The member's name; undefined for an array's element. */
  readonly name: string | undefined;
  /** The byte offset of the item's value and the offset just past it, whitespace around it left out. */
  readonly start: number;
  readonly end: number;
}

export class JsonFramingError extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

type State =
  | 'before' // nothing but whitespace yet
  | 'first' // just inside the bracket: an item or the closing bracket
  | 'name' // expecting a member's name
  | 'in-name'
  | 'colon'
  | 'value' // expecting an item's value
  | 'in-value'
  | 'after'; // the container closed: only whitespace may follow

export class JsonItemSplitter {
  private state: State = 'before';
  private kind: 'array' | 'object' | undefined;
  private offset: number;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private nameParts: Buffer[] = [];
  private nameStart = 0;
  private name: string | undefined;
  private itemStart = -1;
  private itemEnd = -1;

  /** `offset` is where the first byte fed sits, so that ranges are the source's own offsets. */
  constructor(offset = 0) {
    this.offset = offset;
  }

  get container(): 'array' | 'object' | undefined {
    return this.kind;
  }

  /** The offset of the first byte an item not yet complete may need: bytes before it can be let go. */
  get neededFrom(): number {
    return this.state === 'in-value' ? this.itemStart : this.offset;
  }

  /** The items completed by these bytes, in order. */
  feed(chunk: Buffer): JsonItem[] {
    const items: JsonItem[] = [];
    const base = this.offset;
    let nextBackslash = -1;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index]!;
      const at = base + index;
      switch (this.state) {
        case 'in-value':
          if (this.inString) {
            if (this.escaped) {
              this.escaped = false;
              break;
            }
            // Most of a document's bytes are inside strings: leap to the string's next quote or backslash.
            if (nextBackslash < index) {
              nextBackslash = chunk.indexOf(BACKSLASH, index);
              if (nextBackslash === -1) nextBackslash = chunk.length;
            }
            let quote = chunk.indexOf(QUOTE, index);
            if (quote === -1) quote = chunk.length;
            const stop = Math.min(quote, nextBackslash);
            index = stop;
            if (stop === chunk.length) break;
            if (stop === nextBackslash) this.escaped = true;
            else {
              this.inString = false;
              this.itemEnd = base + stop + 1;
            }
          } else if (byte === QUOTE) {
            this.inString = true;
            this.itemEnd = at + 1;
          } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
            this.depth += 1;
            this.itemEnd = at + 1;
          } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
            if (this.depth === 0) {
              this.closing(byte, at);
              items.push(this.item());
              this.state = 'after';
            } else {
              this.depth -= 1;
              this.itemEnd = at + 1;
            }
          } else if (byte === COMMA && this.depth === 0) {
            items.push(this.item());
            this.state = this.kind === 'object' ? 'name' : 'value';
          } else if (!isWhitespace(byte)) {
            this.itemEnd = at + 1;
          }
          break;
        case 'in-name':
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.nameParts.push(chunk.subarray(this.nameStart - base < 0 ? 0 : this.nameStart - base, index + 1));
            this.name = JSON.parse(Buffer.concat(this.nameParts).toString('utf8')) as string;
            this.nameParts = [];
            this.state = 'colon';
          }
          break;
        default:
          if (!isWhitespace(byte)) this.structural(byte, at);
      }
    }
    if (this.state === 'in-name') this.nameParts.push(chunk.subarray(Math.max(0, this.nameStart - base)));
    this.offset = base + chunk.length;
    return items;
  }

  /** Throws unless the container closed. */
  finish(): void {
    if (this.state !== 'after') throw new JsonFramingError(this.kind === undefined ? 'no JSON array or object' : `the ${this.kind} does not end: the text stops before its closing bracket`);
  }

  private structural(byte: number, at: number): void {
    switch (this.state) {
      case 'before':
        if (byte === OPEN_ARRAY) this.kind = 'array';
        else if (byte === OPEN_OBJECT) this.kind = 'object';
        else throw new JsonFramingError(`a JSON array or object was expected at byte ${at}`);
        this.state = 'first';
        return;
      case 'first':
        if (byte === (this.kind === 'array' ? CLOSE_ARRAY : CLOSE_OBJECT)) {
          this.state = 'after';
          return;
        }
        if (this.kind === 'object') {
          this.state = 'name';
          this.structural(byte, at);
        } else this.startValue(byte, at);
        return;
      case 'name':
        if (byte !== QUOTE) throw new JsonFramingError(`a member name was expected at byte ${at}`);
        this.state = 'in-name';
        this.nameStart = at;
        this.escaped = false;
        return;
      case 'colon':
        if (byte !== COLON) throw new JsonFramingError(`a colon was expected after the member name ${JSON.stringify(this.name)} at byte ${at}`);
        this.state = 'value';
        return;
      case 'value':
        this.startValue(byte, at);
        return;
      case 'after':
        throw new JsonFramingError(`text follows the end of the ${this.kind} at byte ${at}`);
      default:
        throw new JsonFramingError(`unexpected state at byte ${at}`);
    }
  }

  private startValue(byte: number, at: number): void {
    if (byte === COMMA || byte === CLOSE_ARRAY || byte === CLOSE_OBJECT || byte === COLON) {
      throw new JsonFramingError(`a value was expected at byte ${at}`);
    }
    this.state = 'in-value';
    this.itemStart = at;
    this.itemEnd = at + 1;
    this.depth = byte === OPEN_ARRAY || byte === OPEN_OBJECT ? 1 : 0;
    this.inString = byte === QUOTE;
    this.escaped = false;
  }

  private closing(byte: number, at: number): void {
    if (byte !== (this.kind === 'array' ? CLOSE_ARRAY : CLOSE_OBJECT)) {
      throw new JsonFramingError(`the ${this.kind} is closed with the wrong bracket at byte ${at}`);
    }
  }

  private item(): JsonItem {
    return { name: this.kind === 'object' ? this.name : undefined, start: this.itemStart, end: this.itemEnd };
  }
}
