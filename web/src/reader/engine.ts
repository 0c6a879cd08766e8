import { arrowAction, fitSize, onScreenOrder, spreads, tapAction, viewOf, type Fit, type PageSize, type ReadingMode } from './layout';
import { preloadOrder, PreloadQueue, type LoadedPage } from './preload';
import { anchorAt, columnWidth, layoutStrip, pagesInRange, scrollTopFor, typicalWidth, type Anchor, type Strip } from './webtoon';
import { clampZoom, isZoomed, NO_ZOOM, zoomAt, type ZoomState } from './zoom';
import { t } from '@lingui/core/macro';

export interface EngineSettings {
  mode: ReadingMode;
  fit: Fit;
  /** Two pages side by side (paged left-to-right or right-to-left only). */
  double: boolean;
  shift: boolean;
  preload: number;
  /** Webtoon: pixels between pages and side padding (percent of the width on each side). */
  gap: number;
  padding: number;
  tapZones: 'thirds' | 'edges' | 'off';
}

export interface EngineCallbacks {
  /** The page at the viewport centre (webtoon) or the last page of the view (paged), 0-based, and the view. */
  onPage(index: number, view: number[]): void;
  /** A turn forward past the last page / back before the first. */
  onEnd(): void;
  onStart(): void;
  onMenu(): void;
  /**
   * Loads page `index` for a box `cssWidth` CSS pixels wide (null: original size), decoded. `opening`: a page of
   * the view the book opens on, which the reader is waiting for (it may be asked in the form sent fastest).
   */
  load(index: number, cssWidth: number | null, signal: AbortSignal, opening: boolean): Promise<LoadedPage>;
  release(page: LoadedPage): void;
}

const SWIPE_PX = 50;
const DOUBLE_TAP_MS = 300;

/**
 * The comic page engine: draws one view (a page or a pair) or the webtoon strip into `root`, turns pages by
 * keys, taps and swipes, zooms and pans, and keeps the next pages decoded through a PreloadQueue. Plain DOM,
 * no framework: the React component around it only mounts it and draws the menus.
 */
export class ComicEngine {
  private settings: EngineSettings;
  private views: number[][] = [];
  private viewIndex = 0;
  private readonly queue: PreloadQueue;
  private readonly stage: HTMLDivElement;
  private zoom: ZoomState = NO_ZOOM;
  private strip: Strip | null = null;
  private anchor: Anchor = { page: 0, offset: 0 };
  private boxes: HTMLDivElement[] = [];
  private scrollFrame = 0;
  private atEnd = false;
  private reported = -1;
  private readonly resize: ResizeObserver;
  private readonly pointers = new Map<number, { x: number; y: number; startX: number; startY: number; t: number }>();
  private pinch: { distance: number; zoom: ZoomState } | null = null;
  private lastTap = 0;
  private lastTapAt = { x: -100, y: -100 };
  private tapTimer = 0;
  private dragged = false;
  private destroyed = false;
  /** The pages of the first view shown, while the engine is being built. */
  private opening = new Set<number>();
  private built = false;
  /** The pages' own width (webtoon column). */
  private readonly ownWidth: number | null;

  constructor(
    private readonly root: HTMLElement,
    private readonly pages: readonly PageSize[],
    settings: EngineSettings,
    private readonly callbacks: EngineCallbacks,
    startPage = 0,
  ) {
    this.settings = settings;
    this.ownWidth = typicalWidth(pages);
    this.queue = new PreloadQueue(
      (i, signal) => this.callbacks.load(i, this.boxWidth(i), signal, this.opening.has(i)),
      (p) => this.callbacks.release(p),
    );
    this.stage = document.createElement('div');
    this.stage.className = 'reader-stage';
    // The stage scrolls (the webtoon strip, a page fitted to the width): reachable by Tab and named, so a
    // keyboard alone can reach it; its keys (arrows, Page Down, Space…) are the reader's key map.
    this.stage.tabIndex = 0;
    this.stage.setAttribute('role', 'group');
    this.stage.setAttribute('aria-label', t({ message: 'Pages', context: 'the pages of a comic' }));
    root.append(this.stage);
    this.stage.addEventListener('pointerdown', this.onPointerDown);
    this.stage.addEventListener('pointermove', this.onPointerMove);
    this.stage.addEventListener('pointerup', this.onPointerUp);
    this.stage.addEventListener('pointercancel', this.onPointerCancel);
    this.stage.addEventListener('wheel', this.onWheel, { passive: false });
    this.stage.addEventListener('scroll', this.onScroll, { passive: true });
    this.resize = new ResizeObserver(() => this.relayout());
    this.resize.observe(root);
    window.addEventListener('online', this.onOnline);
    this.build(Math.min(Math.max(0, startPage), Math.max(0, pages.length - 1)));
    this.built = true;
    this.opening.clear();
  }

