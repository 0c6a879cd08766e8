import 'foliate-js/view.js';
import { EPUB, type FoliateBook, type FoliateTocItem } from 'foliate-js/epub.js';
import { authHeaders } from '../api/client';
import { t } from '@lingui/core/macro';

/**
 * EPUB layout is foliate-js's (a maintained renderer: pagination in CSS columns, CFIs, TOC); this module only
 * feeds it the book's files from the resource endpoint, one request per file as the renderer asks, with the
 * session's token, and translates its positions into the locators the server keeps.
 */

export interface Relocation {
  /** Share of the whole book, 0..1. */
  fraction: number;
  cfi: string;
  /** The section's path in the archive (the locator's href). */
  href: string;
  sectionIndex: number;
  sectionCount: number;
  tocLabel: string | null;
}

export interface EpubAppearance {
  flow: 'paginated' | 'scrolled';
  theme: 'light' | 'sepia' | 'dark';
  font: 'original' | 'serif' | 'sans-serif' | 'monospace';
  fontSize: number;
  lineHeight: number;
  margin: number;
}

export const THEMES: Record<EpubAppearance['theme'], { background: string; color: string; link: string }> = {
  light: { background: '#ffffff', color: '#1b1b1b', link: '#1a4fb8' },
  sepia: { background: '#f4ecd8', color: '#5b4636', link: '#7a4b12' },
  dark: { background: '#121212', color: '#e0e0e0', link: '#8ab4f8' },
};

interface FoliateView extends HTMLElement {
  book: FoliateBook;
  renderer: HTMLElement & { setStyles(css: string): void; next(): Promise<void>; prev(): Promise<void> };
  open(book: FoliateBook): Promise<void>;
  init(options: { lastLocation?: string | undefined; showTextStart?: boolean }): Promise<void>;
  goTo(target: string | number): Promise<unknown>;
  goLeft(): Promise<void>;
  goRight(): Promise<void>;
  next(): Promise<void>;
  prev(): Promise<void>;
  goToFraction(fraction: number): Promise<void>;
  close(): void;
}

/** A move of the reading position, run by EpubEngine.navigate. */
type Move = (view: FoliateView) => Promise<unknown>;

interface Resource {
  path: string;
  media_type: string;
  size: number;
}

export function appearanceCss(a: EpubAppearance): string {
  const theme = THEMES[a.theme];
  const family = a.font === 'original' ? '' : `font-family: ${a.font} !important;`;
  return `
    @namespace epub "http://www.idpf.org/2007/ops";
    html { color-scheme: ${a.theme === 'dark' ? 'dark' : 'light'}; color: ${theme.color} !important; background: ${theme.background} !important; }
    html, body { font-size: ${a.fontSize}% !important; ${family} }
    body * { ${family} }
    p, li, blockquote, dd, div { line-height: ${a.lineHeight} !important; }
    a:link { color: ${theme.link} !important; }
    img, svg { max-width: 100%; }
  `;
}

