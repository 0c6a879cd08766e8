/** A catalogue, compiled by @lingui/vite-plugin when imported (web/src/i18n.ts). */
declare module '*.po' {
  export const messages: Record<string, string>;
}