  get currentView(): number[] {
    return this.isWebtoon ? [this.anchor.page] : (this.views[this.viewIndex] ?? [0]);
  }

  /** Pages held by the preload queue (for tests). */
  get held(): number[] {
    return this.queue.held();
  }

  get zoomed(): boolean {
    return isZoomed(this.zoom);
  }

  private get isWebtoon(): boolean {
    return this.settings.mode === 'webtoon';
  }

  private get double(): boolean {
    return this.settings.double && (this.settings.mode === 'ltr' || this.settings.mode === 'rtl');
  }

  /** New settings; `reloadImages` when the images themselves change (grey pages, another format). */
  update(settings: EngineSettings, reloadImages = false): void {
    const page = this.currentPage();
    this.settings = settings;
    if (reloadImages) this.queue.clear();
    this.build(page);
  }

  destroy(): void {
    this.destroyed = true;
    window.removeEventListener('online', this.onOnline);
    this.resize.disconnect();
    cancelAnimationFrame(this.scrollFrame);
    clearTimeout(this.tapTimer);
    this.queue.clear();
    this.stage.remove();
  }

  /** The page the reader is on: the centre page (webtoon) or the first page of the view. */
  currentPage(): number {
    return this.isWebtoon ? this.anchor.page : (this.views[this.viewIndex]?.[0] ?? 0);
  }

  goTo(index: number): void {
    const page = Math.min(Math.max(0, index), this.pages.length - 1);
    if (this.isWebtoon) {
      if (!this.strip) return;
      this.stage.scrollTop = this.strip.tops[page] ?? 0;
      this.onScrollFrame();
      return;
    }
    this.show(viewOf(this.views, page));
  }

  next(): void {
    if (this.isWebtoon) return this.scrollBy(0.9);
    if (this.viewIndex >= this.views.length - 1) return this.callbacks.onEnd();
    this.show(this.viewIndex + 1);
  }

  previous(): void {
    if (this.isWebtoon) return this.scrollBy(-0.9);
    if (this.viewIndex <= 0) return this.callbacks.onStart();
    this.show(this.viewIndex - 1);
  }

  first(): void {
    this.goTo(0);
  }

  last(): void {
    this.goTo(this.pages.length - 1);
  }