export class EpubEngine {
  private view: FoliateView | null = null;
  /** The move running now, and the one asked meanwhile (see navigate). */
  private moving: Promise<void> | null = null;
  private nextMove: Move | null = null;
  private book: FoliateBook | null = null;
  private closed = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly bookId: string,
    private readonly onRelocate: (r: Relocation) => void,
    private readonly onKey: (e: KeyboardEvent) => void,
  ) {}

  async open(
    appearance: EpubAppearance,
    start: { cfi?: string | undefined; sectionIndex?: number | undefined },
  ): Promise<FoliateTocItem[]> {
    const listing = await fetch(`/api/v1/books/${this.bookId}/resources`, { headers: authHeaders() });
    if (!listing.ok) {
      const status = listing.status;
      throw new Error(t`The book's files could not be listed (HTTP ${status})`);
    }
    const files = new Map(((await listing.json()) as Resource[]).map((r) => [r.path, r]));
    const url = (name: string) => `/api/v1/books/${this.bookId}/resource/${name.split('/').map(encodeURIComponent).join('/')}`;
    const get = async (name: string): Promise<Response | null> => {
      if (!files.has(name)) return null;
      const response = await fetch(url(name), { headers: authHeaders() });
      return response.ok ? response : null;
    };
    const book = await new EPUB({
      loadText: async (name) => (await get(name))?.text() ?? null,
      loadBlob: async (name) => {
        const response = await get(name);
        if (!response) return null;
        return new Blob([await response.arrayBuffer()], { type: files.get(name)?.media_type ?? 'application/octet-stream' });
      },
      getSize: (name) => files.get(name)?.size ?? 0,
    }).init();
    if (this.closed) return [];
    this.book = book;
    const view = document.createElement('foliate-view') as FoliateView;
    view.className = 'epub-view';
    this.view = view;
    this.host.append(view);
    view.addEventListener('relocate', (e) => {
      const detail = (
        e as CustomEvent<{
          fraction?: number;
          cfi: string;
          section?: { current: number; total: number };
          tocItem?: { label?: string } | null;
        }>
      ).detail;
      const index = detail.section?.current ?? 0;
      this.onRelocate({
        fraction: detail.fraction ?? 0,
        cfi: detail.cfi,
        href: book.sections[index]?.id ?? '',
        sectionIndex: index,
        sectionCount: detail.section?.total ?? book.sections.length,
        tocLabel: detail.tocItem?.label ?? null,
      });
    });
    // Keys pressed while a chapter (an iframe) has the focus reach the reader too.
    view.addEventListener('load', (e) => {
      const doc = (e as CustomEvent<{ doc: Document }>).detail.doc;
      doc.addEventListener('keydown', (ke) => this.onKey(ke));
    });
    await view.open(book);
    this.apply(appearance);
    const lastLocation = start.cfi ?? undefined;
    await view.init({ lastLocation });
    if (!lastLocation && start.sectionIndex !== undefined && start.sectionIndex > 0) await view.goTo(start.sectionIndex);
    return book.toc ?? [];
  }

  apply(a: EpubAppearance): void {
    const renderer = this.view?.renderer;
    if (!renderer) return;
    renderer.setAttribute('flow', a.flow);
    renderer.setAttribute('margin', `${Math.round(a.margin * 8)}px`);
    renderer.setAttribute('gap', `${a.margin}%`);
    renderer.setAttribute('max-inline-size', '720px');
    renderer.setStyles(appearanceCss(a));
  }

  next(): void {
    this.navigate((view) => view.goRight());
  }

  previous(): void {
    this.navigate((view) => view.goLeft());
  }

  forward(): void {
    this.navigate((view) => view.next());
  }

  backward(): void {
    this.navigate((view) => view.prev());
  }

  goTo(href: string): void {
    this.navigate((view) => view.goTo(href));
  }

  goToFraction(fraction: number): void {
    this.navigate((view) => view.goToFraction(fraction));
  }

  /**
   * foliate ignores a move asked while the previous one runs (and for 100 ms after it), so a second tap or key
   * press in quick succession was lost. The move asked meanwhile runs once the current one is done; only the
   * last one is kept, so a held key stops when it is released instead of running on through a queue.
   */
  private navigate(move: Move): void {
    if (this.moving) {
      this.nextMove = move;
      return;
    }
    this.moving = (async () => {
      let current: Move | null = move;
      while (current && this.view) {
        try {
          await current(this.view);
        } catch {
          // A move that fails (a section that cannot load) leaves the reader where it was: foliate warns.
        }
        current = this.nextMove;
        this.nextMove = null;
      }
    })().finally(() => {
      this.moving = null;
      this.nextMove = null;
    });
  }

  get direction(): 'ltr' | 'rtl' {
    return this.book?.dir === 'rtl' ? 'rtl' : 'ltr';
  }

  destroy(): void {
    this.closed = true;
    this.view?.close();
    this.view?.remove();
  }
}
