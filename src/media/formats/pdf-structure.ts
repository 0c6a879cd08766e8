import { inflateSync } from 'node:zlib';

/**
 * The page tree and document information of an ordinary PDF, read straight from its bytes: what a scan stores
 * (page count, page boxes, Title, Author …) without pdf.js, whose import alone costs each analysis thread ~0.3 s
 * of CPU and ~35 MB, and whose document set-up costs a few ms per file. A 2,000-book first scan with 50 PDFs
 * among them spent ~1.4 s of CPU (and ~0.8 s of wall time) on pdf.js, more than on the 1,950 other books' parsing.
 *
 * Only what this reader fully understands is read: cross-reference tables and streams (Flate, PNG predictors),
 * incremental updates, object streams, a page tree whose counts and parents agree. Anything else (encryption, a
 * damaged or missing cross-reference, other filters, a page tree pdf.js would repair) returns null, and the
 * caller asks pdf.js, which repairs and reports as it always did. What it returns is what pdf.js would give: the
 * tests open the same files with both.
 */
export interface PdfStructure {
  /** Page sizes at scale 1 in pdf.js's viewport terms: crop box within media box, UserUnit and rotation applied. */
  pages: { width: number; height: number }[];
  /** The document information dictionary's text entries, decoded as pdf.js decodes them (`getMetadata().info`). */
  info: Record<string, string>;
}

/** Thrown for anything outside the ordinary: the caller falls back to pdf.js. */
class Unsupported extends Error {}

class Name {
  constructor(readonly name: string) {}
}

class Ref {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

class Dict {
  constructor(readonly map: Map<string, Value>) {}
  get(key: string): Value | undefined {
    return this.map.get(key);
  }
}

class Stream {
  constructor(
    readonly dict: Dict,
    /** Offset of the first data byte in the file. */
    readonly start: number,
  ) {}
}

type Value = number | boolean | null | string | Name | Ref | Value[] | Dict | Stream;

type XrefEntry = { type: 'free' } | { type: 'offset'; offset: number; gen: number } | { type: 'compressed'; stream: number; index: number };

/** Nesting of arrays and dictionaries deeper than any real document uses. */
const MAX_DEPTH = 64;
/** Decoded size of one cross-reference or object stream. */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;
/** The longest keyword or number read. */
const MAX_WORD_BYTES = 64;
/** The longest name read (pdf.js warns past 127 bytes, the limit ISO 32000 sets). */
const MAX_NAME_BYTES = 1024;
/** How far from the end `startxref` is looked for. */
const TAIL_BYTES = 2048;

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) =>
  c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;

