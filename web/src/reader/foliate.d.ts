/** The few foliate-js shapes the EPUB reader uses (the package ships plain ES modules without types). */
declare module 'foliate-js/view.js' {
  export class View extends HTMLElement {}
}
declare module 'foliate-js/epub.js' {
  export interface FoliateLoader {
    loadText(name: string): Promise<string | null> | string | null;
    loadBlob(name: string): Promise<Blob | null> | Blob | null;
    getSize(name: string): number;
  }
  export interface FoliateTocItem {
    label: string;
    href: string;
    subitems?: FoliateTocItem[];
  }
  export interface FoliateBook {
    sections: Array<{ id: string; linear?: string }>;
    toc?: FoliateTocItem[];
    dir?: string;
    metadata?: { title?: unknown; language?: unknown };
    rendition?: { layout?: string };
  }
  export class EPUB implements FoliateBook {
    constructor(loader: FoliateLoader);
    init(): Promise<FoliateBook>;
    sections: FoliateBook['sections'];
  }
}
