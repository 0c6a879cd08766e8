/** The part of foliate-js's EPUB CFI module the server uses (the package ships plain ES modules without types). */
declare module 'foliate-js/epubcfi.js' {
  /** One step of a CFI path: `/index[id]:offset`. */
  export interface CfiPart {
    index: number;
    id?: string;
    offset?: number;
  }
  /** A CFI's paths, one per indirection (`!`); a range CFI as its parent, start and end. */
  export type ParsedCfi = CfiPart[][] | { parent: CfiPart[][]; start: CfiPart[][]; end: CfiPart[][] };
  export function parse(cfi: string): ParsedCfi;
  /** A range collapsed to its start (or end), as paths. */
  export function collapse(cfi: ParsedCfi, toEnd?: boolean): CfiPart[][];
}