function latin1(bytes: Uint8Array, from: number, to: number): string {
  return to > from ? Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('latin1') : '';
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Objects written in PDF syntax, read from `pos` on. */
class Lexer {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    pos: number,
  ) {
    this.pos = pos;
  }

  skipWhite(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (isWhite(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** A run of regular characters (a keyword or a number), without moving past it unless `consume`. */
  word(consume = true): string {
    this.skipWhite();
    const b = this.bytes;
    let end = this.pos;
    while (end < b.length && !isWhite(b[end]!) && !isDelimiter(b[end]!)) end++;
    // Keywords and numbers are short; a long run is binary data an offset pointed into.
    if (end - this.pos > MAX_WORD_BYTES) throw new Unsupported('a token too long to be one');
    let text = '';
    for (let i = this.pos; i < end; i++) text += String.fromCharCode(b[i]!);
    if (consume) this.pos = end;
    return text;
  }

  keyword(expected: string): void {
    if (this.word() !== expected) throw new Unsupported(`expected ${expected}`);
  }

  integer(): number {
    const text = this.word();
    if (!/^\d{1,15}$/.test(text)) throw new Unsupported('expected an integer');
    return Number(text);
  }

  value(depth = 0): Value {
    if (depth > MAX_DEPTH) throw new Unsupported('nested too deep');
    this.skipWhite();
    const b = this.bytes;
    if (this.pos >= b.length) throw new Unsupported('unexpected end');
    const c = b[this.pos]!;
    if (c === 0x2f) return this.name();
    if (c === 0x28) return this.literalString();
    if (c === 0x3c) {
      if (b[this.pos + 1] === 0x3c) return this.dict(depth);
      return this.hexString();
    }
    if (c === 0x5b) {
      this.pos++;
      const items: Value[] = [];
      for (;;) {
        this.skipWhite();
        if (this.pos >= b.length) throw new Unsupported('unterminated array');
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const word = this.word();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) throw new Unsupported(`unexpected ${JSON.stringify(word.slice(0, 20))}`);
    const number = Number(word);
    // "n g R": an indirect reference.
    if (/^\d+$/.test(word)) {
      const save = this.pos;
      const gen = this.word();
      if (/^\d+$/.test(gen) && this.word() === 'R') return new Ref(number, Number(gen));
      this.pos = save;
    }
    return number;
  }

  private name(): Name {
    const b = this.bytes;
    this.pos++;
    const start = this.pos;
    let text = '';
    while (this.pos < b.length && !isWhite(b[this.pos]!) && !isDelimiter(b[this.pos]!)) {
      if (this.pos - start > MAX_NAME_BYTES) throw new Unsupported('a name too long to be one');
      const c = b[this.pos++]!;
      if (c === 0x23) {
        const hi = hexValue(b[this.pos] ?? -1);
        const lo = hexValue(b[this.pos + 1] ?? -1);
        if (hi < 0 || lo < 0) throw new Unsupported('a malformed name');
        text += String.fromCharCode((hi << 4) | lo);
        this.pos += 2;
      } else text += String.fromCharCode(c);
    }
    return new Name(text);
  }

  /**
   * As pdf.js reads it: escapes resolved, line ends kept as they are, one character per byte. Runs between
   * escapes are decoded whole: a character at a time, a long string (a hostile one of megabytes) took seconds.
   */
  private literalString(): string {
    const b = this.bytes;
    this.pos++;
    let depth = 1;
    let text = '';
    let from = this.pos;
    while (this.pos < b.length) {
      let c = b[this.pos]!;
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) {
        text += latin1(b, from, this.pos);
        this.pos++;
        return text;
      } else if (c === 0x5c) {
        text += latin1(b, from, this.pos);
        this.pos++;
        if (this.pos >= b.length) break;
        c = b[this.pos++]!;
        if (c === 0x6e) text += '\n';
        else if (c === 0x72) text += '\r';
        else if (c === 0x74) text += '\t';
        else if (c === 0x62) text += '\b';
        else if (c === 0x66) text += '\f';
        else if (c >= 0x30 && c <= 0x37) {
          let code = c - 0x30;
          for (let k = 0; k < 2 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37; k++) code = (code << 3) + (b[this.pos++]! - 0x30);
          text += String.fromCharCode(code & 0xff);
        } else if (c === 0x0d) {
          if (b[this.pos] === 0x0a) this.pos++;
        } else if (c !== 0x0a) text += String.fromCharCode(c);
        from = this.pos;
        continue;
      }
      this.pos++;
    }
    throw new Unsupported('unterminated string');
  }

  private hexString(): string {
    const b = this.bytes;
    this.pos++;
    const end = b.indexOf(0x3e, this.pos);
    if (end < 0) throw new Unsupported('unterminated hex string');
    const out = new Uint8Array((end - this.pos + 1) >> 1);
    let n = 0;
    let high = -1;
    for (let i = this.pos; i < end; i++) {
      const c = b[i]!;
      if (isWhite(c)) continue;
      const digit = hexValue(c);
      if (digit < 0) throw new Unsupported('a malformed hex string');
      if (high < 0) high = digit;
      else {
        out[n++] = (high << 4) | digit;
        high = -1;
      }
    }
    if (high >= 0) out[n++] = high << 4;
    this.pos = end + 1;
    return latin1(out, 0, n);
  }

  private dict(depth: number): Dict {
    const b = this.bytes;
    this.pos += 2;
    const map = new Map<string, Value>();
    for (;;) {
      this.skipWhite();
      if (this.pos >= b.length) throw new Unsupported('unterminated dictionary');
      if (b[this.pos] === 0x3e && b[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return new Dict(map);
      }
      if (b[this.pos] !== 0x2f) throw new Unsupported('a dictionary key that is not a name');
      const key = this.name().name;
      map.set(key, this.value(depth + 1));
    }
  }
}

function nameOf(value: Value | undefined): string | undefined {
  return value instanceof Name ? value.name : undefined;
}

function readUint(bytes: Uint8Array, at: number, width: number): number {
  let n = 0;
  for (let i = 0; i < width; i++) n = n * 256 + bytes[at + i]!;
  return n;
}

/** Undoes the PNG row predictors (Predictor ≥ 10) of a decoded stream of `columns` bytes a row. */
function unpredictPng(data: Uint8Array, columns: number): Uint8Array {
  const rowBytes = columns + 1;
  if (data.length % rowBytes !== 0) throw new Unsupported('a predictor row cut short');
  const rows = data.length / rowBytes;
  const out = new Uint8Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * rowBytes]!;
    const row = r * columns;
    const above = row - columns;
    for (let i = 0; i < columns; i++) {
      const raw = data[r * rowBytes + 1 + i]!;
      const left = i > 0 ? out[row + i - 1]! : 0;
      const up = r > 0 ? out[above + i]! : 0;
      const upLeft = r > 0 && i > 0 ? out[above + i - 1]! : 0;
      let value: number;
      if (type === 0) value = raw;
      else if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw new Unsupported('an unknown PNG predictor');
      out[row + i] = value & 0xff;
    }
  }
  return out;
}

/** A document's objects, found through its cross-reference sections. */
class PdfFile {
  private readonly entries = new Map<number, XrefEntry>();
  private readonly objects = new Map<number, Value>();
  private readonly objectStreams = new Map<number, { nums: number[]; values: Value[] }>();
  private readonly resolving = new Set<number>();
  trailer: Dict | undefined;

  constructor(readonly bytes: Uint8Array) {}

  /** Reads every cross-reference section, newest first; an entry already known is not overwritten by an older one. */
  readXref(): void {
    const b = this.bytes;
    const from = Math.max(0, b.length - TAIL_BYTES);
    const tail = Buffer.from(b.buffer, b.byteOffset + from, b.length - from).toString('latin1');
    const at = tail.lastIndexOf('startxref');
    if (at < 0) throw new Unsupported('no startxref');
    let offset: number | undefined = new Lexer(b, from + at + 'startxref'.length).integer();
    const seen = new Set<number>();
    while (offset !== undefined) {
      if (seen.has(offset) || offset >= b.length) throw new Unsupported('a cross-reference offset out of place');
      seen.add(offset);
      const lexer: Lexer = new Lexer(b, offset);
      const trailer: Dict = lexer.word(false) === 'xref' ? this.readTable(lexer) : this.readXrefStream(offset);
      this.trailer ??= trailer;
      // A hybrid file's stream section comes before the older sections its table points to.
      const hybrid = trailer.get('XRefStm');
      if (typeof hybrid === 'number' && !seen.has(hybrid)) {
        seen.add(hybrid);
        this.readXrefStream(hybrid);
      }
      const prev: Value | undefined = trailer.get('Prev');
      if (prev !== undefined && typeof prev !== 'number') throw new Unsupported('a /Prev that is not a number');
      offset = prev;
    }
  }

  private setEntry(num: number, entry: XrefEntry): void {
    if (!this.entries.has(num)) this.entries.set(num, entry);
  }

  private readTable(lexer: Lexer): Dict {
    lexer.keyword('xref');
    for (;;) {
      const word = lexer.word(false);
      if (word === 'trailer') {
        lexer.keyword('trailer');
        const trailer = lexer.value();
        if (!(trailer instanceof Dict)) throw new Unsupported('a trailer that is not a dictionary');
        return trailer;
      }
      const first = lexer.integer();
      const count = lexer.integer();
      for (let i = 0; i < count; i++) {
        const offset = lexer.integer();
        const gen = lexer.integer();
        const kind = lexer.word();
        if (kind === 'n') this.setEntry(first + i, { type: 'offset', offset, gen });
        else if (kind === 'f') this.setEntry(first + i, { type: 'free' });
        else throw new Unsupported('a malformed cross-reference entry');
      }
    }
  }

  private readXrefStream(offset: number): Dict {
    const stream = this.parseIndirect(offset, undefined);
    if (!(stream instanceof Stream) || nameOf(stream.dict.get('Type')) !== 'XRef') throw new Unsupported('not a cross-reference stream');
    const dict = stream.dict;
    const data = this.decode(stream);
    const w = dict.get('W');
    if (!Array.isArray(w) || w.length !== 3 || !w.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 8)) {
      throw new Unsupported('a malformed /W');
    }
    const [w0, w1, w2] = w as [number, number, number];
    const size = dict.get('Size');
    const index = dict.get('Index') ?? [0, size ?? 0];
    if (!Array.isArray(index) || index.length % 2 !== 0 || !index.every((n) => Number.isInteger(n) && (n as number) >= 0)) {
      throw new Unsupported('a malformed /Index');
    }
    const rowBytes = w0 + w1 + w2;
    let at = 0;
    for (let k = 0; k < index.length; k += 2) {
      const first = index[k] as number;
      const count = index[k + 1] as number;
      for (let i = 0; i < count; i++) {
        if (at + rowBytes > data.length) throw new Unsupported('a cross-reference stream cut short');
        const type = w0 === 0 ? 1 : readUint(data, at, w0);
        const f2 = readUint(data, at + w0, w1);
        const f3 = readUint(data, at + w0 + w1, w2);
        at += rowBytes;
        if (type === 0) this.setEntry(first + i, { type: 'free' });
        else if (type === 1) this.setEntry(first + i, { type: 'offset', offset: f2, gen: f3 });
        else if (type === 2) this.setEntry(first + i, { type: 'compressed', stream: f2, index: f3 });
        // ISO 32000 reads other types as null references; pdf.js refuses the section.
        else throw new Unsupported('a cross-reference entry of an unknown type');
      }
    }
    return dict;
  }

  /** The object `num gen obj … endobj` at `offset`; `expect` checks its number (undefined: any). */
  private parseIndirect(offset: number, expect: { num: number; gen: number } | undefined): Value {
    const lexer = new Lexer(this.bytes, offset);
    const num = lexer.integer();
    const gen = lexer.integer();
    lexer.keyword('obj');
    if (expect && (num !== expect.num || gen !== expect.gen)) throw new Unsupported('a cross-reference entry pointing elsewhere');
    const value = lexer.value();
    if (value instanceof Dict && lexer.word(false) === 'stream') {
      lexer.keyword('stream');
      const b = this.bytes;
      if (b[lexer.pos] === 0x0d) lexer.pos++;
      if (b[lexer.pos] === 0x0a) lexer.pos++;
      return new Stream(value, lexer.pos);
    }
    // pdf.js gives up on a damaged object (a stray delimiter after it) where a lenient read would not: leave it
    // such files.
    if (lexer.word() !== 'endobj') throw new Unsupported('an object without endobj');
    return value;
  }

  /** A stream's data, Flate-decoded and un-predicted as its dictionary says; other filters are not read here. */
  private decode(stream: Stream): Uint8Array {
    const length = this.resolve(stream.dict.get('Length'));
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || stream.start + length > this.bytes.length) {
      throw new Unsupported('a stream length out of place');
    }
    const after = new Lexer(this.bytes, stream.start + length);
    if (after.word() !== 'endstream') throw new Unsupported('a stream length that does not end at endstream');
    const raw = this.bytes.subarray(stream.start, stream.start + length);
    const filter = this.resolve(stream.dict.get('Filter'));
    const filters = filter === undefined || filter === null ? [] : Array.isArray(filter) ? filter : [filter];
    if (filters.length === 0) return raw;
    if (filters.length !== 1 || nameOf(filters[0]) !== 'FlateDecode') throw new Unsupported('a filter other than Flate');
    let data: Uint8Array;
    try {
      data = inflateSync(raw, { maxOutputLength: MAX_DECODED_BYTES });
    } catch {
      throw new Unsupported('a Flate stream that does not inflate');
    }
    let parms = this.resolve(stream.dict.get('DecodeParms'));
    if (Array.isArray(parms)) parms = parms.length === 1 ? this.resolve(parms[0]) : undefined;
    if (parms === undefined || parms === null) return data;
    if (!(parms instanceof Dict)) throw new Unsupported('malformed decode parameters');
    const predictor = parms.get('Predictor') ?? 1;
    if (predictor === 1) return data;
    const columns = parms.get('Columns') ?? 1;
    const colors = parms.get('Colors') ?? 1;
    const bits = parms.get('BitsPerComponent') ?? 8;
    if (
      typeof predictor !== 'number' ||
      predictor < 10 ||
      colors !== 1 ||
      bits !== 8 ||
      typeof columns !== 'number' ||
      !Number.isInteger(columns) ||
      columns < 1
    ) {
      throw new Unsupported('a predictor other than PNG on bytes');
    }
    return unpredictPng(data, columns);
  }

  /** A value with an indirect reference replaced by its object (one level, as pdf.js's `Dict.get`). */
  resolve(value: Value | undefined): Value | undefined {
    return value instanceof Ref ? this.fetch(value) : value;
  }

  fetch(ref: Ref): Value {
    const cached = this.objects.get(ref.num);
    if (cached !== undefined) return cached;
    if (this.resolving.has(ref.num)) throw new Unsupported('an object that refers to itself');
    const entry = this.entries.get(ref.num);
    if (!entry || entry.type === 'free') throw new Unsupported('a reference to a missing object');
    this.resolving.add(ref.num);
    try {
      let value: Value;
      if (entry.type === 'offset') {
        if (entry.gen !== ref.gen) throw new Unsupported('a reference to another generation');
        value = this.parseIndirect(entry.offset, ref);
      } else {
        if (ref.gen !== 0) throw new Unsupported('a compressed object with a generation');
        value = this.fromObjectStream(entry.stream, entry.index, ref.num);
      }
      this.objects.set(ref.num, value);
      return value;
    } finally {
      this.resolving.delete(ref.num);
    }
  }

  /**
   * Object `index` of an object stream, which must be object `num`. Every object of the stream is parsed when it
   * is first opened, each within its own span, as pdf.js does: one damaged object makes pdf.js refuse them all.
   */
  private fromObjectStream(streamNum: number, index: number, num: number): Value {
    let objectStream = this.objectStreams.get(streamNum);
    if (!objectStream) {
      const entry = this.entries.get(streamNum);
      if (!entry || entry.type !== 'offset') throw new Unsupported('an object stream out of place');
      const stream = this.fetch(new Ref(streamNum, entry.gen));
      if (!(stream instanceof Stream) || nameOf(stream.dict.get('Type')) !== 'ObjStm') throw new Unsupported('not an object stream');
      const n = stream.dict.get('N');
      const first = stream.dict.get('First');
      if (!Number.isInteger(n) || !Number.isInteger(first) || (n as number) < 0) throw new Unsupported('a malformed object stream');
      const data = this.decode(stream);
      const header = new Lexer(data, 0);
      const nums: number[] = [];
      const offsets: number[] = [];
      for (let i = 0; i < (n as number); i++) {
        nums.push(header.integer());
        offsets.push((first as number) + header.integer());
      }
      const values: Value[] = [];
      for (let i = 0; i < offsets.length; i++) {
        const end = i + 1 < offsets.length ? offsets[i + 1]! : data.length;
        if (end < offsets[i]! || end > data.length) throw new Unsupported('object stream offsets out of order');
        values.push(new Lexer(data.subarray(offsets[i]!, end), 0).value());
      }
      objectStream = { nums, values };
      this.objectStreams.set(streamNum, objectStream);
    }
    if (objectStream.nums[index] !== num) throw new Unsupported('an object missing from its stream');
    return objectStream.values[index]!;
  }
}

