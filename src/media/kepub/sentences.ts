/**
 * Sentence splitting as kepubify does it (kepub/transform.go `splitSentences`, MIT), so that a Kobo span numbering
 * made here is the one kepubify (and Komga, which runs kepubify) would make: a sentence ends after `.`, `!` or `?`,
 * optionally one closing quote or ellipsis, then ASCII whitespace; the whitespace stays with the sentence it follows.
 */

/** One character of a text as written: a character, or a character reference (`&amp;`, `&#160;`) taken whole. */
export interface TextUnit {
  /** Offsets in the raw (as written) text. */
  start: number;
  end: number;
  /** The character(s) it stands for. */
  value: string;
}

type Input = 'punct' | 'extra' | 'space' | 'any';
/** In a sentence; after its end mark; after the one quote that may follow it; in the white space after it. */
type State = 'default' | 'punct' | 'extra' | 'space';

function inputOf(value: string): Input {
  switch (value) {
    case '.':
    case '!':
    case '?':
      return 'punct';
    case "'":
    case '"':
    case '\u201d':
    case '\u2019':
    case '\u201c':
    case '\u2026':
      return 'extra';
    // Only ASCII whitespace ends a sentence (Go's `\s`): a no-break space does not.
    case '\t':
    case '\n':
    case '\f':
    case '\r':
    case ' ':
      return 'space';
    default:
      return 'any';
  }
}

/**
 * Splits a run of text into sentences; returns the raw offsets `[start, end)` of each within the run's units. Every
 * unit belongs to exactly one sentence, so the sentences put together are the text unchanged.
 */
export function splitSentences(units: readonly TextUnit[]): Array<[number, number]> {
  if (units.length === 0) return [];
  const out: Array<[number, number]> = [];
  let state = 'default' as State;
  let sentenceStart = units[0]!.start;
  for (const unit of units) {
    const input = inputOf(unit.value);
    if (state === 'space' && input !== 'space') {
      // The whitespace after a sentence's end is over: what follows begins the next sentence.
      out.push([sentenceStart, unit.start]);
      sentenceStart = unit.start;
    }
    switch (input) {
      case 'punct':
        state = 'punct';
        break;
      case 'extra':
        state = state === 'punct' ? 'extra' : 'default';
        break;
      case 'space':
        state = state === 'punct' || state === 'extra' || state === 'space' ? 'space' : 'default';
        break;
      default:
        state = 'default';
    }
  }
  out.push([sentenceStart, units[units.length - 1]!.end]);
  return out;
}

/** White space as Go's `unicode.IsSpace` (kepubify's test for a run not worth a span outside a paragraph). */
export function isWhiteSpace(text: string): boolean {
  for (const c of text) {
    const code = c.codePointAt(0)!;
    const space =
      (code >= 0x09 && code <= 0x0d) ||
      code === 0x20 ||
      code === 0x85 ||
      code === 0xa0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000;
    if (!space) return false;
  }
  return true;
}