  /** Keys of the page engine; true when the key was used. */
  handleKey(event: KeyboardEvent): boolean {
    const { key } = event;
    if ((event.ctrlKey || event.metaKey) && (key === '+' || key === '=' || key === '-' || key === '0')) {
      if (key === '0') this.setZoom(NO_ZOOM);
      else this.zoomBy(key === '-' ? 1 / 1.25 : 1.25);
      return true;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return false;
    if (key === '+' || key === '=') return (this.zoomBy(1.25), true);
    if (key === '-') return (this.zoomBy(1 / 1.25), true);
    if (key === '0') return (this.setZoom(NO_ZOOM), true);
    if (this.isWebtoon) {
      if (key === 'ArrowDown') return (this.scrollBy(0.25), true);
      if (key === 'ArrowUp') return (this.scrollBy(-0.25), true);
    }
    const arrow = arrowAction(key, this.settings.mode);
    if (arrow) {
      if (this.zoomed && !this.isWebtoon) {
        // Arrows pan a zoomed page; they turn it once its edge is reached.
        const step = 80;
        const before = this.zoom;
        const dx = key === 'ArrowLeft' ? step : key === 'ArrowRight' ? -step : 0;
        const dy = key === 'ArrowUp' ? step : key === 'ArrowDown' ? -step : 0;
        this.setZoom({ ...this.zoom, x: this.zoom.x + dx, y: this.zoom.y + dy });
        if (before.x !== this.zoom.x || before.y !== this.zoom.y) return true;
      }
      if (arrow === 'next') this.next();
      else this.previous();
      return true;
    }
    if (key === ' ' || key === 'PageDown') return (event.shiftKey && key === ' ' ? this.previous() : this.next(), true);
    if (key === 'PageUp') return (this.previous(), true);
    if (key === 'Home') return (this.first(), true);
    if (key === 'End') return (this.last(), true);
    return false;
  }

  zoomBy(factor: number): void {
    if (this.isWebtoon) return;
    this.setZoom(zoomAt(this.zoom, factor, 0, 0, this.box()));
  }

  // --- drawing ---

  private box(): { width: number; height: number } {
    return { width: this.root.clientWidth || window.innerWidth, height: this.root.clientHeight || window.innerHeight };
  }

  /** The CSS width a page is drawn at, which sets the size of image asked from the server. */
  private boxWidth(index: number): number | null {
    if (this.settings.fit === 'original') return null;
    const box = this.box();
    if (this.isWebtoon) return this.stripWidth();
    const view = this.views[viewOf(this.views, index)] ?? [index];
    const share = { width: box.width / view.length, height: box.height };
    return fitSize(this.pages[index] ?? { width: null, height: null }, share, this.settings.fit).width;
  }

  /** The webtoon column: the pages' own width up to a reading width, centred; fit width widens it to the window. */
  private stripWidth(): number {
    // The stage's own width: without a scroll bar's (its gutter is kept, so the width does not change as it comes).
    const available = (this.stage.clientWidth || this.box().width) * (1 - (2 * this.settings.padding) / 100);
    return columnWidth(this.ownWidth, available, this.settings.fit);
  }

  private build(page: number): void {
    this.stage.replaceChildren();
    this.stage.className = `reader-stage mode-${this.settings.mode} fit-${this.settings.fit}${this.double ? ' double' : ''}`;
    this.zoom = NO_ZOOM;
    this.boxes = [];
    this.atEnd = false;
    if (this.isWebtoon) {
      this.views = this.pages.map((_, i) => [i]);
      this.buildStrip(page);
    } else {
      this.strip = null;
      this.views = spreads(this.pages, this.double, this.settings.shift);
      this.viewIndex = -1;
      this.show(viewOf(this.views, page));
    }
  }

  private show(viewIndex: number): void {
    if (this.destroyed) return;
    const changed = viewIndex !== this.viewIndex;
    this.viewIndex = viewIndex;
    this.zoom = NO_ZOOM;
    const view = this.views[viewIndex] ?? [];
    if (!this.built) this.opening = new Set(view);
    const frame = document.createElement('div');
    frame.className = 'reader-view';
    frame.dataset.view = view.map((i) => i + 1).join('-');
    for (const index of onScreenOrder(view, this.settings.mode)) {
      const slot = document.createElement('div');
      slot.className = 'reader-slot';
      slot.dataset.page = String(index + 1);
      const page = this.pages[index];
      if (page?.width && page.height) slot.style.aspectRatio = `${page.width} / ${page.height}`;
      const ready = this.queue.ready(index);
      if (ready) this.place(slot, ready);
      else {
        slot.classList.add('loading');
        void this.queue.get(index).then(
          (loaded) => {
            if (slot.isConnected) this.place(slot, loaded);
          },
          () => {
            if (slot.isConnected) this.fail(slot);
          },
        );
      }
      frame.append(slot);
    }
    this.stage.replaceChildren(frame);
    this.stage.scrollTo(0, 0);
    this.queue.want(preloadOrder(this.views, viewIndex, this.settings.preload), view.length);
    const reached = Math.max(...view);
    if (changed && reached !== this.reported) {
      this.reported = reached;
      this.callbacks.onPage(reached, view);
    }
  }

  /** A page that did not load: said on the page, with a way to ask again (and asked again when back online). */
  private fail(slot: HTMLElement): void {
    slot.classList.remove('loading');
    slot.classList.add('failed');
    const note = document.createElement('p');
    note.textContent = t`This page could not be loaded.`;
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.className = 'small';
    retry.textContent = t`Try again`;
    // The button is not a tap on the page: no page turn, no menu.
    for (const type of ['pointerdown', 'pointerup'] as const) retry.addEventListener(type, (e) => e.stopPropagation());
    retry.addEventListener('click', () => this.retryFailed());
    slot.replaceChildren(note, retry);
  }

  /** Shows the current view again, which asks again for its pages that failed. */
  private retryFailed(): void {
    if (this.destroyed || this.isWebtoon || !this.stage.querySelector('.reader-slot.failed')) return;
    this.show(this.viewIndex);
  }

  private readonly onOnline = () => this.retryFailed();

  private place(slot: HTMLElement, loaded: LoadedPage): void {
    slot.classList.remove('loading');
    const image = loaded.image;
    image.alt = `Page ${loaded.index + 1}`;
    image.draggable = false;
    image.dataset.page = String(loaded.index + 1);
    slot.replaceChildren(image);
  }

  private setZoom(z: ZoomState): void {
    this.zoom = clampZoom(z, this.box());
    const frame = this.stage.firstElementChild as HTMLElement | null;
    if (!frame) return;
    frame.style.transform = isZoomed(this.zoom) ? `translate(${this.zoom.x}px, ${this.zoom.y}px) scale(${this.zoom.scale})` : '';
    this.stage.classList.toggle('zoomed', isZoomed(this.zoom));
    this.stage.dataset.zoom = this.zoom.scale.toFixed(2);
  }

  // --- webtoon ---

  private buildStrip(page: number): void {
    const width = this.stripWidth();
    const strip = layoutStrip(this.pages, width, this.settings.gap);
    this.strip = strip;
    const column = document.createElement('div');
    column.className = 'reader-strip';
    column.style.height = `${strip.total}px`;
    column.style.width = `${width}px`;
    this.boxes = this.pages.map((_, i) => {
      const box = document.createElement('div');
      box.className = 'reader-slot';
      box.dataset.page = String(i + 1);
      box.style.top = `${strip.tops[i] ?? 0}px`;
      box.style.height = `${strip.heights[i] ?? 0}px`;
      column.append(box);
      return box;
    });
    this.stage.append(column);
    this.anchor = { page, offset: 0 };
    this.stage.scrollTop = strip.tops[page] ?? 0;
    this.onScrollFrame(true);
  }

  /** Re-lays the strip for a new width, putting the page at the viewport's centre back where it was. */
  private relayout(): void {
    if (this.destroyed) return;
    if (!this.isWebtoon || !this.strip) {
      if (this.zoomed) this.setZoom(this.zoom);
      return;
    }
    const width = this.stripWidth();
    const column = this.stage.firstElementChild as HTMLElement | null;
    if (!column || column.style.width === `${width}px`) return;
    const anchor = this.anchor;
    const strip = layoutStrip(this.pages, width, this.settings.gap);
    this.strip = strip;
    column.style.width = `${width}px`;
    column.style.height = `${strip.total}px`;
    this.boxes.forEach((box, i) => {
      box.style.top = `${strip.tops[i] ?? 0}px`;
      box.style.height = `${strip.heights[i] ?? 0}px`;
    });
    this.stage.scrollTop = scrollTopFor(strip, anchor, this.stage.clientHeight);
    this.anchor = anchor;
  }

  private scrollBy(share: number): void {
    this.stage.scrollBy({ top: this.stage.clientHeight * share, behavior: 'instant' });
    this.onScrollFrame();
  }

  private readonly onScroll = () => {
    cancelAnimationFrame(this.scrollFrame);
    this.scrollFrame = requestAnimationFrame(() => this.onScrollFrame());
  };

  private onScrollFrame(initial = false): void {
    const strip = this.strip;
    if (!strip || this.destroyed) return;
    const height = this.stage.clientHeight || this.box().height;
    const top = this.stage.scrollTop;
    const anchor = initial ? this.anchor : anchorAt(strip, top, height);
    const moved = anchor.page !== this.anchor.page;
    this.anchor = anchor;
    const visible = pagesInRange(strip, top, top + height, height);
    const ahead: number[] = [];
    for (let i = 1; i <= this.settings.preload; i++) {
      const page = (visible[visible.length - 1] ?? 0) + i;
      if (page < this.pages.length) ahead.push(page);
    }
    this.queue.want([...visible, ...ahead]);
    for (const index of visible) {
      const box = this.boxes[index];
      if (!box || box.firstChild) continue;
      const ready = this.queue.ready(index);
      if (ready) this.place(box, ready);
      else
        void this.queue.get(index).then(
          (loaded) => {
            if (box.isConnected && this.queue.ready(index) === loaded) this.place(box, loaded);
          },
          () => undefined,
        );
    }
    // Boxes left behind lose their images (the queue released them).
    for (const [index, box] of this.boxes.entries()) if (box.firstChild && !this.queue.ready(index)) box.replaceChildren();
    // At the very bottom the last page counts as reached even when it is too short to reach the centre.
    const bottom = top + height >= strip.total - 2;
    const current = bottom ? this.pages.length - 1 : anchor.page;
    if (moved || initial || current !== this.reported) {
      this.reported = current;
      this.callbacks.onPage(current, [current]);
    }
    if (bottom && !this.atEnd && !initial) this.callbacks.onEnd();
    this.atEnd = bottom;
  }

  // --- gestures ---

  private readonly onPointerDown = (e: PointerEvent) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, startX: e.clientX, startY: e.clientY, t: performance.now() });
    this.dragged = false;
    if (this.pointers.size === 2 && !this.isWebtoon) {
      const [a, b] = [...this.pointers.values()];
      this.pinch = { distance: Math.hypot(a!.x - b!.x, a!.y - b!.y), zoom: this.zoom };
    }
    if (this.zoomed || this.pointers.size > 1) this.stage.setPointerCapture?.(e.pointerId);
  };

  private readonly onPointerMove = (e: PointerEvent) => {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    if (Math.hypot(e.clientX - p.startX, e.clientY - p.startY) > 10) this.dragged = true;
    if (this.pinch && this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const distance = Math.hypot(a!.x - b!.x, a!.y - b!.y);
      const box = this.box();
      const cx = (a!.x + b!.x) / 2 - box.width / 2;
      const cy = (a!.y + b!.y) / 2 - box.height / 2;
      this.setZoom(zoomAt(this.pinch.zoom, distance / Math.max(1, this.pinch.distance), cx, cy, box));
      return;
    }
    if (this.zoomed && !this.isWebtoon) this.setZoom({ ...this.zoom, x: this.zoom.x + dx, y: this.zoom.y + dy });
  };

  private readonly onPointerUp = (e: PointerEvent) => {
    const p = this.pointers.get(e.pointerId);
    this.pointers.delete(e.pointerId);
    if (!p) return;
    if (this.pinch) {
      if (this.pointers.size === 0) this.pinch = null;
      return;
    }
    const dx = e.clientX - p.startX;
    const dy = e.clientY - p.startY;
    if (this.zoomed || this.isWebtoon) {
      // While zoomed a swipe has panned; in webtoon the browser scrolls. Only taps remain.
      if (!this.dragged) this.tap(e.clientX, e.clientY);
      return;
    }
    const horizontal = Math.abs(dx) > SWIPE_PX && Math.abs(dx) > Math.abs(dy) * 1.5;
    const vertical = this.settings.mode === 'vertical' && Math.abs(dy) > SWIPE_PX && Math.abs(dy) > Math.abs(dx) * 1.5;
    if (horizontal) {
      const forward = this.settings.mode === 'rtl' ? dx > 0 : dx < 0;
      if (forward) this.next();
      else this.previous();
    } else if (vertical) {
      if (dy < 0) this.next();
      else this.previous();
    } else if (!this.dragged) this.tap(e.clientX, e.clientY);
  };

  private readonly onPointerCancel = (e: PointerEvent) => {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 0) this.pinch = null;
  };

  /** A tap turns or opens the menu; two taps in a row zoom in at that point (or back out). */
  private tap(x: number, y: number): void {
    const now = performance.now();
    const rect = this.root.getBoundingClientRect();
    const near = Math.hypot(x - this.lastTapAt.x, y - this.lastTapAt.y) < 40;
    if (!this.isWebtoon && now - this.lastTap < DOUBLE_TAP_MS && near) {
      clearTimeout(this.tapTimer);
      this.lastTap = 0;
      if (this.zoomed) this.setZoom(NO_ZOOM);
      else this.setZoom(zoomAt(this.zoom, 2.5, x - rect.left - rect.width / 2, y - rect.top - rect.height / 2, this.box()));
      return;
    }
    this.lastTap = now;
    this.lastTapAt = { x, y };
    const action = this.zoomed ? 'menu' : tapAction(x - rect.left, rect.width, this.settings.mode, this.settings.tapZones);
    const run = () => {
      if (action === 'menu') this.callbacks.onMenu();
      else if (action === 'next') this.next();
      else this.previous();
    };
    // Turning at once keeps taps instant; a second tap (a double tap) then zooms the page it landed on.
    if (action === 'menu' && !this.isWebtoon) this.tapTimer = window.setTimeout(run, DOUBLE_TAP_MS);
    else run();
  }

  private readonly onWheel = (e: WheelEvent) => {
    if (!e.ctrlKey || this.isWebtoon) return;
    e.preventDefault();
    const rect = this.root.getBoundingClientRect();
    this.setZoom(
      zoomAt(
        this.zoom,
        Math.exp(-e.deltaY / 300),
        e.clientX - rect.left - rect.width / 2,
        e.clientY - rect.top - rect.height / 2,
        this.box(),
      ),
    );
  };
}