type Box = [number, number, number, number];

/** pdf.js's `lookupNormalRect`, then its check for a positive area. */
function normalBox(file: PdfFile, value: Value | undefined): Box | null {
  const box = file.resolve(value);
  if (!Array.isArray(box) || box.length !== 4) return null;
  const numbers = box.map((item) => file.resolve(item));
  if (!numbers.every((n): n is number => typeof n === 'number')) return null;
  const [x0, y0, x1, y1] = numbers as Box;
  const r: Box = [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
  return r[2] - r[0] > 0 && r[3] - r[1] > 0 ? r : null;
}

const LETTER: Box = [0, 0, 612, 792];

/** What a page inherits from the nodes above it: the nearest value defined, as pdf.js's getInheritableProperty. */
interface Inherited {
  mediaBox: Value | undefined;
  cropBox: Value | undefined;
  rotate: Value | undefined;
}

/** A node's own value when it has the key (even null), else what it inherits. */
function own(node: Dict, key: string, inherited: Value | undefined): Value | undefined {
  return node.map.has(key) ? node.get(key) : inherited;
}

function pageSize(file: PdfFile, page: Dict, inherited: Inherited): { width: number; height: number } {
  const mediaBox = normalBox(file, own(page, 'MediaBox', inherited.mediaBox)) ?? LETTER;
  const cropValue = own(page, 'CropBox', inherited.cropBox);
  const cropBox = (cropValue === undefined ? null : normalBox(file, cropValue)) ?? mediaBox;
  let view = mediaBox;
  if (cropBox !== mediaBox && !cropBox.every((v, i) => v === mediaBox[i])) {
    const x0 = Math.max(cropBox[0], mediaBox[0]);
    const x1 = Math.min(cropBox[2], mediaBox[2]);
    const y0 = Math.max(cropBox[1], mediaBox[1]);
    const y1 = Math.min(cropBox[3], mediaBox[3]);
    if (x0 <= x1 && y0 <= y1 && x1 - x0 > 0 && y1 - y0 > 0) view = [x0, y0, x1, y1];
  }
  const unit = file.resolve(page.get('UserUnit'));
  const scale = typeof unit === 'number' && unit > 0 ? unit : 1;
  let rotate = file.resolve(own(page, 'Rotate', inherited.rotate)) ?? 0;
  if (typeof rotate !== 'number') throw new Unsupported('a /Rotate that is not a number');
  if (rotate % 90 !== 0) rotate = 0;
  rotate = ((rotate % 360) + 360) % 360;
  const width = (view[2] - view[0]) * scale;
  const height = (view[3] - view[1]) * scale;
  return rotate === 90 || rotate === 270 ? { width: height, height: width } : { width, height };
}

/** Leaves of the page tree in order, checking what pdf.js's page lookup relies on: counts, parents, no cycles. */
function walkPages(file: PdfFile, rootRef: Ref, limit: number): { width: number; height: number }[] {
  const pages: { width: number; height: number }[] = [];
  const visited = new Set<number>();
  const visit = (ref: Ref, parent: Ref | null, inherited: Inherited, depth: number): number => {
    if (depth > MAX_DEPTH || visited.has(ref.num)) throw new Unsupported('a page tree that loops');
    visited.add(ref.num);
    const node = file.fetch(ref);
    if (!(node instanceof Dict)) throw new Unsupported('a page tree node that is not a dictionary');
    const parentRef = node.get('Parent');
    if (parent ? !(parentRef instanceof Ref) || parentRef.num !== parent.num || parentRef.gen !== parent.gen : parentRef !== undefined) {
      throw new Unsupported('a page tree node whose /Parent disagrees');
    }
    const kids = file.resolve(node.get('Kids'));
    const type = nameOf(file.resolve(node.get('Type')));
    if (kids === undefined) {
      if (type !== 'Page' || parent === null) throw new Unsupported('a page that is not typed /Page');
      if (pages.length >= limit) throw new Unsupported('more pages than allowed');
      pages.push(pageSize(file, node, inherited));
      return 1;
    }
    if (type !== 'Pages' || !Array.isArray(kids)) throw new Unsupported('a page tree node that is not typed /Pages');
    const here: Inherited = {
      mediaBox: own(node, 'MediaBox', inherited.mediaBox),
      cropBox: own(node, 'CropBox', inherited.cropBox),
      rotate: own(node, 'Rotate', inherited.rotate),
    };
    let leaves = 0;
    for (const kid of kids) {
      if (!(kid instanceof Ref)) throw new Unsupported('a page tree kid that is not a reference');
      leaves += visit(kid, ref, here, depth + 1);
    }
    if (file.resolve(node.get('Count')) !== leaves) throw new Unsupported('a /Count that disagrees with the tree');
    return leaves;
  };
  visit(rootRef, null, { mediaBox: undefined, cropBox: undefined, rotate: undefined }, 0);
  return pages;
}

/**
 * PDFDocEncoding's departures from Latin-1 (ISO 32000 Annex D), as pdf.js maps them: 0x18–0x1F are spacing
 * accents, 0x80–0xA0 typographic signs.
 */
const PDF_DOC_ENCODING: Record<number, number> = {
  0x18: 0x2d8,
  0x19: 0x2c7,
  0x1a: 0x2c6,
  0x1b: 0x2d9,
  0x1c: 0x2dd,
  0x1d: 0x2db,
  0x1e: 0x2da,
  0x1f: 0x2dc,
  0x80: 0x2022,
  0x81: 0x2020,
  0x82: 0x2021,
  0x83: 0x2026,
  0x84: 0x2014,
  0x85: 0x2013,
  0x86: 0x192,
  0x87: 0x2044,
  0x88: 0x2039,
  0x89: 0x203a,
  0x8a: 0x2212,
  0x8b: 0x2030,
  0x8c: 0x201e,
  0x8d: 0x201c,
  0x8e: 0x201d,
  0x8f: 0x2018,
  0x90: 0x2019,
  0x91: 0x201a,
  0x92: 0x2122,
  0x93: 0xfb01,
  0x94: 0xfb02,
  0x95: 0x141,
  0x96: 0x152,
  0x97: 0x160,
  0x98: 0x178,
  0x99: 0x17d,
  0x9a: 0x131,
  0x9b: 0x142,
  0x9c: 0x153,
  0x9d: 0x161,
  0x9e: 0x17e,
  0xa0: 0x20ac,
};

/** Brackets a language code inside a text string (ESC code ESC); the code is not text. */
const ESC = '\x1b';

/** A PDF text string as pdf.js's `stringToPDFString` reads it: a byte-order mark picks UTF-16 or UTF-8. */
function decodePdfText(bytes: string): string {
  const encoding = bytes.startsWith('\xfe\xff')
    ? 'utf-16be'
    : bytes.startsWith('\xff\xfe')
      ? 'utf-16le'
      : bytes.startsWith('\xef\xbb\xbf')
        ? 'utf-8'
        : null;
  if (encoding) {
    const even = encoding === 'utf-8' || bytes.length % 2 === 0 ? bytes : bytes.slice(0, -1);
    try {
      const decoded = new TextDecoder(encoding, { fatal: true }).decode(Buffer.from(even, 'latin1'));
      // Language escapes (ESC code ESC) are dropped.
      return decoded.includes(ESC)
        ? decoded
            .split(ESC)
            .filter((_, i) => i % 2 === 0)
            .join('')
        : decoded;
    } catch {
      // Not what its mark says: read as PDFDocEncoding, as pdf.js does.
    }
  }
  // Most text needs no mapping at all; the rest is mapped a character at a time into parts joined once.
  let plain = true;
  for (let i = 0; i < bytes.length && plain; i++) {
    const code = bytes.charCodeAt(i);
    plain = code !== 0x1b && PDF_DOC_ENCODING[code] === undefined;
  }
  if (plain) return bytes;
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const code = bytes.charCodeAt(i);
    if (code === 0x1b) {
      while (++i < bytes.length && bytes.charCodeAt(i) !== 0x1b);
      continue;
    }
    const mapped = PDF_DOC_ENCODING[code];
    parts.push(mapped ? String.fromCharCode(mapped) : bytes[i]!);
  }
  return parts.join('');
}

