// The plugin ships no types; Beans uses only its GitHub-flavoured bundle (tables, strikethrough, task lists).
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
}