const INFO_TEXT_KEYS = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];

function documentInfo(file: PdfFile, trailer: Dict): Record<string, string> {
  const info: Record<string, string> = {};
  const dict = file.resolve(trailer.get('Info'));
  if (!(dict instanceof Dict)) return info;
  for (const key of INFO_TEXT_KEYS) {
    const value = file.resolve(dict.get(key));
    if (typeof value === 'string') info[key] = decodePdfText(value);
  }
  return info;
}

/**
 * The /N of a linearisation dictionary opening the file, or null without one. pdf.js counts the pages of a file
 * whose dictionary is valid by /N instead of the page tree; with both equal, it does not matter which it takes.
 */
function linearizedPageCount(bytes: Uint8Array): Value | null {
  const lexer = new Lexer(bytes, 0);
  try {
    lexer.integer();
    lexer.integer();
    lexer.keyword('obj');
    const dict = lexer.value();
    if (!(dict instanceof Dict)) return null;
    const linearized = dict.get('Linearized');
    return typeof linearized === 'number' && linearized > 0 ? (dict.get('N') ?? null) : null;
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

/**
 * The page sizes and document information of an ordinary PDF, or null when pdf.js must read it (see above).
 * `maxPages` bounds the page tree walked. Never throws for a malformed file: null is the answer to all of them.
 */
export function readPdfStructure(bytes: Uint8Array, maxPages: number): PdfStructure | null {
  try {
    if (bytes.length < 8 || Buffer.from(bytes.buffer, bytes.byteOffset, 5).toString('latin1') !== '%PDF-') return null;
    const file = new PdfFile(bytes);
    file.readXref();
    const trailer = file.trailer!;
    if (trailer.get('Encrypt') !== undefined) return null;
    const root = file.resolve(trailer.get('Root'));
    if (!(root instanceof Dict)) return null;
    const pagesRef = root.get('Pages');
    if (!(pagesRef instanceof Ref)) return null;
    const pages = walkPages(file, pagesRef, maxPages);
    if (pages.length === 0) return null;
    const linearized = linearizedPageCount(bytes);
    if (linearized !== null && linearized !== pages.length) return null;
    return { pages, info: documentInfo(file, trailer) };
  } catch (err) {
    if (err instanceof Unsupported || err instanceof RangeError || err instanceof TypeError) return null;
    throw err;
  }
}
